"""A tournament stopped (SIGTERM, Ctrl-C) while its pool is still starting ends cleanly: exit status 130, the
standings so far, no traceback from a worker that was being started, and no process left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from competition_helpers import family, family_env, family_left

from competition import tournament
from competition.plan import Entrant
from competition.tournament import run_tournament
from competition.tournament_config import StopRule, TournamentConfig
from referee.rules import Ruleset

ARGS = ["tournament", "h=sample:heuristic", "r=sample:random", "--game", "hearts", "--option", "target=10"]
ARGS += ["--seed", "9", "--sets", "30", "--jobs", "2"]

# The coordinator stops itself at a chosen moment of a worker's start: after the forkserver has forked worker N
# (the pool's Nth wait for a new worker's pid), before the pool has recorded it. A stop that landed there left a
# worker the pool did not know, which printed a FileNotFoundError traceback once the coordinator had gone.
STOP_WHILE_A_WORKER_STARTS = """
import os, signal, sys
from multiprocessing import forkserver

def main() -> None:
    signum, nth = int(sys.argv[1]), int(sys.argv[2])
    read_pid = forkserver.read_signed
    calls = []

    def read_signed(fd):
        calls.append(fd)
        if len(calls) == nth:
            sys.stderr.write(f"stopping while worker {nth} starts\\n")
            os.kill(os.getpid(), signum)
        return read_pid(fd)

    forkserver.read_signed = read_signed
    # A shell starts background jobs with SIGINT ignored, and Python keeps that: restore Ctrl-C's usual handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from kierki_cli.main import cli
    cli(sys.argv[3:])

if __name__ == "__main__":  # the forkserver imports this file as the main module: it must not run the command
    main()
"""


def _start(command: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env
    )


def _to_the_end(process: subprocess.Popen[str], tag: str) -> tuple[str, str]:
    """Its stdout and stderr once every process it started has ended (a worker the pool lost keeps stderr open)."""
    try:
        return process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        for pid in family(tag):
            os.kill(pid, signal.SIGKILL)
        _, err = process.communicate()
        raise AssertionError(f"processes were left running after the stop:\n{err}") from None


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("nth", [1, 2], ids=["first-worker", "second-worker"])
def test_a_stop_while_a_worker_starts_leaves_no_traceback(tmp_path: Path, signum: int, nth: int) -> None:
    script = tmp_path / "stop_while_a_worker_starts.py"
    script.write_text(STOP_WHILE_A_WORKER_STARTS)
    tag, env = family_env()
    command = [sys.executable, str(script), str(int(signum)), str(nth), *ARGS, "--out", str(tmp_path / "out")]
    process = _start(command, env)
    out, err = _to_the_end(process, tag)
    assert f"stopping while worker {nth} starts" in err  # the stop landed where it was meant to
    assert "Traceback" not in err, err
    assert process.returncode == 130, err
    assert "stopped early: continue with --resume" in out
    assert family_left(tag) == []  # (a guardian or a bot may take a moment to end after the coordinator)


# The forkserver, and every worker until it makes itself a session, are in the terminal's process group, so Ctrl-C
# reaches them too; a worker must not be interruptible before its initializer ignores Ctrl-C (a KeyboardInterrupt
# there is a traceback). A process the pool's forkserver forks sends itself SIGINT as its first act, then exits 7.
SIGINT_OF_A_NEW_WORKER = """
import os, signal, sys
from multiprocessing import get_context

def interrupt_myself():
    os.kill(os.getpid(), signal.SIGINT)
    sys.exit(7)

if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from competition.runner import Runner

    with Runner(1) as runner:
        process = get_context("forkserver").Process(target=interrupt_myself)
        process.start()
        process.join()
        print(process.exitcode)
        pool = runner._executor  # a pool worker, once started: Ctrl-C ignored, and no longer blocked
        print(pool.submit(signal.getsignal, signal.SIGINT).result() == signal.SIG_IGN)
        print(signal.SIGINT in pool.submit(signal.pthread_sigmask, signal.SIG_BLOCK, []).result())
"""


def test_the_pools_forkserver_starts_its_workers_deaf_to_ctrl_c(tmp_path: Path) -> None:
    script = tmp_path / "sigint_of_a_new_worker.py"
    script.write_text(SIGINT_OF_A_NEW_WORKER)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "KeyboardInterrupt" not in done.stderr, done.stderr
    assert done.stdout.split() == ["7", "True", "False"]  # 7, not 1: the SIGINT never interrupted it


def test_stops_as_soon_as_the_run_has_begun_end_cleanly_every_time(tmp_path: Path) -> None:
    """SIGTERM or Ctrl-C (to the whole group) as soon as the header is out, while the pool starts: ten times."""
    code = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from kierki_cli.main import cli; cli(sys.argv[1:])"
    )
    for attempt in range(10):
        tag, env = family_env()
        command = [sys.executable, "-c", code, *ARGS, "--out", str(tmp_path / str(attempt))]
        process = _start(command, env)
        assert process.stderr is not None
        header = ""
        while "results in" not in header:  # the header's last line: the run begins right after it
            line = process.stderr.readline()
            assert line, "the tournament ended before it began"
            header += line
        if attempt % 2:
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group gets it
        else:
            process.send_signal(signal.SIGTERM)
        _, err = _to_the_end(process, tag)
        assert "Traceback" not in err, f"attempt {attempt}:\n{err}"
        assert process.returncode == 130, f"attempt {attempt}:\n{err}"
        assert family_left(tag) == [], f"attempt {attempt}: processes left running"


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")  # as kierki_cli.entry's handler does


def test_a_stop_waits_for_the_folder_to_be_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop raised inside shutil.rmtree (clearing what an earlier run left) made it close a descriptor twice:
    OSError: Bad file descriptor, a traceback. The stop now waits for the folder's setup, then stops the run."""
    steps = []
    clean = tournament._clean_unfinished

    def clean_and_be_stopped(out_dir: Path, finished: set[int]) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        steps.append("stopped")
        clean(out_dir, finished)
        steps.append("cleaned")

    monkeypatch.setattr(tournament, "_clean_unfinished", clean_and_be_stopped)
    config = TournamentConfig.of(
        entrants=(Entrant("h", "sample:heuristic"), Entrant("r", "sample:random")),
        ruleset=Ruleset.create("hearts", None, {"target": "10"}),
        seed="1",
    )
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        with pytest.raises(KeyboardInterrupt, match="stopped by SIGTERM"):
            run_tournament(config, tmp_path, StopRule(sets=1))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert steps == ["stopped", "cleaned"]
    assert not (tmp_path / "results.jsonl").read_text()  # stopped before any game
