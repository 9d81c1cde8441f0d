"""A pool worker whose coordinator is gone before the worker starts watching it exits instead of waiting forever.

A coordinator killed (SIGKILL) while one of its workers was still starting left that worker waiting for a game that
could never come: the worker found the coordinator gone when it tried to watch it (`pidfd_open` failed), and took
that for a kernel without pidfds. Every worker holds the write end of the pool's call queue, so no end-of-file
ever reached it either. Found by ``tools/kill_stress.py`` (2 leftover workers in its first 8 kills).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path

import pytest
from competition_helpers import family_env, family_left

from competition import runner


def _ended_pid() -> int:
    """The pid of a process that has ended and been reaped: what a killed coordinator's pid is to its worker."""
    ended = subprocess.Popen([sys.executable, "-c", ""])
    ended.wait()
    return ended.pid


def _watching(coordinator: int, started: int | None) -> ProcessPoolExecutor:
    """A pool whose worker starts as the runner's do, told to watch ``coordinator``."""
    runner._start_forkserver()
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=get_context("forkserver"),
        initializer=runner._worker_start,
        initargs=(None, coordinator, started),
    )


@pytest.mark.parametrize("case", ["ended", "pid-used-again"])
def test_a_worker_whose_coordinator_is_gone_exits_as_it_starts(case: str) -> None:
    if case == "ended":
        coordinator, started = _ended_pid(), None
    else:  # a live process has the pid, but it started at another time than the coordinator did
        me = runner._start_time(os.getpid())
        assert me is not None
        coordinator, started = os.getpid(), me - 1
    with _watching(coordinator, started) as pool:
        future = pool.submit(os.getpid)
        with pytest.raises(BrokenProcessPool):  # the worker exited in its initializer: no game ever reached it
            future.result(timeout=120)


def test_a_worker_whose_coordinator_lives_plays() -> None:
    with _watching(os.getpid(), runner._start_time(os.getpid())) as pool:
        assert pool.submit(os.getpid).result(timeout=120) != os.getpid()


# The coordinator kills itself (SIGKILL) once the forkserver has forked its first worker and the worker has its task
# (the pool then waits for the worker's pid): the worker has yet to import the referee and run its initializer.
KILLED_WHILE_A_WORKER_STARTS = """
import os, signal, sys
from multiprocessing import forkserver

if __name__ == "__main__":  # the forkserver imports this file as the main module: it must not run this
    def read_signed(fd):
        os.kill(os.getpid(), signal.SIGKILL)

    forkserver.read_signed = read_signed
    from competition.runner import Runner

    Runner(1)._executor.submit(os.getpid)
"""


def test_a_coordinator_killed_while_its_worker_starts_leaves_no_process(tmp_path: Path) -> None:
    script = tmp_path / "killed_while_a_worker_starts.py"
    script.write_text(KILLED_WHILE_A_WORKER_STARTS)
    tag, env = family_env()
    coordinator = subprocess.Popen([sys.executable, str(script)], start_new_session=True, env=env)
    assert coordinator.wait(timeout=120) == -signal.SIGKILL
    assert family_left(tag) == []  # the worker, the forkserver and the resource tracker end
