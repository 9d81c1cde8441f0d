"""A tournament stopped (SIGTERM, Ctrl-C) while its pool is still starting ends cleanly: exit status 130, the
standings so far, no traceback from a worker that was being started, and no process left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from competition_helpers import family, family_env

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
    assert not family(tag)


# The forkserver, and every worker until it makes itself a session, are in the terminal's process group, so Ctrl-C
# reaches them too; a worker must ignore it from its first instruction (a KeyboardInterrupt there is a traceback).
SIGINT_OF_A_NEW_WORKER = """
import signal
from multiprocessing import get_context

def report(queue):
    queue.put(repr(signal.getsignal(signal.SIGINT)))

if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from competition.runner import Runner

    with Runner(1):
        context = get_context("forkserver")
        queue = context.SimpleQueue()
        process = context.Process(target=report, args=(queue,))
        process.start()
        print(queue.get())
        process.join()
"""


def test_the_pools_forkserver_starts_its_workers_deaf_to_ctrl_c(tmp_path: Path) -> None:
    script = tmp_path / "sigint_of_a_new_worker.py"
    script.write_text(SIGINT_OF_A_NEW_WORKER)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr(signal.SIG_IGN)


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
        assert not family(tag), f"attempt {attempt}: processes left running"
