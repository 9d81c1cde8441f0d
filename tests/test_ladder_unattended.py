"""A ladder left alone for months: its defaults, its plot, its logs and exports, its disk, what cron mails."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from click.testing import CliRunner
from competition_helpers import family_env, family_left, short_ladder, tmpfs

import sample_bots
from competition.ladder.config import BotSettings, LadderConfig, RetentionSettings, RunSettings
from competition.ladder.ladder import add_bot, init_ladder
from competition.ladder.retention import prune_old_sets
from competition.ladder.run import DEAD_RUN, run_ladder
from competition.ladder.site import bot_page, rating_figure, write_site
from competition.ladder.store import Store
from kierki_cli.main import cli
from referee import cpu

SAMPLES = Path(sample_bots.__file__).parent
HOSTILE = Path(__file__).parent / "hostile"


def _config(**run: object) -> LadderConfig:
    return short_ladder(
        RunSettings(**{"jobs": 2, "pin": False, "plan_ahead": 2, **run}),  # type: ignore[arg-type]
        BotSettings(deactivate_after=5, validation=False),
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder of four bots (one writes to stderr on every request, one crashes in every game) after two sets;
    copy it before changing it."""
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
    crashy = [sys.executable, str(HOSTILE / "crash_mid_game.py"), "5"]  # a traceback on stderr, mid-game
    add_bot(folder, "crashy", crashy, cwd=tmp, owner="owner3")
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


CLI = "import sys; from kierki_cli.main import cli; sys.exit(cli())"
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d ")


def _kierki(*args: str, **popen: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True, **popen)


def _edit(folder: Path, section: str, **values: object) -> None:
    path = folder / "ladder.toml"
    data = tomllib.loads(path.read_text())
    data.setdefault(section, {}).update(values)
    path.write_text(tomli_w.dumps(data))


def test_every_line_a_run_prints_starts_with_an_iso_8601_time(played: Path, tmp_path: Path) -> None:
    folder = _copy(played, tmp_path)
    _edit(folder, "isolation", disk_mb=5)  # a setting it cannot apply without the sandbox: a warning on stderr
    done = _kierki("ladder", "run", str(folder), "--sets", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines() + done.stderr.splitlines()
    assert len(lines) >= 4 and any("warning: " in line for line in done.stderr.splitlines())
    assert all(STAMP.match(line) for line in lines), lines


def test_a_kill_9_leaves_no_resource_tracker_warning_and_no_process(played: Path, tmp_path: Path) -> None:
    folder = _copy(played, tmp_path)
    tag, env = family_env()
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, "-c", CLI, "ladder", "run", str(folder), "--sets", "2"],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=env,
            start_new_session=True,
        )
        assert process.stdout is not None
        for line in process.stdout:
            if " set " in line and "claimed" in line:
                process.kill()
                break
        process.wait()
        process.stdout.close()
    assert family_left(tag) == []  # the pool's workers, its forkserver and the resource tracker ended too
    assert stderr.read_text() == ""  # the tracker unlinked the pool's semaphores and said nothing
    done = _kierki("ladder", "run", str(folder), "--sets", "1")
    assert done.returncode == 0 and " run 1 marked dead: its process is gone" not in done.stdout
    with Store.open(folder / "ladder.sqlite") as store:
        runs = store.runs()
    assert [r.status for r in runs] == ["finished", "failed", "finished"] and runs[1].message == DEAD_RUN


def test_a_run_marks_the_runs_whose_process_is_gone_dead(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    init_ladder(folder, _config())
    with Store.open(folder / "ladder.sqlite") as store:
        store.start_run(2**22 + 1, "elsewhere")
    lines: list[str] = []
    run_ladder(folder, sets=1, progress=lines.append)
    assert lines[0] == f"run 1 marked dead: its process is gone ({DEAD_RUN})"
    with Store.open(folder / "ladder.sqlite") as store:
        assert (store.runs()[0].status, store.runs()[0].message) == ("failed", DEAD_RUN)
    status = CliRunner().invoke(cli, ["ladder", "status", str(folder)])
    assert "stale" not in status.output and re.search(
        r"^disk: [\d.]+ MB used by .*, [\d.]+ MB free$", status.output, re.M
    )


def test_a_run_below_min_free_mb_refuses_in_one_line(played: Path, tmp_path: Path) -> None:
    folder = _copy(played, tmp_path)
    _edit(folder, "retention", min_free_mb=10**9)
    done = _kierki("ladder", "run", str(folder), "--sets", "1")
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert STAMP.match(line) and "Error: no space left on device under" not in line
    assert f"MB free under {folder}, below retention.min_free_mb = {10**9}" in line


def test_retention_prunes_old_sets_logs_and_keeps_their_results(played: Path, tmp_path: Path) -> None:
    folder = _copy(played, tmp_path)
    with Store.open(folder / "ladder.sqlite") as store:
        before = (store.results(), store.ratings())
        first, second = (record.set_id for record in before[0])
        assert prune_old_sets(folder, store, RetentionSettings(keep_sets=1)) == 1
        assert not (folder / "sets" / f"{first:06d}").exists() and (folder / "sets" / f"{second:06d}").is_dir()
        assert (store.results(), store.ratings()) == before
        assert prune_old_sets(folder, store, RetentionSettings(keep_sets=1)) == 0  # pruned once
        assert prune_old_sets(folder, store, RetentionSettings(keep_days=1)) == 0  # both played just now
        store.clock = lambda: time.time() + 2 * 86400
        assert prune_old_sets(folder, store, RetentionSettings(keep_days=1)) == 1
        write_site(folder, store, tmp_path / "www")  # the site's numbers are kept, its links to the logs go
    rows = json.loads(CliRunner().invoke(cli, ["ladder", "results", str(folder), "--json"]).output)
    assert len(rows) == 32 and {row["replay"] for row in rows} == {""}
    assert "2 sets played" in (tmp_path / "www" / "index.html").read_text()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MB tmpfs of our own, to fill."""
    with tmpfs(tmp_path / "disk", "size=16m") as where:
        yield where


def _fill(disk: Path, leave_kb: int) -> None:
    """Fill the disk but ``leave_kb``."""
    free_kb = shutil.disk_usage(disk).free // 1024
    with (disk / f"filler{free_kb}").open("wb") as file, contextlib.suppress(OSError):
        for _ in range(max(0, free_kb - leave_kb)):
            file.write(bytes(1024))


def test_a_full_disk_ends_a_run_in_one_line_records_nothing_wrong_and_reads_still_work(small_disk: Path) -> None:
    folder = small_disk / "ladder"
    init_ladder(folder, _config())
    _edit(folder, "retention", min_free_mb=0)
    for name in ("a", "b", "c", "d"):
        add_bot(folder, name, ["sample:random"], cwd=small_disk, owner=name)
    assert _kierki("ladder", "run", str(folder), "--sets", "1").returncode == 0
    _fill(small_disk, 40)  # a replay log cannot be written: the referee says so, with ~40 kB free
    done = _kierki("ladder", "run", str(folder), "--sets", "2")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert STAMP.match(line) and f"Error: no space left on device under {folder}: " in line
    with Store.open(folder / "ladder.sqlite") as store:
        assert (store.count("played"), store.count("claimed"), store.count("voided")) == (1, 0, 0)
        assert store.runs()[-1].status == "failed"
    _fill(small_disk, 0)  # now not a byte: every read still works
    for command in (["status"], ["standings"], ["results", "--csv"]):
        read = _kierki("ladder", *command, str(folder))
        assert read.returncode == 0 and "disk I/O error" not in read.stdout + read.stderr, (command, read.stderr)
    status = _kierki("ladder", "status", str(folder)).stdout
    assert "it stopped on a full disk: no space left on device under" in status and "(full: runs stop" in status
    again = _kierki("ladder", "run", str(folder), "--sets", "1")
    assert again.returncode == 1 and f"Error: no space left on device under {folder}" in again.stderr
    for filler in small_disk.glob("filler*"):
        filler.unlink()
    assert _kierki("ladder", "run", str(folder), "--sets", "1").returncode == 0
    with Store.open(folder / "ladder.sqlite") as store:
        assert (store.count("played"), store.count("claimed"), store.count("voided")) == (2, 0, 0)


def test_ladder_logs_prints_a_bots_stderr_logs_escaped_newest_first(played: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    crashy = runner.invoke(cli, ["ladder", "logs", str(played), "crashy", "--last", "8"])
    assert crashy.exit_code == 0, crashy.output
    headers = [line for line in crashy.output.splitlines() if line.startswith("== ")]
    assert len(headers) == 8 and all("crashy@1 (forfeited, crash x1): sets/" in line for line in headers)
    sets = [int(line.split()[2].rstrip(",")) for line in headers]
    assert sets == sorted(sets, reverse=True) and len(set(sets)) == 2
    assert crashy.output.count("RuntimeError: hostile bot: crashing at decision 5") == 8
    noisy = runner.invoke(cli, ["ladder", "logs", str(played), "noisy@1", "--last", "1", "--set", str(sets[-1])])
    assert noisy.output.count("== ") == 1 and f"== set {sets[-1]}, " in noisy.output
    assert "noisy \\x1b[31mred" in noisy.output and "\x1b" not in noisy.output
    quiet = runner.invoke(cli, ["ladder", "logs", str(played), "h", "--set", str(sets[0])])
    assert quiet.exit_code == 0 and quiet.output == f"h wrote nothing to stderr in set {sets[0]}\n"
    unknown = runner.invoke(cli, ["ladder", "logs", str(played), "nobody"])
    assert unknown.exit_code == 1 and "no bot named 'nobody'" in unknown.output
    folder = _copy(played, tmp_path)
    with Store.open(folder / "ladder.sqlite") as store:
        prune_old_sets(folder, store, RetentionSettings(keep_sets=1))
    pruned = runner.invoke(cli, ["ladder", "logs", str(folder), "crashy", "--set", str(sets[-1])])
    assert "its logs were pruned by the retention rules" in pruned.output


def test_a_bots_page_lists_its_recent_faults_with_their_stderr_logs(played: Path, tmp_path: Path) -> None:
    with Store.open(played / "ladder.sqlite") as store:
        bot = store.bot("crashy@1")
        assert bot is not None
        write_site(played, store, tmp_path / "www")
    page = (tmp_path / "www" / "bots" / bot_page(bot)).read_text()
    links = re.findall(r'<a class="stderr-log" href="\.\./(logs/[^"]+)">log</a>', page)
    assert len(links) == 8 and page.count('<td class="name">forfeited, crash x1</td>') == 8
    log = (tmp_path / "www" / links[0]).read_text()
    assert "RuntimeError: hostile bot: crashing at decision 5" in log


def test_a_cycle_in_an_exception_chain_is_walked_once(tmp_path: Path) -> None:
    """A Dask future re-raises the one exception it holds at every result: raised again while the ladder handles
    it, it can make its own chain a cycle, and the full-disk check walked that chain for ever (a CI run hung)."""
    from competition.ladder.disk import is_disk_full

    first, second = RuntimeError("the game failed"), RuntimeError("and again")
    first.__context__, second.__context__ = second, first
    assert is_disk_full(first, tmp_path) is False  # tmp_path has room: neither is a full disk
    full = OSError(28, "No space left on device")
    second.__cause__ = full
    assert is_disk_full(first, tmp_path) is True
