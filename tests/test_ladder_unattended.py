"""A ladder left alone for months: its defaults, its plot, its logs and exports, its disk, what cron mails."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

import sample_bots
from competition.ladder.config import LADDER_ISOLATION, BotSettings, LadderConfig, RunSettings
from competition.ladder.ladder import add_bot, init_ladder
from competition.ladder.run import run_ladder
from competition.ladder.site import rating_figure
from competition.ladder.store import Store
from kierki_cli.main import cli
from referee import cpu

SAMPLES = Path(sample_bots.__file__).parent
HOSTILE = Path(__file__).parent / "hostile"


def _config(**run: object) -> LadderConfig:
    return LadderConfig(
        game="hearts",
        players=4,
        options={"target": "10"},  # a short game keeps the suite fast
        isolation=msgspec.structs.replace(LADDER_ISOLATION, sandbox="none"),
        run=RunSettings(**{"jobs": 2, "pin": False, "plan_ahead": 2, **run}),  # type: ignore[arg-type]
        bots=BotSettings(deactivate_after=5, validation=False),
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder of four bots (one writes to stderr on every request) after two sets; copy it before changing it."""
    tmp = tmp_path_factory.mktemp("played")
    folder = tmp / "ladder"
    init_ladder(folder, _config())
    (tmp / "bots").mkdir()
    noisy = tmp / "bots" / "noisy.py"
    noisy.write_text(
        "import runpy, sys\n"
        "class Noisy:\n"
        "    def write(self, text):\n"
        "        sys.__stderr__.write('noisy \\x1b[31mred\\n'); sys.__stderr__.flush()\n"
        "        return sys.__stdout__.write(text)\n"
        "    def flush(self): sys.__stdout__.flush()\n"
        "sys.stdout = Noisy()\n"
        f"runpy.run_path({str(SAMPLES / 'random_bot.py')!r}, run_name='__main__')\n"
    )
    bots = {"h": SAMPLES / "heuristic_bot.py", "r": SAMPLES / "random_bot.py", "noisy": noisy}
    for number, (name, program) in enumerate(bots.items()):
        add_bot(folder, name, [sys.executable, str(program)], cwd=tmp, owner=f"owner{number}")
    add_bot(folder, "h2", [sys.executable, str(SAMPLES / "heuristic_bot.py")], cwd=tmp, owner="owner3")
    report = run_ladder(folder, sets=2)
    assert report.sets_played == 2
    return folder


def _copy(played: Path, tmp_path: Path) -> Path:
    shutil.copytree(played, tmp_path / "ladder", symlinks=True)
    return tmp_path / "ladder"


def test_init_sets_jobs_from_the_cpus_this_process_may_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})
    result = CliRunner().invoke(cli, ["ladder", "init", str(tmp_path / "l"), "--game", "hearts", "--sandbox", "none"])
    assert result.exit_code == 0, result.output
    assert tomllib.loads((tmp_path / "l" / "ladder.toml").read_text())["run"]["jobs"] == 1


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"cpu.max": "150000 100000\n"}, 2),  # v2: one and a half CPUs, rounded up
        ({"cpu.max": "max 100000\n"}, 4),
    ],
)
def test_a_cgroup_v2_cpu_quota_lowers_the_allowance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], expected: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    (tmp_path / "proc").write_text("0::/box\n")
    (tmp_path / "box").mkdir()
    for name, text in files.items():
        (tmp_path / "box" / name).write_text(text)
    assert cpu.cpu_allowance(tmp_path, tmp_path / "proc") == expected


def test_a_cgroup_v1_cpu_quota_lowers_the_allowance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    (tmp_path / "proc").write_text("4:memory:/x\n1:cpu,cpuacct:/box\n0::/\n")
    box = tmp_path / "cpu,cpuacct" / "box"
    box.mkdir(parents=True)
    (box / "cpu.cfs_quota_us").write_text("100000\n")
    (box / "cpu.cfs_period_us").write_text("100000\n")
    assert cpu.cpu_allowance(tmp_path, tmp_path / "proc") == 1


def test_the_rating_plot_of_three_sets_has_whole_number_ticks() -> None:
    figure = rating_figure([(1, 25.0, 8.0), (4, 27.0, 7.5), (9, 26.0, 7.0)])
    ticks = [tick for tick in figure.axes[0].get_xticks() if 1 <= tick <= 3]
    assert ticks and all(float(tick).is_integer() for tick in ticks)


def test_results_has_one_row_per_seat_per_game_as_csv_json_and_a_table(played: Path) -> None:
    runner = CliRunner()
    as_json = runner.invoke(cli, ["ladder", "results", str(played), "--json"])
    assert as_json.exit_code == 0, as_json.output
    rows = json.loads(as_json.output)
    with Store.open(played / "ladder.sqlite") as store:
        records = store.results()
    assert len(rows) == sum(len(game.seats) for record in records for game in record.games) == 2 * 4 * 4
    first = records[0].games[1]
    row = next(r for r in rows if r["set"] == records[0].set_id and r["game"] == 2 and r["seat"] == 1)
    assert row["bot"] == first.seats[1] and row["points"] == first.totals[1] and row["place"] == first.places[1]
    assert row["owner"].startswith("owner") and row["version"] == 1 and (played / row["replay"]).is_file()
    assert row["time"][:4].isdigit() and row["time"][10] == "T"
    as_csv = runner.invoke(cli, ["ladder", "results", str(played), "--csv", "--bot", "noisy"])
    parsed = list(csv.DictReader(io.StringIO(as_csv.output)))
    assert parsed and {r["bot"] for r in parsed} == {"noisy@1"}
    assert len(parsed) == sum(1 for r in rows if r["bot"] == "noisy@1")
    table = runner.invoke(cli, ["ladder", "results", str(played), "--bot", "h@1"])
    assert table.exit_code == 0 and len(table.output.splitlines()) == 1 + sum(1 for r in rows if r["bot"] == "h@1")
    future = runner.invoke(cli, ["ladder", "results", str(played), "--json", "--since", "2999-01-01"])
    assert json.loads(future.output) == []
    recent = runner.invoke(cli, ["ladder", "results", str(played), "--json", "--since", "1h"])
    assert len(json.loads(recent.output)) == 32
    wrong = runner.invoke(cli, ["ladder", "results", str(played), "--since", "yesterday"])
    assert wrong.exit_code == 2 and "ISO-8601" in wrong.output
