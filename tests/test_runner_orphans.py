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
from cgroup_helpers import private_group
from competition_helpers import FAMILY_VARIABLE, family_env, family_left, tournament_after_its_first_set
from test_hostile import needs_cgroups, settle

from competition import runner
from referee.bots.procfs import process_stat


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


@needs_cgroups
def test_a_pool_worker_killed_mid_game_leaves_no_bot(tmp_path: Path) -> None:
    """A pool worker killed with SIGKILL (the OOM killer, an operator) cannot stop its game's bots, and one frozen
    at that instant could never read the end of its input: the worker's guardian kills them all (the worker is
    one process of a tournament run in a control group of its own, where no other match's sweep can)."""
    tag, env = family_env()
    bots = tmp_path / "bots.toml"
    bots.write_text(
        "".join(
            f'[[bot]]\nname = "{n}"\ncommand = "{c}"\nenv = {{ {FAMILY_VARIABLE} = "{tag}" }}\n'
            for n, c in (("h", "sample:heuristic"), ("r", "sample:random"))
        )
    )
    args = ["tournament", "--bots", str(bots), "--game", "hearts", "--option", "target=10", "--seed", "7"]
    args += ["--sets", "12", "--jobs", "1", "--out", str(tmp_path / "t")]
    with private_group() as group:
        coordinator = tournament_after_its_first_set(args, env, stdout=subprocess.DEVNULL, wrap=group.command)
        try:
            playing: list[int] = []
            workers: set[int] = set()

            def not_frozen_yet() -> list[int]:
                playing[:] = [pid for bot in group.bot_groups() for pid in _members(bot)]
                workers.clear()
                workers.update({_parent(pid) for pid in playing} - {0})  # the bots' parent: the one worker
                return [] if len(workers) == 1 and group.frozen_bots() else [1]

            assert settle(not_frozen_yet, rounds=4000) == [], "no bot was ever frozen"
            os.kill(workers.pop(), signal.SIGKILL)
            assert playing and settle(lambda: [pid for pid in playing if _running(pid)], rounds=4000) == []
        finally:
            coordinator.kill()
            coordinator.communicate()
    assert family_left(tag) == []


def _members(group: Path) -> list[int]:
    try:
        return [int(pid) for pid in (group / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def _parent(pid: int) -> int:
    fields = process_stat(pid)
    return 0 if fields is None else int(fields[1])


def _running(pid: int) -> bool:
    fields = process_stat(pid)
    return fields is not None and fields[0] not in (b"Z", b"X")
