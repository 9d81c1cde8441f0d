"""Tournaments with real bot processes: duplicate deals, parallel = serial, resume after kill -9, failing bots."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from competition_helpers import family_env, family_left, output_once_stopped, tournament_after_its_first_set, untimed

from competition.plan import Entrant
from competition.results_file import read_results
from competition.runner import Runner
from competition.tournament import Tournament, run_tournament
from competition.tournament_config import StopRule, TournamentConfig, TournamentError
from kierki_cli.main import cli
from kierki_cli.replay_story import header_lines
from kierki_cli.tournament_cmd import format_standings
from referee.replay.html import page_data
from referee.replay.reader import load
from referee.replay.records import DealRecord
from referee.replay.timeline import build_timeline
from referee.rules import Ruleset

HOSTILE = Path(__file__).parent / "hostile"
SHORT = Ruleset.create("hearts", None, {"target": "10"})
SAMPLES = (Entrant("h", "sample:heuristic"), Entrant("r", "sample:random"))


def _config(*entrants: Entrant, seed: str = "11", **kwargs: object) -> TournamentConfig:
    return TournamentConfig.of(entrants=entrants or SAMPLES, ruleset=SHORT, seed=seed, **kwargs)  # type: ignore[arg-type]


def test_every_game_of_a_set_deals_the_same_cards_to_the_same_seat(tmp_path: Path) -> None:
    result = run_tournament(_config(), tmp_path, StopRule(sets=2), jobs=2)
    assert result.status == "complete" and len(result.records) == 2
    assert not (tmp_path / "work").exists()  # the bots' private directories went with their games
    for record in result.records:
        assert len(record.games) >= 2
        deals = []
        seated = []
        for game in record.games:
            assert game.replay is not None
            replay = load(tmp_path / game.replay)
            assert replay.header.seed == record.seed
            # Each seat carries the organiser's name (NAME=), the bot's own beside it.
            assert [b.label for b in replay.header.bots] == list(game.seats)
            assert [replay.bot_name(s) for s in range(len(game.seats))] == list(game.seats)
            assert replay.calls_itself(0) in ("heuristic_bot 1.0", "random_bot 1.0")
            timeline = build_timeline(replay)
            data = page_data(timeline, file=game.replay)
            assert data["names"] == list(game.seats) and data["file"] == game.replay
            assert data["calls"] == [replay.calls_itself(s) for s in range(len(game.seats))]
            assert f"seat 0: {game.seats[0]} (calls itself" in str(header_lines(timeline))
            deals.append(
                [(e.record.dealer, e.record.hands) for e in replay.entries if isinstance(e.record, DealRecord)]
            )
            seated.append(game.seats)
        first = min(len(d) for d in deals)
        assert first >= 1
        assert all(d[:first] == deals[0][:first] for d in deals)  # games may last a different number of deals
        assert len(set(seated)) == len(seated)  # each game a different seating


def test_parallel_results_equal_serial_ones(tmp_path: Path) -> None:
    serial = run_tournament(_config(seed="5"), tmp_path / "serial", StopRule(sets=3), jobs=1)
    parallel = run_tournament(_config(seed="5"), tmp_path / "parallel", StopRule(sets=3), jobs=2, pin=False)
    assert untimed(serial.records) == untimed(parallel.records)


def test_a_bot_that_cannot_start_never_stops_the_tournament_and_is_dropped(tmp_path: Path) -> None:
    crash = Entrant("crash", f"{sys.executable} {HOSTILE / 'crash_at_start.py'}")
    result = run_tournament(_config(*SAMPLES, crash, drop_after=2), tmp_path, StopRule(sets=3), jobs=1)
    # Three bots filled the four seats; with two left no table is like the others: it stops, saying so.
    assert result.status == "complete" and 1 <= len(result.records) < 3
    assert result.stopped_short == "stopped early: 2 bots left after dropping crash, too few to fill 3 seats"
    assert result.stopped_short in format_standings(result)
    assert "crash" in result.dropped and "2 start failures in a row" in result.dropped["crash"]
    log = re.search(r"\((\S+\.stderr\.log)\)$", result.dropped["crash"])  # where to look, as it will be
    assert log is not None and "hostile bot: crashing at start" in Path(log.group(1)).read_text()
    row = next(line for line in format_standings(result).splitlines() if " crash" in line)
    assert row.split()[:3] == ["–", "crash", "dropped"]  # never played a game of its own: listed, not ranked
    for record in result.records:
        for game in record.games:
            for name, failed in zip(game.seats, game.start_failed, strict=True):
                assert failed == (name == "crash")


def test_a_dropped_bot_is_seated_in_no_later_set() -> None:
    """The plan of the sets not yet begun is drawn again from the bots left (the same deal seeds)."""
    five = tuple(Entrant(name, "sample:random") for name in "abcde")
    tournament = Tournament(_config(*five, seed="3"), Path("unused"), StopRule(sets=10))
    pending = tournament._pending(finished={2})
    first = [next(pending) for _ in range(3)]
    assert [p.set_id for p in first] == [1, 3, 4]  # a finished set is skipped
    assert any("e" in p.table for p in first)
    tournament.dropped["e"] = "3 start failures in a row"
    later = [next(pending) for _ in range(6)]
    assert [p.set_id for p in later] == [5, 6, 7, 8, 9, 10]
    assert all("e" not in p.table and sorted(p.table) == ["a", "b", "c", "d"] for p in later)
    assert [p.seed for p in later] == [p.seed for p in tournament.plan.sets(10)[4:]]
    # A resumed run that knows of the drop from the start plans the same sets.
    again = Tournament(_config(*five, seed="3"), Path("unused"), StopRule(sets=10))
    again.dropped["e"] = "before the resume"
    assert list(itertools.islice(again._pending(finished={1, 2, 3, 4}), 6)) == later
    tournament.dropped["d"] = "dropped too"
    assert next(pending, None) is None
    assert tournament.stopped_short == "stopped early: 3 bots left after dropping d, e, too few to fill 4 seats"


def test_a_bot_crashing_mid_game_is_forfeited_and_the_run_goes_on(tmp_path: Path) -> None:
    crash = Entrant("mid", f"{sys.executable} {HOSTILE / 'crash_mid_game.py'}")
    result = run_tournament(_config(SAMPLES[0], crash), tmp_path, StopRule(sets=1), jobs=1)
    assert result.status == "complete" and not result.dropped
    game = result.records[0].games[0]
    assert any(f for name, f in zip(game.seats, game.forfeited, strict=True) if name == "mid")


def test_resume_refuses_another_configuration(tmp_path: Path) -> None:
    run_tournament(_config(seed="5"), tmp_path, StopRule(sets=1), jobs=1)
    with pytest.raises(TournamentError, match="already holds a tournament"):
        run_tournament(_config(seed="5"), tmp_path, StopRule(sets=1), jobs=1)
    with pytest.raises(TournamentError, match=r"configuration differs.*\(seed\)"):
        run_tournament(_config(seed="6"), tmp_path, StopRule(sets=1), jobs=1, resume=True)


def test_resume_after_kill_9_plays_every_set_exactly_once(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["tournament", "h=sample:heuristic", "r=sample:random", "--game", "hearts", "--option", "target=10"]
    args += ["--seed", "77", "--sets", "6", "--jobs", "2", "--out", str(out)]
    code = "import sys; from kierki_cli.main import cli; cli(sys.argv[1:])"
    tag, env = family_env()
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
    )
    assert process.stderr is not None
    for line in process.stderr:  # one progress line per finished set
        if line.startswith(b"set "):
            break
    process.kill()
    process.wait()
    process.stderr.close()
    _wait_for_family_to_exit(tag)
    assert not _processes_working_in(out)  # the workers stopped their bots before exiting
    before = [r.set_id for r in read_results(out / "results.jsonl")[0]]
    assert 1 <= len(before) < 6
    result = CliRunner().invoke(cli, [*args, "--resume"])
    assert result.exit_code == 0, result.output
    records = read_results(out / "results.jsonl")[0]
    assert sorted(r.set_id for r in records) == [1, 2, 3, 4, 5, 6]
    assert [r.set_id for r in records[: len(before)]] == before
    assert sorted(p.name for p in (out / "sets").iterdir()) == [f"{i:04d}" for i in range(1, 7)]


def _wait_for_family_to_exit(tag: str) -> None:
    """The killed coordinator's workers stop their games, stop their bots and exit."""
    left = family_left(tag)
    assert left == [], f"the killed tournament's workers were still running: {left}"


def test_each_worker_is_a_session_of_its_own() -> None:
    """So that the kernel's autogroup scheduler gives each worker a session's share of the CPU (runner.py)."""
    with Runner(1) as runner:
        pool = runner._executor  # a builtin function runs in the worker like a game would
        worker, session = pool.submit(os.getpid).result(), pool.submit(os.getsid, 0).result()
    assert session == worker != os.getsid(0)


def test_cli_round_robin_json_and_files(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "tournament",
            "h=sample:heuristic",
            "r=sample:random",
            "--game",
            "hearts",
            "--option",
            "target=10",
            "--sets",
            "2",
            "--seed",
            "3",
            "--jobs",
            "1",
            "--out",
            str(tmp_path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["status"] == "complete" and summary["standings"]["sets"] == 2
    assert {b["bot"] for b in summary["standings"]["bots"]} == {"h", "r"}
    stored = json.loads((tmp_path / "standings.json").read_text())
    assert stored == summary["standings"]
    assert (tmp_path / "standings.csv").read_text().count("\n") == 3  # a header and one row per bot
    assert (
        "<svg" in (tmp_path / "report.html").read_text() or "data:image/svg" in (tmp_path / "report.html").read_text()
    )
    assert json.loads((tmp_path / "tournament.json").read_text())["seed"] == "3"


def test_cli_usage_errors() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["tournament", "a=sample:heuristic", "a=sample:random"])
    assert result.exit_code == 2 and "given twice" in result.output
    result = runner.invoke(cli, ["tournament", "a=sample:heuristic", "b=sample:random", "--format", "gauntlet"])
    assert result.exit_code == 2 and "--candidate" in result.output


def test_sprt_prints_the_llr_and_stops(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "sprt",
            "--new",
            "sample:heuristic",
            "--old",
            "sample:random",
            "--field",
            "sample:random",
            "--game",
            "hearts",
            "--option",
            "target=10",
            "--max-pairs",
            "2",
            "--seed",
            "4",
            "--jobs",
            "2",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    progress = [line for line in result.stderr.splitlines() if line.startswith("pairs ")]
    assert [line.split("  ")[0] for line in progress] == ["pairs 1", "pairs 2"]
    # The versions by name, the better first (issue 32), within 80 columns.
    assert all(re.search(r"  (new ahead of old|old ahead of new) by \d+\.\d\d/game  last pair ", x) for x in progress)
    assert all(len(line) <= 80 and " LLR " in line for line in progress)
    assert "no decision after 2 pair(s)" in result.stdout
    records = read_results(tmp_path / "results.jsonl")[0]
    assert len(records) == 4
    assert not list((tmp_path / "sets").glob("*.partial"))


def test_ctrl_c_stops_cleanly_and_prints_the_standings_so_far(tmp_path: Path) -> None:
    args = ["tournament", "h=sample:heuristic", "r=sample:random", "--game", "hearts", "--option", "target=10"]
    args += ["--seed", "9", "--sets", "30", "--jobs", "2", "--out", str(tmp_path)]
    tag, env = family_env()
    process = tournament_after_its_first_set(args, env)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group gets it
    out, _ = output_once_stopped(process)
    assert process.returncode == 130
    assert b"stopped early: continue with --resume" in out and b"mean/game" in out
    _wait_for_family_to_exit(tag)
    done = read_results(tmp_path / "results.jsonl")[0]
    assert 1 <= len(done) < 30
    assert not _processes_working_in(tmp_path)  # every bot stopped


def _processes_working_in(folder: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_until_ci_stops_once_every_interval_is_narrow_enough(tmp_path: Path) -> None:
    result = run_tournament(_config(seed="2"), tmp_path, StopRule(until_ci=10_000.0, max_sets=20), jobs=1)
    assert len(result.records) == 2  # the first moment every bot has an interval (two sets)
    assert sorted(p.name for p in (tmp_path / "sets").iterdir()) == ["0001", "0002"]  # nothing half-played left


def test_cli_gauntlet_from_a_bots_file(tmp_path: Path) -> None:
    bots = tmp_path / "bots.toml"
    bots.write_text(
        '[[bot]]\nname = "cand"\ncommand = "sample:heuristic"\ntime = { move_ms = 900 }\n'
        '[[bot]]\nname = "f1"\ncommand = "sample:random"\n'
        '[[bot]]\nname = "f2"\ncommand = "sample:random"\nenv = { OMP_NUM_THREADS = "1" }\n'
    )
    out = tmp_path / "out"
    args = ["tournament", "--bots", str(bots), "--format", "gauntlet", "--candidate", "cand", "--game", "hearts"]
    args += ["--option", "target=10", "--sets", "2", "--seed", "8", "--jobs", "2", "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    records = read_results(out / "results.jsonl")[0]
    assert len(records) == 2 and all("cand" in r.bots for r in records)
    stored = json.loads((out / "tournament.json").read_text())
    assert stored["bots"][0]["time"] == {"move_ms": 900} and stored["bots"][2]["env"] == [["OMP_NUM_THREADS", "1"]]
    # --resume --out DIR alone continues from the stored configuration (nothing is left to play here) ...
    again = CliRunner().invoke(cli, ["tournament", "--resume", "--out", str(out), "--sets", "2", "--json"])
    assert again.exit_code == 0, again.output
    assert [b["bot"] for b in json.loads(again.stdout)["standings"]["bots"]] != []
    assert len(read_results(out / "results.jsonl")[0]) == 2
    # ... and an option of the configuration given again alone cannot be checked: it is refused, naming it.
    refused = CliRunner().invoke(cli, ["tournament", "--resume", "--out", str(out), "--drop-after", "5"])
    assert refused.exit_code == 2 and "leave out --drop-after" in refused.output


OWNED_BOTS = (
    '[[bot]]\nname = "a"\ncommand = "sample:heuristic"\nowner = "alice"\n'
    '[[bot]]\nname = "b"\ncommand = "sample:random"\nowner = "bob"\n'
)


def test_bots_of_several_owners_are_refused_unsandboxed_where_bubblewrap_cannot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kierki_cli.tournament_cmd as command
    from referee.bots.sandbox import SandboxError

    def no_bwrap() -> None:
        raise SandboxError("bubblewrap (bwrap) is not installed")

    monkeypatch.setattr(command, "check_bwrap", no_bwrap)
    bots = tmp_path / "bots.toml"
    bots.write_text(OWNED_BOTS)
    args = ["tournament", "--bots", str(bots), "--game", "hearts", "--option", "target=10", "--sets", "1"]
    args += ["--seed", "owners-test-seed-1234", "--jobs", "1"]
    refused = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "refused")])
    assert refused.exit_code == 2
    assert "2 owners (alice, bob), so they run under --sandbox bwrap by default" in refused.output
    assert "give --sandbox none" in refused.output and not (tmp_path / "refused").exists()
    told = CliRunner().invoke(cli, [*args, "--sandbox", "none", "--out", str(tmp_path / "told")])
    assert told.exit_code == 0, told.output  # told otherwise, it runs them unsandboxed
    stored = json.loads((tmp_path / "told" / "tournament.json").read_text())
    assert stored["sandbox"] == "none" and [b["owner"] for b in stored["bots"]] == ["alice", "bob"]
    bots.write_text(OWNED_BOTS.replace("bob", "alice"))  # one owner: the organiser's own bots, as before
    own = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "own")])
    assert own.exit_code == 0, own.output
    assert json.loads((tmp_path / "own" / "tournament.json").read_text())["sandbox"] == "none"


def test_bots_of_several_owners_run_under_bubblewrap_by_default(tmp_path: Path) -> None:
    from referee.bots.sandbox import SandboxError, check_bwrap

    try:
        check_bwrap()
    except SandboxError as error:
        pytest.skip(str(error))
    bots = tmp_path / "bots.toml"
    bots.write_text(OWNED_BOTS)
    args = ["tournament", "--bots", str(bots), "--game", "hearts", "--option", "target=10", "--sets", "1"]
    result = CliRunner().invoke(cli, [*args, "--seed", "owners-test-seed-1234", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "out" / "tournament.json").read_text())["sandbox"] == "bwrap"


def test_sprt_resumes_with_the_pairs_it_has(tmp_path: Path) -> None:
    args = ["sprt", "--new", "sample:heuristic", "--old", "sample:random", "--field", "sample:random"]
    args += ["--game", "hearts", "--option", "target=10", "--jobs", "2", "--out", str(tmp_path)]
    first = CliRunner().invoke(cli, [*args, "--max-pairs", "1"])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(cli, [*args, "--max-pairs", "2", "--resume"])
    assert again.exit_code == 0, again.output
    assert "pairs 1 " in again.stderr and "pairs 2 " in again.stderr  # the stored pair is fed again, then one more
    assert len(read_results(tmp_path / "results.jsonl")[0]) == 4


@pytest.mark.parametrize("version", ["new", "old"])
def test_sprt_of_a_version_that_cannot_start_decides_nothing(tmp_path: Path, version: str) -> None:
    """The fallback plays a dropped bot's seat (lowest legal card, which beats a random bot): pairs fed on with it
    could accept H1 for a program that never ran. The test stops with the reason instead, and names dropped
    field bots under the result."""
    crash = f"{sys.executable} {HOSTILE / 'crash_at_start.py'}"
    new, old = (crash, "sample:random") if version == "new" else ("sample:random", crash)
    args = ["sprt", "--new", new, "--old", old, "--field", "sample:random", "--game", "hearts"]
    args += ["--option", "target=10", "--seed", "4", "--jobs", "1", "--out", str(tmp_path / "broken")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert f"Error: no decision: the {version} version (" in result.stderr
    assert "start failures in a row" in result.stderr and "pairs 1" not in result.stderr
    field = ["sprt", "--new", "sample:heuristic", "--old", "sample:random", "--field", crash, "--game", "hearts"]
    field += ["--option", "target=10", "--seed", "4", "--max-pairs", "1", "--out", str(tmp_path / "field")]
    result = CliRunner().invoke(cli, [*field, "--json"])
    assert result.exit_code == 0, result.output
    assert "field1" in json.loads(result.stdout)["dropped"]


_SCIPY_AT_THE_FIRST_GAME = """
import sys
import kierki_cli.tournament_cmd as command
from kierki_cli.main import cli

def run_tournament(*args, **kwargs):
    print("scipy.stats imported:", "scipy.stats" in sys.modules)
    raise SystemExit(0)

command.run_tournament = run_tournament
cli(["tournament", "a=sample:random", "b=sample:random", "--game", "hearts", "--seed", "x", "--out", sys.argv[1]])
"""


def test_scipy_is_imported_before_the_first_game(tmp_path: Path) -> None:
    """A Ctrl-C or SIGTERM inside scipy's first import leaves numpy half-imported for good (a second import fails),
    and that import used to happen mid-run, at the first set's progress line: the standings after the stop then
    ended in a traceback. A fresh process, since this test process may have imported scipy already."""
    probe = [sys.executable, "-c", _SCIPY_AT_THE_FIRST_GAME, str(tmp_path / "out")]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=120, check=False)
    assert "scipy.stats imported: True" in done.stdout, done.stdout + done.stderr
