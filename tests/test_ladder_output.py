"""Issue 32 item 8 (its code): `ladder site` says what it wrote, `ladder results` prints an aligned table."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from competition_helpers import make_set, short_ladder

from competition.ladder.config import BotSettings, RunSettings
from competition.ladder.ladder import init_ladder
from competition.ladder.store import Store
from competition.report import display_width
from kierki_cli.ladder_cmd import results_table
from kierki_cli.main import cli


def _played(tmp_path: Path) -> Path:
    folder = tmp_path / "ladder"
    config = short_ladder(RunSettings(jobs=1, pin=False, plan_ahead=1), BotSettings(validation=False))
    init_ladder(folder, config)
    with Store.open(folder / "ladder.sqlite") as store:
        for name, owner in (("a", "alice"), ("long_bot_name", None), ("c", "carol"), ("d", "dave")):
            store.add_bot(name, "sample:random", "/", owner=owner)
        run = store.start_run(1, "here")
        table = ("a@1", "long_bot_name@1", "c@1", "d@1")
        store.plan([table], lambda set_id: f"seed-{set_id}")
        claimed = store.claim_next(run, 1, "here")
        assert claimed is not None
        scores = {"a@1": [3, 120, 7, 26], "long_bot_name@1": [26, 0, 13, 5], "c@1": [0, 6, 6, 0], "d@1": [1, 0, 0, 95]}
        record = make_set(claimed.set_id, scores, game="hearts", higher_is_better=False, forfeited=[(1, "d@1")])
        store.record(run, record, dict.fromkeys(claimed.table), deactivate_after=3)
    return folder


def test_ladder_results_prints_an_aligned_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["ladder", "results", str(_played(tmp_path))])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 + 16
    header = lines[0]
    assert header.split() == ["set", "game", "time", "seat", "bot", "owner", "points", "place", "faults", "forfeited"]
    # Text columns start where their heading starts, numbers end where theirs ends.
    for row in lines[1:]:
        for heading in ("time", "bot", "owner", "faults", "forfeited"):
            at = header.index(heading)
            assert row[at] != " " and row[at - 1] == " ", (heading, row)
        for heading in ("seat", "points", "place"):
            end = header.index(heading) + len(heading)
            assert row[end - 1] != " " and row[end] == " ", (heading, row)
    assert any(row.split()[5] == "-" for row in lines[1:])  # no owner
    assert sorted({row.split()[-1] for row in lines[1:]}) == ["no", "yes"]


def test_the_results_table_escapes_and_aligns_wide_text() -> None:
    rows = [
        {"set": 1, "game": 1, "time": "t", "seat": 0, "bot": "東京@1", "owner": "x\x1b", "points": 5, "place": 1,
         "faults": "", "forfeited": False},
        {"set": 10, "game": 2, "time": "t", "seat": 3, "bot": "b@1", "owner": None, "points": -15, "place": 4,
         "faults": "timeout:1", "forfeited": True},
    ]  # fmt: skip
    first, second, third = results_table(rows).splitlines()
    assert "\\x1b" in second and "\x1b" not in second
    owner = first.index("owner")  # in columns: the wide name takes two a character
    assert display_width(second[: second.index("x\\x1b")]) == owner == display_width(third[: third.index(" - ") + 1])


def test_ladder_site_says_what_it_wrote(tmp_path: Path) -> None:
    folder = _played(tmp_path)
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["ladder", "site", str(folder), str(out)])
    assert result.exit_code == 0, result.output
    first, second = result.output.splitlines()
    assert first.startswith(f"site written to {out}: ") and "index.html" in first and "4 bot pages" in first
    assert first.endswith(f"; open {out / 'index.html'}") and (out / "index.html").is_file()
    assert second.startswith(f"(this version is {out.parent}/.site.versions/") and "swapped whole" in second
