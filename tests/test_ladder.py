"""The ladder with real bot processes: kill -9 mid-run, overlapping runs, failing bots, voided sets, the site."""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec
import pytest
import tomli_w
from click.testing import CliRunner
from competition_helpers import family, family_env

import sample_bots
from competition.duplicate_set import SetRequest
from competition.executors import GameExecutor
from competition.ladder import run as run_module
from competition.ladder.config import (
    LADDER_ISOLATION,
    BotSettings,
    ConfigError,
    LadderConfig,
    RunSettings,
    read_key,
    unapplied_warnings,
)
from competition.ladder.ladder import LadderError, add_bot, gzip_old_replays, init_ladder
from competition.ladder.play import RefereeFailure, SetOutcome, play_ladder_set
from competition.ladder.run import run_ladder
from competition.ladder.site import write_site
from competition.ladder.standings import standings
from competition.ladder.store import Store
from competition.model import SetRecord
from competition.ratings import rate
from competition.seeds import set_seed
from kierki_cli.main import cli
from referee.bots import isolation as isolation_module
from referee.bots.fairplay import fair_play_problem
from referee.bots.isolation import Isolation
from referee.bots.sandbox import SandboxError, check_bwrap
from referee.bots.time_control import TimeControl
from referee.replay.reader import load
from referee.replay.records import DealRecord
from referee.vocabulary.setting_error import SettingError

SAMPLES = Path(sample_bots.__file__).parent
HOSTILE = Path(__file__).parent / "hostile"
CLI = "import sys; from kierki_cli.main import cli; sys.exit(cli())"


def _isolation(**settings: Any) -> Isolation:
    """A ladder's own isolation (the CPU limit explicit, as ladder.toml keeps it) with ``settings`` changed."""
    return msgspec.structs.replace(LADDER_ISOLATION, **settings)


# Control groups where this machine has them (a run refuses without them unless told "none").
FAIR_PLAY = "none" if fair_play_problem("auto") else "auto"


def _config(**run: object) -> LadderConfig:
    settings = {"jobs": 2, "pin": False, "plan_ahead": 3, **run}
    return LadderConfig(
        game="hearts",
        players=4,
        options={"target": "10"},  # a short game keeps the suite fast
        isolation=_isolation(sandbox="none", fair_play=FAIR_PLAY),
        run=RunSettings(**settings),  # type: ignore[arg-type]
        bots=BotSettings(deactivate_after=2, validation=False),
    )


def _ladder(tmp_path: Path, *bots: tuple[str, str], config: LadderConfig | None = None) -> Path:
    folder = tmp_path / "ladder"
    init_ladder(folder, config or _config())
    default = (("h", "heuristic_bot.py"), ("r", "random_bot.py"), ("h2", "heuristic_bot.py"), ("r2", "random_bot.py"))
    for name, program in bots or default:
        path = Path(program) if "/" in program else SAMPLES / program
        add_bot(folder, name, [sys.executable, str(path)], cwd=tmp_path)
    return folder


def _check_every_set_counted_once(folder: Path) -> list[int]:
    """The invariants a run must keep whatever happened to the one before: returns the played sets' ids."""
    with Store.open(folder / "ladder.sqlite") as store:
        results = store.results()
        assert store.count("claimed") == 0
        assert store.ratings() == rate(results, store.rating_params())
        rated = sum(len(set(r.bots)) for r in results)
        assert sum(r.sets for r in store.ratings().values()) == rated
        history = store.db.execute("SELECT COUNT(*), COUNT(DISTINCT set_id || '/' || bot_id) FROM rating_history")
        assert tuple(history.fetchone()) == (rated, rated)
        ids = [r.set_id for r in results]
        assert len(ids) == len(set(ids))
        for record in results:
            for game in record.games:
                assert game.replay is not None and (folder / game.replay).is_file()
    assert not list((folder / "sets").glob("*.partial"))
    leftovers = {p.name for p in (folder / "sets").iterdir()} - {f"{i:06d}" for i in ids}
    assert not leftovers  # no folder of a set that was not recorded
    return ids


def _wait_gone(pids: list[int]) -> None:
    """Block until each process has exited (a pidfd becomes readable then); bounded, not timed."""
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            ready, _, _ = select.select([fd], [], [], 60)
            assert ready, f"process {pid} of the killed run is still alive"
        finally:
            os.close(fd)


def _ladder_run(folder: Path, sets: int, **popen: Any) -> subprocess.Popen[str]:
    """``kierki ladder run FOLDER --sets N`` in a process of its own, its stdout (and by default stderr) piped."""
    settings: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, **popen}
    return subprocess.Popen([sys.executable, "-c", CLI, "ladder", "run", str(folder), "--sets", str(sets)], **settings)


def _lines(process: subprocess.Popen[str]) -> Iterator[str]:
    """The run's lines without the time each starts with."""
    assert process.stdout is not None
    # Not ``yield from``: closing this generator (a ``break`` in the caller) would close the pipe with it.
    for line in process.stdout:
        yield line.partition(" ")[2]


@pytest.mark.parametrize("kill_when", ["claimed", "played"])
def test_kill_9_mid_run_then_run_again_counts_every_set_exactly_once(tmp_path: Path, kill_when: str) -> None:
    folder = _ladder(tmp_path)
    tag, env = family_env()  # the run, its forkserver and its workers (sessions of their own), found after the kill
    process = _ladder_run(folder, 5, stderr=subprocess.DEVNULL, start_new_session=True, env=env)
    killed_set = None
    for line in _lines(process):
        words = line.split()
        # Kill during the second set: the first is recorded, the second claimed (or played, not yet recorded).
        if len(words) >= 3 and words[0] == "set" and words[1] == "2" and words[2].rstrip(":") == kill_when:
            process.send_signal(signal.SIGKILL)  # at once: a slower kill could land after the next set
            members = family(tag)
            killed_set = 2
            break
    assert killed_set is not None, "the run never reached the second set"
    process.wait()
    assert process.stdout is not None
    process.stdout.close()
    _wait_gone(members)
    with Store.open(folder / "ladder.sqlite") as store:
        assert store.count("played") in (1, 2)  # killed after "played" the commit may or may not have happened
        assert store.last_run() is not None and store.last_run().status == "running"  # type: ignore[union-attr]
        before = store.count("played")
    status = CliRunner().invoke(cli, ["ladder", "status", str(folder)])
    assert "stale: it died without finishing" in status.output
    report = run_ladder(folder, sets=2)
    assert report.status == "finished" and report.sets_played == 2
    if kill_when == "claimed" or before == 1:
        assert report.reclaimed == [killed_set]  # the claim of the dead run is taken over and played again
    ids = _check_every_set_counted_once(folder)
    assert killed_set in ids and len(ids) == before + 2


def test_a_second_run_while_one_holds_the_lock_exits_at_once(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    process = _ladder_run(folder, 2)
    for line in _lines(process):
        if line.startswith("set 1 claimed"):
            break
    assert run_ladder(folder, sets=1).status == "locked"
    result = CliRunner().invoke(cli, ["ladder", "run", str(folder)])
    assert result.exit_code == 0 and "another run holds" in result.output
    status = CliRunner().invoke(cli, ["ladder", "status", str(folder)])
    assert "running now" in status.output
    assert process.wait() == 0, process.stderr.read() if process.stderr else ""
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    process.stderr.close()
    _check_every_set_counted_once(folder)
    with Store.open(folder / "ladder.sqlite") as store:
        assert len(store.results()) == 2


def test_a_bot_failing_k_sets_in_a_row_is_deactivated_with_the_reason(tmp_path: Path) -> None:
    folder = _ladder(
        tmp_path,
        ("h", "heuristic_bot.py"),
        ("r", "random_bot.py"),
        ("r2", "random_bot.py"),
        ("crash", str(HOSTILE / "crash_at_start.py")),
    )
    report = run_ladder(folder, sets=3)
    assert report.sets_played == 2  # then three active bots are left for four seats: nothing more is played
    assert report.stop_reason.startswith("nothing to play: 3 active bots for 4 seats")
    assert list(report.deactivated) == ["crash@1"]
    assert "2 sets in a row failed; the last: could not start" in report.deactivated["crash@1"]
    with Store.open(folder / "ladder.sqlite") as store:
        bot = store.bot("crash@1")
        assert bot is not None and bot.status == "deactivated"
        assert store.count("voided") == 0  # the sets planned with it are cancelled, not voided
        assert store.count("cancelled") == len(store.sets("cancelled")) >= 1
        rows = standings(store)  # the crashed bot, which never played a game of its own, is listed, not ranked
        assert [(r.label, r.rank) for r in rows][-1] == ("crash@1", None)
    status = CliRunner().invoke(cli, ["ladder", "status", str(folder)])
    assert "deactivated crash@1: 2 sets in a row failed" in status.output
    with Store.open(folder / "ladder.sqlite") as store:
        write_site(folder, store, tmp_path / "www")
    index = (tmp_path / "www" / "index.html").read_text()
    assert "deactivated: 2 sets in a row failed; the last: could not start" in index
    _check_every_set_counted_once(folder)


def test_a_referee_failure_voids_the_set_and_it_is_played_again(tmp_path: Path) -> None:
    folder = _ladder(tmp_path, config=_config(plan_ahead=2))
    calls = []

    def failing_once(request: SetRequest, runner: GameExecutor) -> SetOutcome:
        calls.append(request.set_id)
        if len(calls) == 1:
            raise RefereeFailure("the referee tripped over its own feet")
        return play_ladder_set(request, runner)

    report = run_ladder(folder, sets=3, play=failing_once)
    assert report.sets_voided == 1 and report.sets_played == 2
    with Store.open(folder / "ladder.sqlite") as store:
        (voided,) = store.sets("voided")
        assert voided.set_id == calls[0] and voided.void_reason == "the referee tripped over its own feet"
        replacement = store.db.execute("SELECT id, status FROM sets WHERE replaces = ?", (voided.set_id,)).fetchone()
        assert replacement[1] == "played" and replacement[0] in calls
        assert voided.set_id not in {r.set_id for r in store.results()}
        assert store.sets()[replacement[0] - 1].table == voided.table
    _check_every_set_counted_once(folder)


def test_a_bot_whose_program_changed_is_refused_with_how_to_re_add_it(tmp_path: Path) -> None:
    mine = tmp_path / "bots" / "mine.py"
    mine.parent.mkdir()
    shutil.copy(SAMPLES / "heuristic_bot.py", mine)
    others = (("r", "random_bot.py"), ("h", "heuristic_bot.py"), ("r2", "random_bot.py"), ("h2", "heuristic_bot.py"))
    folder = _ladder(tmp_path, ("mine", str(mine)), *others)
    mine.write_text(mine.read_text() + "\n# a change\n")
    report = run_ladder(folder, sets=1)
    assert "mine@1" in report.deactivated
    assert "changed since it was added" in report.deactivated["mine@1"]
    assert "kierki ladder add DIR mine --" in report.deactivated["mine@1"]
    with Store.open(folder / "ladder.sqlite") as store:
        assert all("mine@1" not in r.bots for r in store.results())


def test_a_run_refuses_to_start_without_a_working_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = dataclasses.replace(_config(), isolation=_isolation(sandbox="bwrap"))
    folder = _ladder(tmp_path, config=config)

    def no_bwrap() -> None:
        raise SandboxError("--sandbox bwrap: bubblewrap cannot create its sandbox on this machine")

    monkeypatch.setattr(isolation_module, "check_bwrap", no_bwrap)
    with pytest.raises(LadderError, match=r'isolation\.sandbox = "none"'):
        run_ladder(folder, sets=1)
    with Store.open(folder / "ladder.sqlite") as store:
        assert store.count("played") == 0


def test_a_run_refuses_to_start_without_control_groups_unless_told_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = dataclasses.replace(_config(), isolation=_isolation(sandbox="none", fair_play="auto"))
    folder = _ladder(tmp_path, config=config)
    monkeypatch.setattr(run_module, "fair_play_problem", lambda fair_play: "no cgroup file system is mounted")
    with pytest.raises(LadderError, match=r'no control group can be made here .* isolation\.fair_play = "none"'):
        run_ladder(folder, sets=1)
    with Store.open(folder / "ladder.sqlite") as store:
        assert store.count("played") == 0
    assert (
        'fair_play = "auto"' in (folder / "ladder.toml").read_text()
        and "freeze = true" in (folder / "ladder.toml").read_text()
    )


def test_set_seeds_are_a_keyed_hash_of_the_set_id(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    run_ladder(folder, sets=1)
    assert (folder / "secret.key").stat().st_mode & 0o777 == 0o600
    key = read_key(folder)
    with Store.open(folder / "ladder.sqlite") as store:
        (record,) = store.results()
    assert record.seed == set_seed(key, record.set_id) and len(record.seed) == 32
    assert set_seed(key, 1) != set_seed(b"another key of 16+ bytes", 1)
    replay = load(folder / (record.games[0].replay or ""))
    assert replay.header.seed == record.seed


def test_old_replays_are_gzipped_and_still_read(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    run_ladder(folder, sets=1)
    with Store.open(folder / "ladder.sqlite") as store:
        (record,) = store.results()
        assert gzip_old_replays(folder, store, age_s=3600) == 0  # too recent
        compressed = gzip_old_replays(folder, store, age_s=0)
        assert store.uncompressed_before(store.clock()) == []  # the next run does not look at this set again
    assert compressed == len(record.games)
    relative = record.games[0].replay or ""
    assert not (folder / relative).exists()
    packed = folder / (relative + ".gz")
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    replay = load(packed)
    assert replay.header.seed == record.seed
    plain = tmp_path / "plain.replay.jsonl"
    plain.write_bytes(gzip.decompress(packed.read_bytes()))
    assert load(plain).entries == replay.entries
    result = CliRunner().invoke(cli, ["replay", str(packed)])
    assert result.exit_code == 0, result.output


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[str] = []
        self.links: list[str] = []
        self.images: dict[str, str] = {}
        self.pre: list[str] = []
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "tr" and "bot-row" in (values.get("class") or ""):
            self.rows.append(values.get("class") or "")
        if tag == "a" and values.get("href"):
            self.links.append(values["href"] or "")
        if tag == "img":
            self.images[values.get("id") or ""] = values.get("src") or ""
        self._in_pre = tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.pre.append(data)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text())
    return page


def test_the_site_has_standings_rows_links_plots_and_escaped_stderr(tmp_path: Path) -> None:
    noisy = tmp_path / "noisy" / "noisy.py"
    noisy.parent.mkdir()
    noisy.write_text(
        "import runpy, sys\n"
        "sys.stderr.write('<script>alert(1)</script> \\x1b[31mred\\n'); sys.stderr.flush()\n"
        f"runpy.run_path({str(SAMPLES / 'heuristic_bot.py')!r}, run_name='__main__')\n"
    )
    folder = _ladder(
        tmp_path, ("h", "heuristic_bot.py"), ("r", "random_bot.py"), ("noisy", str(noisy)), ("r2", "random_bot.py")
    )
    out = tmp_path / "www"
    config = LadderConfig.load(folder)
    (folder / "ladder.toml").write_text(dataclasses.replace(config, site_dir=str(out)).to_toml())
    run_ladder(folder, sets=2)  # the run refreshes the site
    assert out.is_symlink()
    index = _parse(out / "index.html")
    assert len(index.rows) == 4
    bot_pages = [link for link in index.links if link.startswith("bots/")]
    assert len(bot_pages) == 4
    for link in bot_pages:
        page_path = out / link
        page = _parse(page_path)
        plot = page_path.parent / page.images["rating-plot"]
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        logs = [link for link in page.links if "replays/" in link and ".replay.jsonl" in link]
        pages = [link for link in page.links if "replays/" in link and link.endswith(".html")]
        assert logs and len(pages) == len(logs)  # each game: its replay page and its log
        for log in logs:
            assert load(page_path.parent / log).header.game == "hearts"
        for replay_page in pages:
            assert '<script type="application/json"' in (page_path.parent / replay_page).read_text()
    noisy_page = next(out / link for link in bot_pages if "<h1>noisy@1</h1>" in (out / link).read_text())
    html = noisy_page.read_text()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "\x1b" not in html and "\\x1b[31mred" in "".join(_parse(noisy_page).pre)
    head = _parse(out / "head-to-head.html")
    assert head.links  # the navigation
    assert "h@1" in (out / "head-to-head.html").read_text()
    first = out.resolve()
    with Store.open(folder / "ladder.sqlite") as store:
        store.retire("r")
        write_site(folder, store, out)  # a second write swaps the link to a new folder; the old one is kept
    assert out.resolve() != first and first.exists()
    # The active bots ranked 1..n apart from the retired one; nothing published shows the server's paths.
    index_html = (out / "index.html").read_text()
    active, inactive = index_html.split('<table id="inactive">')
    assert "r@1" in inactive and "r@1</a>" not in active and active.count('class="bot-row') == 3
    server = [str(tmp_path.resolve()), str(Path(sys.executable).resolve().parent)]
    published = [path for path in out.resolve().rglob("*") if path.is_file()]
    assert any(path.name.endswith(".replay.jsonl") for path in published)
    for path in published:
        data = path.read_bytes()
        text = (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", "replace")
        assert not any(where in text for where in server), path
    replay_page = next(path for path in published if path.name == "game1.html").read_text()
    assert "sets/" in replay_page and "replay.jsonl" in replay_page  # the resume hint's log, relative
    copied = next(path for path in published if path.name.endswith(".replay.jsonl"))
    labels = {b.label for b in load(copied).header.bots}  # the seats carry their ladder names
    assert labels <= {"h@1", "r@1", "noisy@1", "r2@1"} and len(labels) == 4


def test_the_site_refuses_to_replace_a_folder_it_did_not_write(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    out = tmp_path / "important"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with Store.open(folder / "ladder.sqlite") as store, pytest.raises(LadderError, match="not a site"):
        write_site(folder, store, out)
    assert (out / "keep.txt").read_text() == "mine"


def test_the_cli_from_an_empty_folder_to_standings(tmp_path: Path) -> None:
    runner = CliRunner()
    folder = tmp_path / "ladder"
    result = runner.invoke(
        cli, ["ladder", "init", str(folder), "--game", "hearts", "--option", "target=10", "--sandbox", "none"]
    )
    assert result.exit_code == 0, result.output
    assert 'sandbox = "none"' in (folder / "ladder.toml").read_text()
    for name, bot in (
        ("h", "heuristic_bot.py"),
        ("r", "random_bot.py"),
        ("r2", "random_bot.py"),
        ("r3", "random_bot.py"),
    ):
        result = runner.invoke(
            cli, ["ladder", "add", str(folder), name, "--owner", name, "--", sys.executable, str(SAMPLES / bot)]
        )
        assert result.exit_code == 0, result.output
    crash = runner.invoke(
        cli, ["ladder", "add", str(folder), "crash", "--", sys.executable, str(HOSTILE / "crash_at_start.py")]
    )
    assert crash.exit_code == 1 and "crash was not added: it failed its validation game" in crash.output
    assert "see its stderr log" not in crash.output and "its last stderr lines are shown" in crash.output
    # Its stderr log goes with the validation game's folder: the last lines are shown above the reason instead.
    assert "the bot's stderr (last lines):" in crash.stderr and "hostile bot: crashing at start" in crash.stderr
    heuristic = ["--", sys.executable, str(SAMPLES / "heuristic_bot.py")]
    taken = runner.invoke(cli, ["ladder", "add", str(folder), "h", *heuristic])
    assert taken.exit_code == 1 and taken.output == "Error: h belongs to h: choose another name\n"
    same = runner.invoke(cli, ["ladder", "add", str(folder), "h", "--owner", "h", *heuristic])
    assert same.exit_code == 0 and "h@1 is unchanged" in same.output
    again = runner.invoke(cli, ["ladder", "add", str(folder), "h", "--owner", "h", "--new-version", *heuristic])
    assert "added h@2" in again.output and "retired h@1" in again.output
    result = runner.invoke(cli, ["ladder", "run", str(folder), "--sets", "2", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "run finished (the limit of 2 sets): 2 sets claimed: 2 played, 0 voided; 0 reclaimed" in result.output
    rows = json.loads(runner.invoke(cli, ["ladder", "standings", str(folder), "--json"]).output)
    assert [r["rank"] for r in rows] == [1, 2, 3, 4] and rows[0]["conservative"] >= rows[1]["conservative"]
    assert {r["label"] for r in rows} == {"h@2", "r@1", "r2@1", "r3@1"}
    assert all(r["sets"] == 2 and r["provisional"] for r in rows)
    table = runner.invoke(cli, ["ladder", "standings", str(folder)])
    assert "h@2" in table.output and "(provisional)" in table.output
    assert runner.invoke(cli, ["ladder", "rerate", str(folder)]).output == "ratings recomputed from 2 sets\n"
    assert json.loads(runner.invoke(cli, ["ladder", "standings", str(folder), "--json"]).output) == rows
    assert "retired r@1" in runner.invoke(cli, ["ladder", "retire", str(folder), "r"]).output
    status = runner.invoke(cli, ["ladder", "status", str(folder)])
    assert "2 played" in status.output and "finished" in status.output
    site = runner.invoke(cli, ["ladder", "site", str(folder), str(tmp_path / "www")])
    assert site.exit_code == 0 and (tmp_path / "www" / "index.html").exists()


def test_ladder_add_help_says_what_a_second_add_and_a_changed_file_do() -> None:
    shown = " ".join(CliRunner().invoke(cli, ["ladder", "add", "--help"]).output.split())
    assert "An existing NAME gets a new version (NAME@2)" in shown and "deactivates a bot whose file changed" in shown
    assert "another --owner is refused" in shown and "--new-version" in shown


def test_a_folder_that_cannot_be_made_or_written_is_a_one_line_error(tmp_path: Path) -> None:
    runner = CliRunner()
    (tmp_path / "file").write_text("not a folder\n")
    made = runner.invoke(cli, ["ladder", "init", str(tmp_path / "file" / "ladder"), "--game", "hearts"])
    assert made.exit_code == 1 and isinstance(made.exception, SystemExit), made.output
    assert made.output.count("\n") == 1 and "Not a directory" in made.output and "Traceback" not in made.output
    folder = tmp_path / "ladder"
    init_ladder(folder, _config())
    site = runner.invoke(cli, ["ladder", "site", str(folder), str(tmp_path / "file" / "www")])
    assert site.exit_code == 1 and isinstance(site.exception, SystemExit), site.output
    assert site.output.count("\n") == 1 and "Not a directory" in site.output


def test_a_bot_that_would_see_the_ladders_folder_is_refused(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    (tmp_path / "bot.py").write_text("")  # tmp_path holds the ladder too: the bot's folder would show it
    with pytest.raises(LadderError, match="contains the ladder's folder"):
        add_bot(folder, "near", [sys.executable, str(tmp_path / "bot.py")], cwd=tmp_path)
    with pytest.raises(LadderError, match="inside the ladder's folder"):
        add_bot(
            folder, "peek", [sys.executable, str(SAMPLES / "random_bot.py"), str(folder / "secret.key")], cwd=tmp_path
        )
    with Store.open(folder / "ladder.sqlite") as store:
        assert {b.name for b in store.bots()} == {"h", "r", "h2", "r2"}


def test_bot_ro_and_bot_env_are_checked_and_kept_in_ladder_toml(tmp_path: Path) -> None:
    """[isolation] bot_ro and bot_env: what `kierki match --bot-ro/--bot-env` give a match, for a ladder's bots."""
    (tmp_path / "data").mkdir()
    isolation = _isolation(sandbox="bwrap", bot_ro=(tmp_path / "data",), bot_env=(("MODEL", "small"),))
    config = dataclasses.replace(_config(), isolation=isolation)
    assert LadderConfig.from_dict(tomllib.loads(config.to_toml())) == config
    with pytest.raises(ConfigError, match=r"isolation\.bot_ro.*sandbox = \"bwrap\""):
        dataclasses.replace(config, isolation=_isolation(sandbox="none", bot_ro=(Path("/etc"),))).check()
    with pytest.raises(SettingError, match=r"bot_env = '1X'"):  # the referee's own check, for every source
        _isolation(bot_env=(("1X", "y"),))
    data = tomllib.loads(config.to_toml())
    data["isolation"]["bot_env"] = {"1X": "y"}
    with pytest.raises(ConfigError, match=r"isolation\.bot_env = '1X'"):  # the same check, in ladder.toml's words
        LadderConfig.from_dict(data)
    with pytest.raises(ConfigError, match=r"isolation\.bot_ro.*does not exist"):
        init_ladder(
            tmp_path / "l1", dataclasses.replace(config, isolation=_isolation(bot_ro=(Path("no-such-folder"),)))
        )
    # A bot_ro path that holds the ladder's folder would show the secret key and every log to the bots.
    with pytest.raises(ConfigError, match="shows the ladder's folder"):
        init_ladder(tmp_path / "l2", dataclasses.replace(config, isolation=_isolation(bot_ro=(tmp_path,))))
    runner = CliRunner()
    args = ["ladder", "init", str(tmp_path / "l3"), "--game", "hearts", "--bot-ro", str(tmp_path / "data")]
    made = runner.invoke(cli, [*args, "--bot-env", "MODEL=small"])
    assert made.exit_code == 0, made.output
    isolation = LadderConfig.load(tmp_path / "l3").isolation
    assert isolation.bot_ro == (tmp_path / "data",) and isolation.bot_env == (("MODEL", "small"),)


@pytest.mark.parametrize(
    ("section", "key", "value", "says"),
    [
        ("time", "move_ms", 0, "time.move_ms = 0: must be at least 1"),
        ("time", "bank_ms", -1, "time.bank_ms = -1: must be at least 0"),
        ("isolation", "memory_mb", -5, "isolation.memory_mb = -5: must be at least 0"),
        ("bots", "max_strikes", 0, "bots.max_strikes = 0: must be at least 1"),
        ("rating", "sigma", 0.0, "rating.sigma = 0.0: must be above 0"),
        ("rating", "beta", -1.0, "rating.beta = -1.0: must be above 0"),
        ("rating", "tau", -0.5, "rating.tau = -0.5: must be 0 or more"),
    ],
)
def test_a_hand_edited_ladder_toml_with_a_value_out_of_range_is_refused(
    tmp_path: Path, section: str, key: str, value: object, says: str
) -> None:
    folder = tmp_path / "ladder"
    init_ladder(folder, _config())
    data = tomllib.loads((folder / "ladder.toml").read_text())
    data[section][key] = value
    (folder / "ladder.toml").write_text(tomli_w.dumps(data))
    with pytest.raises(ConfigError) as raised:
        run_ladder(folder, sets=1)
    assert str(raised.value) == f"{folder / 'ladder.toml'}: {says}"


def test_an_unknown_game_names_the_ladder_toml_it_came_from(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    init_ladder(folder, _config())
    text = (folder / "ladder.toml").read_text().replace('game = "hearts"', 'game = "chess"')
    (folder / "ladder.toml").write_text(text)
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(folder / 'ladder.toml'))}: game 'chess'"):
        LadderConfig.load(folder)


def test_a_ladder_bot_reads_what_bot_ro_shows_it_inside_bubblewrap(tmp_path: Path) -> None:
    try:
        check_bwrap()
    except SandboxError as error:
        pytest.skip(f"bubblewrap is not usable here: {error}")
    data = tmp_path / "data" / "weights.txt"
    data.parent.mkdir()
    data.write_text("weights\n")
    bot = tmp_path / "bot" / "reader.py"
    bot.parent.mkdir()
    # Reads its data file (named by an environment variable), then plays as the random sample bot.
    bot.write_text(
        "import os, runpy, sys\n"
        "open(os.environ['WEIGHTS']).read()\n"
        "sys.argv = sys.argv[1:]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    command = [sys.executable, str(bot), str(SAMPLES / "random_bot.py")]
    for name, bot_ro, added in (("blind", [], False), ("sighted", [str(data.parent)], True)):
        isolation = _isolation(sandbox="bwrap", bot_ro=tuple(map(Path, bot_ro)), bot_env=(("WEIGHTS", str(data)),))
        folder = tmp_path / name
        init_ladder(folder, dataclasses.replace(_config(), isolation=isolation, bots=BotSettings()))
        if added:
            add_bot(folder, "reader", command, cwd=tmp_path)
        else:
            with pytest.raises(LadderError, match="failed its validation game") as raised:
                add_bot(folder, "reader", command, cwd=tmp_path)
            assert any("weights.txt" in line for line in raised.value.stderr)  # FileNotFoundError in the sandbox
    folder = tmp_path / "sighted"
    for name in ("r", "r2", "r3"):
        add_bot(folder, name, [sys.executable, str(SAMPLES / "random_bot.py")], cwd=tmp_path)
    assert run_ladder(folder, sets=1).sets_played == 1
    with Store.open(folder / "ladder.sqlite") as store:
        assert not any(any(game.forfeited) for game in store.results()[0].games)


def test_a_ladder_plays_its_sets_in_bubblewrap_by_default(tmp_path: Path) -> None:
    try:
        check_bwrap()
    except SandboxError as error:
        pytest.skip(f"bubblewrap is not usable here: {error}")
    assert LadderConfig(game="hearts", players=4).isolation.sandbox == "bwrap"
    config = dataclasses.replace(_config(), isolation=_isolation(sandbox="bwrap"))
    folder = _ladder(tmp_path, config=config)
    report = run_ladder(folder, sets=1)
    assert report.sets_played == 1 and not report.deactivated
    _check_every_set_counted_once(folder)


def test_a_run_refuses_a_secret_key_others_can_read(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    (folder / "secret.key").chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        run_ladder(folder, sets=1)


def test_a_site_that_cannot_be_written_does_not_fail_the_run(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "index.html").write_text("someone else's")
    config = LadderConfig.load(folder)
    (folder / "ladder.toml").write_text(dataclasses.replace(config, site_dir=str(taken)).to_toml())
    report = run_ladder(folder, sets=1)
    assert report.sets_played == 1 and len(report.warnings) == 1
    assert report.warnings[0].startswith("site not refreshed:") and "not a site written by" in report.warnings[0]
    with Store.open(folder / "ladder.sqlite") as store:
        assert store.last_run() is not None and store.last_run().status == "finished"  # type: ignore[union-attr]


def test_a_referee_that_keeps_failing_stops_the_run_instead_of_voiding_every_set(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)

    def always_failing(request: SetRequest, runner: GameExecutor) -> SetOutcome:
        raise RefereeFailure("no sandbox today")

    report = run_ladder(folder, sets=20, play=always_failing)
    assert report.sets_voided == 3 and report.sets_played == 0
    assert report.stop_reason == "the referee failed 3 sets in a row; the last: no sandbox today"
    with Store.open(folder / "ladder.sqlite") as store:
        assert store.count("voided") == 3 and store.count("claimed") == 0


def test_a_bot_crashing_mid_game_counts_as_a_failed_set(tmp_path: Path) -> None:
    config = dataclasses.replace(_config(), bots=BotSettings(deactivate_after=1, validation=False))
    bots = (("h", "heuristic_bot.py"), ("mid", str(HOSTILE / "crash_mid_game.py")), ("r", "random_bot.py"))
    folder = _ladder(tmp_path, *bots, ("r2", "random_bot.py"), config=config)
    report = run_ladder(folder, sets=1)
    assert report.sets_played == 1
    assert report.deactivated["mid@1"].startswith("1 set failed; the last: forfeited game 1 (")
    _check_every_set_counted_once(folder)


def test_sigterm_stops_a_run_cleanly_and_the_next_run_goes_on(tmp_path: Path) -> None:
    folder = _ladder(tmp_path)
    process = _ladder_run(folder, 5)
    for line in _lines(process):
        if line.startswith("set 2 claimed"):
            process.send_signal(signal.SIGTERM)
            break
    assert process.wait() == 130
    assert process.stdout is not None and process.stderr is not None
    assert "run interrupted (stopped by SIGTERM)" in process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    with Store.open(folder / "ladder.sqlite") as store:
        last = store.last_run()
        assert last is not None and last.status == "failed" and last.message == "interrupted: stopped by SIGTERM"
        assert store.count("claimed") == 0  # the interrupted set was given back at once
    assert run_ladder(folder, sets=1).sets_played == 1
    _check_every_set_counted_once(folder)


def test_a_run_whose_output_is_closed_plays_on(tmp_path: Path) -> None:
    """`kierki ladder run DIR | head -1`, or a log reader that died: printing is for people, the sets come first."""
    folder = _ladder(tmp_path)
    process = _ladder_run(folder, 3)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().partition(" ")[2].startswith("set 1 claimed")
    process.stdout.close()  # the next line printed meets a broken pipe
    assert process.wait() == 0
    assert process.stderr.read() == ""
    process.stderr.close()
    with Store.open(folder / "ladder.sqlite") as store:
        last = store.last_run()
        assert last is not None and last.status == "finished" and last.sets_played == 3
    _check_every_set_counted_once(folder)


def test_only_the_newest_sets_get_replay_pages_and_the_page_cache_follows_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _ladder(tmp_path)
    run_ladder(folder, sets=2)
    monkeypatch.setattr("competition.ladder.site.PAGE_SETS", 1)
    with Store.open(folder / "ladder.sqlite") as store:
        newest = store.results()[-1]
        write_site(folder, store, tmp_path / "www")
    assert sorted(p.name for p in (folder / "replay-pages-2").iterdir()) == [f"{newest.set_id:06d}"]
    page = _parse(tmp_path / "www" / "bots" / "bot-1.html")
    pages = [link for link in page.links if link.endswith(".html") and "replays/" in link]
    logs = [link for link in page.links if ".replay.jsonl" in link]
    assert len(pages) == len(newest.games) and len(logs) == sum(len(r.games) for r in store_results(folder))


def store_results(folder: Path) -> list[SetRecord]:
    with Store.open(folder / "ladder.sqlite") as store:
        return store.results()


def test_sample_bots_are_added_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    init_ladder(folder, _config())
    for name, sample in (
        ("h", "sample:heuristic"),
        ("r", "sample:random"),
        ("r2", "sample:random"),
        ("r3", "sample:random"),
    ):
        bot = add_bot(folder, name, [sample], cwd=tmp_path).bot
        assert bot.command == sample and bot.program is None
    with pytest.raises(LadderError, match="no sample bot 'nosuch'"):
        add_bot(folder, "x", ["sample:nosuch"], cwd=tmp_path)
    assert run_ladder(folder, sets=1).sets_played == 1


def test_a_set_plays_one_seed_with_the_seats_rotated_so_every_bot_holds_every_hand(tmp_path: Path) -> None:
    bots = (("a", "heuristic_bot.py"), ("b", "random_bot.py"), ("c", "heuristic_bot.py"), ("d", "random_bot.py"))
    folder = _ladder(tmp_path, *bots)
    assert run_ladder(folder, sets=1).sets_played == 1
    with Store.open(folder / "ladder.sqlite") as store:
        (record,) = store.results()
    assert len(record.games) == 4 and len(set(record.bots)) == 4
    table = record.bots
    rotations = {table[k:] + table[:k] for k in range(4)}
    assert {game.seats for game in record.games} == rotations  # every bot in every seat once
    first_hands = []
    for game in record.games:
        assert game.replay is not None
        replay = load(folder / game.replay)
        assert replay.header.seed == record.seed == set_seed(read_key(folder), record.set_id)
        deal = replay.deal_entries()[0].record
        assert isinstance(deal, DealRecord)
        first_hands.append(deal.hands)
    assert all(hands == first_hands[0] for hands in first_hands)  # the same cards at each seat, bots rotated


def test_a_run_with_nothing_to_play_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    init_ladder(folder, _config())
    assert run_ladder(folder).stop_reason == (
        "nothing to play: 0 active bots for 4 seats, and a bot never takes two seats at a table: add 4 more"
    )
    for name in ("a", "b", "c", "d"):
        add_bot(folder, name, ["sample:random"], cwd=tmp_path, owner="ann" if name < "d" else "bob")
    report = run_ladder(folder)
    assert report.sets_played == 0 and report.stop_reason == (
        "nothing to play: the 4 active bots have 2 owners for 4 seats, and a bot never plays its owner's other "
        "bots: add bots of other owners"
    )


def test_a_ladder_plays_on_the_executor_its_config_names(tmp_path: Path) -> None:
    """ladder.toml's [run] executor = "dask-local": the sets run on a Dask LocalCluster and are recorded here."""
    pytest.importorskip("distributed")
    folder = _ladder(tmp_path, config=_config(executor="dask-local", workers=2))
    report = run_ladder(folder, sets=1)
    assert report.status == "finished" and report.sets_played == 1
    ids = _check_every_set_counted_once(folder)
    assert len(ids) == 1


def test_a_ladder_config_with_a_bad_executor_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match='executor = "dask" needs scheduler = '):
        _config(executor="dask").check()
    with pytest.raises(ConfigError, match="executor must be one of"):
        _config(executor="cloud").check()


# --- one meaning per option (tests/test_shared_options.py declares them alike for every command) ------------------


def test_limit_cpu_0_is_no_limit_for_the_ladder_as_for_a_match(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["--game", "hearts", "--sandbox", "none"]
    for name, given, seconds in (
        ("off", ["--limit-cpu", "0"], None),
        ("default", [], 600),
        ("set", ["--limit-cpu", "7"], 7),
    ):
        result = runner.invoke(cli, ["ladder", "init", str(tmp_path / name), *base, *given])
        assert result.exit_code == 0, result.output
        config = LadderConfig.load(tmp_path / name)
        assert config.format == 2 and config.isolation.limits.cpu_s == (seconds or 0)
        assert config.isolation.resource_limits(games=1).cpu_seconds == seconds
        assert f"cpu_s = {seconds or 0}\n" in (tmp_path / name / "ladder.toml").read_text()
    # The same refusal as a match's: the disk limit and read-only paths exist only inside the sandbox.
    refused = runner.invoke(cli, ["ladder", "init", str(tmp_path / "disk"), *base, "--limit-disk", "5"])
    assert refused.exit_code == 2 and "--limit-disk and --bot-ro apply inside a sandbox" in refused.output


def test_a_hand_edited_disk_limit_without_the_sandbox_is_said_by_every_run_and_kept_in_its_record(
    tmp_path: Path,
) -> None:
    """``ladder init`` refuses disk_mb > 0 with sandbox = "none" (the test above). A ladder.toml edited to hold
    that pair still runs, since refusing it would stop the ladder's cron runs, but the limit cannot be applied: every
    run says so once, in one line on stderr (not among its lines on stdout) and in its row of the runs table, which
    ``ladder status`` shows; ``ladder add`` says it too. A ladder without the pair says nothing."""
    folder = _ladder(tmp_path)
    runner = CliRunner()
    quiet = runner.invoke(cli, ["ladder", "run", str(folder), "--sets", "1"])
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.output
    path = folder / "ladder.toml"
    data = tomllib.loads(path.read_text())
    data["isolation"]["disk_mb"] = 50
    path.write_text(tomli_w.dumps(data))
    said = (
        f"warning: {path}: isolation.disk_mb = 50 is not applied: the disk limit is a tmpfs inside the sandbox, and "
        'sandbox = "none"; set sandbox = "bwrap" to apply it, or disk_mb = 0'
    )
    for _ in range(2):
        result = runner.invoke(cli, ["ladder", "run", str(folder), "--sets", "1"])
        assert result.exit_code == 0, result.output
        assert result.stderr.partition(" ")[2] == said + "\n"  # after the time, as every line of a run
        assert "warning" not in result.stdout and "1 set claimed: 1 played" in result.stdout
        with Store.open(folder / "ladder.sqlite") as store:
            last = store.last_run()
        assert last is not None and last.message == f"the limit of 1 set; {said}"
        status = runner.invoke(cli, ["ladder", "status", str(folder)])
        assert f"finished (the limit of 1 set; {said})" in status.output
    added = runner.invoke(cli, ["ladder", "add", str(folder), "r2", "--", "sample:random"])
    assert added.exit_code == 0 and added.stderr == said + "\n", added.output
    data["isolation"]["sandbox"] = "bwrap"  # the first of the two mends the warning names (it passes the check)
    assert unapplied_warnings(LadderConfig.from_dict(data).isolation, "ladder.toml") == []
    data["isolation"].update(sandbox="none", disk_mb=0)
    path.write_text(tomli_w.dumps(data))
    assert runner.invoke(cli, ["ladder", "run", str(folder), "--sets", "1"]).stderr == ""


def test_a_ladder_toml_of_format_1_keeps_its_cpu_limit(tmp_path: Path) -> None:
    """A ladder.toml written by an older ``ladder init`` (no ``format`` key) said ``cpu_s = 0`` for the referee's
    600 CPU seconds per game: it loads with that limit, not with none, and is not rewritten."""
    folder = tmp_path / "old"
    init_ladder(folder, _config())
    path = folder / "ladder.toml"
    data = tomllib.loads(path.read_text())
    assert data.pop("format") == 2
    data["isolation"]["cpu_s"] = 0
    old = tomli_w.dumps(data)
    path.write_text(old)
    config = LadderConfig.load(folder)
    assert config.format == 1 and config.isolation.resource_limits(games=1).cpu_seconds == 600
    assert path.read_text() == old
    data["isolation"]["cpu_s"] = 9  # any other number meant what it says
    path.write_text(tomli_w.dumps(data))
    assert LadderConfig.load(folder).isolation.resource_limits(games=1).cpu_seconds == 9
    del data["isolation"]["cpu_s"]  # left out: the default, in either format
    path.write_text(tomli_w.dumps(data))
    assert LadderConfig.load(folder).isolation.limits.cpu_s == 600
    for version, seconds in ((2, None), (1, 600)):
        path.write_text(tomli_w.dumps({"format": version, **data, "isolation": {**data["isolation"], "cpu_s": 0}}))
        assert LadderConfig.load(folder).isolation.resource_limits(games=1).cpu_seconds == seconds
    path.write_text(tomli_w.dumps({"format": 3, **data}))
    with pytest.raises(ConfigError, match=r"format = 3: this kierki reads ladder.toml formats 1 to 2"):
        LadderConfig.load(folder)


# --- the short validation game ----------------------------------------------------------------------------------

MISBEHAVE = Path(__file__).parent / "bots" / "misbehave.py"


def _validating(tmp_path: Path, name: str, deals: int = 2) -> Path:
    """A ladder of hearts to 100 (more than three deals) whose ``add`` plays the validation game, of ``deals``."""
    config = dataclasses.replace(
        _config(),
        options={},
        time=TimeControl(move_ms=300),
        bots=BotSettings(validation_deals=deals),
    )
    folder = tmp_path / name
    init_ladder(folder, config)
    return folder


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["/nonexistent/bot"], "/nonexistent/bot"),  # does not start
        ([sys.executable, str(MISBEHAVE), "bad_version"], "speaks protocol 3"),  # a bad hello
        ([sys.executable, str(MISBEHAVE), "illegal", "3"], "illegal"),
        ([sys.executable, str(MISBEHAVE), "timeout", "3"], "timeout"),
        ([sys.executable, str(MISBEHAVE), "crash", "5"], "it forfeited the game (crash"),  # deal 1
        ([sys.executable, str(MISBEHAVE), "crash", "20"], "it forfeited the game (crash"),  # deal 2
    ],
)
def test_the_short_validation_game_still_refuses_a_bot_that_fails(tmp_path: Path, argv: list[str], why: str) -> None:
    folder = _validating(tmp_path, "ladder")
    with pytest.raises(LadderError, match="bad was not added: it failed its validation game: ") as raised:
        add_bot(folder, "bad", argv, cwd=tmp_path)
    assert why in str(raised.value)
    with Store.open(folder / "ladder.sqlite") as store:
        assert store.bots() == []


def test_a_bot_that_fails_validation_mid_game_is_told_why_with_its_stderr(tmp_path: Path) -> None:
    """The validation game's folder, and the bot's stderr log with it, is removed: the reason the referee gave
    (the exit status) and the last lines the bot wrote are what its author gets."""
    bot = tmp_path / "bots" / "talker.py"
    bot.parent.mkdir()
    bot.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg['type'] == 'hello':\n"
        "        reply = {'type': 'hello', 'id': msg['id'], 'name': 'talker', 'version': '1', 'protocol': 1}\n"
        "        print(json.dumps(reply), flush=True)\n"
        "    elif msg['type'] == 'pass':\n"
        "        print(json.dumps({'type': 'pass', 'id': msg['id'], 'cards': msg['hand'][:3]}), flush=True)\n"
        "    elif msg['type'] == 'play':\n"
        "        print('noise', file=sys.stderr)\n"
        "        print('lost my way at the first trick', file=sys.stderr, flush=True)\n"
        "        sys.exit(4)\n"
    )
    folder = _validating(tmp_path, "ladder")
    with pytest.raises(LadderError, match="bad was not added: it failed its validation game: ") as raised:
        add_bot(folder, "bad", [sys.executable, str(bot)], cwd=tmp_path)
    assert "exit status 4" in str(raised.value)
    assert raised.value.stderr[-2:] == ("noise", "lost my way at the first trick")
    assert not (folder / "work").exists() or not any((folder / "work").iterdir())


def test_the_validation_game_stops_after_its_deals(tmp_path: Path) -> None:
    """Issue 12's "short validation game": two deals by default (a crash in the third goes unseen by it, and is the
    run's to find); ``bots.validation_deals = 0`` plays the whole game, as before."""
    late_crash = [sys.executable, str(MISBEHAVE), "crash", "35"]  # its 35th decision: in deal 3 of hearts
    added = add_bot(_validating(tmp_path, "short"), "late", late_crash, cwd=tmp_path).bot
    assert added.label == "late@1"
    for deals in (3, 0):
        with pytest.raises(LadderError, match=r"it forfeited the game \(crash"):
            add_bot(_validating(tmp_path, f"deals{deals}", deals), "late", late_crash, cwd=tmp_path)
    assert "validation_deals = 2" in (tmp_path / "short" / "ladder.toml").read_text()
    with pytest.raises(SettingError, match=r"^validation_deals = -1: must be at least 0$"):
        BotSettings(validation_deals=-1)  # the bound its type declares (in ladder.toml's words: test_ladder_config)
