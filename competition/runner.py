"""Playing a tournament's games: one `referee.match.Match` per game, in a pool of worker processes.

Every game starts its bots afresh (a Match of one game), so no bot can remember a set's cards from an earlier
rotation. Workers get plain data (`GameTask`) and send plain data back (`GameOutcome`); only the coordinator
writes the results file. Each worker is pinned to one CPU before it starts any bot, and bots inherit the pinning,
so a game's referee and its bots hand the turn to each other on one core (a hand-off across cores costs several
times more: BENCHMARKS.md, ``pinning``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import select
import shutil
import signal
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import forkserver, resource_tracker
from pathlib import Path
from types import FrameType
from typing import Any

from competition.model import GameRecord
from competition.stopping import stop_signals_held
from referee.cpu import usable_cpus
from referee.match import Match, MatchConfig, MatchResult, MatchSetupError


@dataclass(frozen=True)
class GameTask:
    """One game of a set, ready to run: where its files go, and who sits where."""

    set_id: int
    index: int  # 0-based rotation within the set
    config: MatchConfig  # games=1, the set's seed, out_dir the game's scratch folder
    names: tuple[str, ...]  # bot name per seat
    set_dir: Path  # the set's folder while it is being played; replays are moved here
    final_dir: str  # the set's folder once finished, relative to the tournament's folder


@dataclass(frozen=True)
class GameOutcome:
    set_id: int
    index: int
    record: GameRecord | None
    start_failures: tuple[str | None, ...] = ()  # per seat: why its bot could not start (None: it started)
    error: str | None = None  # the game could not run at all (a configuration error): the tournament stops


def play_game(task: GameTask) -> GameOutcome:
    """Play one game and move its replay and stderr logs into the set's folder."""
    config = task.config
    game_dir = config.out_dir
    try:
        result = Match(config).run()
    except MatchSetupError as error:
        return GameOutcome(task.set_id, task.index, None, error=str(error))
    stem = game_stem(task.index)
    task.set_dir.mkdir(parents=True, exist_ok=True)
    os.replace(result.replays[0], task.set_dir / f"{stem}.replay.jsonl")
    for seat in range(len(task.names)):
        log = game_dir / f"seat{seat}.stderr.log"
        if log.exists() and log.stat().st_size:  # most bots write nothing there
            os.replace(log, task.set_dir / f"{stem}.seat{seat}.stderr.log")
    shutil.rmtree(game_dir, ignore_errors=True)  # the bots' private scratch folders
    record, failures = game_record(task.index, task.names, task.final_dir, config.absent, result)
    return GameOutcome(task.set_id, task.index, record, failures)


def game_stem(index: int) -> str:
    """The file names of a game's logs in its set's folder: ``{stem}.replay.jsonl``, ``{stem}.seat{N}.stderr.log``."""
    return f"game{index + 1}"


def game_record(
    index: int,
    names: tuple[str, ...],
    final_dir: str,
    absent: tuple[tuple[int, str], ...],
    result: MatchResult,
) -> tuple[GameRecord, tuple[str | None, ...]]:
    """A one-game match's record, and per seat why its bot could not start (None: it started, or was absent).

    Every executor builds its records here, so a game played on another machine records what a local one does."""
    record = GameRecord(
        index=index,
        seats=names,
        totals=tuple(s.totals[0] for s in result.seats),
        places=tuple(s.places[0] for s in result.seats),
        faults=tuple(dict(s.faults) for s in result.seats),
        start_failed=tuple(s.start_failure is not None for s in result.seats),
        forfeited=tuple(s.forfeited_in_game is not None or s.start_failure is not None for s in result.seats),
        cpu_ms=tuple(s.cpu_total_ms for s in result.seats),
        replay=f"{final_dir}/{game_stem(index)}.replay.jsonl",
    )
    skipped = dict(absent)
    failures = tuple(
        s.start_failure if s.start_failure is not None and s.seat not in skipped else None for s in result.seats
    )
    return record, failures


# --- the worker processes ---------------------------------------------------------------------------------

_running = False
_stopping = False


def _stop_game(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (from the coordinator, or because it died): end the game in progress cleanly (its bots are
    stopped), then exit; an idle worker exits at once."""
    global _stopping
    if _running and not _stopping:
        _stopping = True
        raise KeyboardInterrupt
    if not _running:
        os._exit(0)


def _start_time(pid: int) -> int | None:
    """When a process started (clock ticks since boot, the 22nd field of ``/proc/PID/stat``); None if it cannot be
    read. With its pid, it names one process: a pid alone may be another process's once the first has ended."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return int(stat[stat.rfind(b")") + 2 :].split()[19])


def _watch_coordinator(pid: int, started: int | None) -> None:
    """SIGTERM this worker when the coordinator dies: a coordinator killed with SIGKILL must not leave games
    running (and writing into the folder) while a resumed tournament plays them again.

    A coordinator already gone exits the worker at once: killed while this worker was starting (unpickling its
    task, importing the referee: most of a second under load), it can never send a game, and the worker would wait
    for one forever, since every worker holds the write end of the pool's call queue (no end-of-file ever comes).
    Gone includes a pid that names another process by now (``started`` differs): with ``pid_max`` at 32768 and a
    tournament starting bots by the dozen, a pid is soon used again."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(0)
    except (OSError, AttributeError):
        return  # not Linux 5.3+: a killed coordinator's busy workers finish their game; idle ones are not watched
    if started is not None and _start_time(pid) != started:  # read after the pidfd: it is the coordinator's if equal
        os._exit(0)

    def wait() -> None:
        select.select([pidfd], [], [])  # readable once the process has exited
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=wait, name="coordinator-watch", daemon=True).start()


def _own_session() -> None:
    """Make this worker a session of its own, so that the kernel's autogroup scheduler weighs it like any other.

    With ``sched_autogroup_enabled`` (the default on most desktop and many server kernels) the CPU is shared fairly
    between sessions, not processes: every worker in the coordinator's session would share one session's weight,
    so under load from other sessions ``--jobs 2`` got little more CPU than ``--jobs 1`` (BENCHMARKS.md,
    ``tournament_scaling``). Bots already get sessions of their own (``start_new_session``). Nothing is lost: the
    coordinator stops workers by SIGTERM, never through the terminal's process group (they ignore SIGINT), and a
    coordinator that dies is noticed through its pidfd (`_watch_coordinator`)."""
    with contextlib.suppress(OSError):  # already a group leader (not a pool worker): it keeps the session it has
        os.setsid()


def _worker_start(cpus: Any, coordinator: int, coordinator_started: int | None) -> None:
    # Ctrl-C reaches every process of the terminal's group; the coordinator decides, and stops workers by SIGTERM.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked from birth (`_start_forkserver`)
    signal.signal(signal.SIGTERM, _stop_game)
    _watch_coordinator(coordinator, coordinator_started)
    _own_session()
    if cpus is not None:
        cpu = cpus.get()
        os.sched_setaffinity(0, {cpu})


def _run_in_worker(task: GameTask) -> GameOutcome:
    global _running
    _running = True
    try:
        return play_game(task)
    finally:
        _running = False
        if _stopping:
            os._exit(0)  # the pool is being torn down: nobody is left to take a result


def _start_forkserver() -> None:
    """Start the forkserver (once per process) with Ctrl-C blocked, so that neither it nor a worker it forks can be
    interrupted before the worker's initializer ignores Ctrl-C (`_worker_start`, which then unblocks it).

    Ctrl-C reaches the terminal's whole process group, and the forkserver and the workers it forks are in it until a
    worker makes itself a session (`_own_session`): one landing while the forkserver imported its modules, or while a
    worker started, printed a ``KeyboardInterrupt`` traceback. The signal mask is kept through ``fork`` and ``exec``
    (CPython starts its resource tracker the same way). Blocking, not ignoring, in this process: a Ctrl-C meanwhile
    is delivered here once the forkserver is started, not lost."""
    with stop_signals_held():
        resource_tracker.ensure_running()  # the forkserver's start starts it too, and it unblocks SIGINT as it ends
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            forkserver.ensure_running()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class Runner:
    """A pool of ``jobs`` worker processes, each pinned to its own CPU (cycling when there are more jobs than CPUs)."""

    def __init__(self, jobs: int, *, pin: bool = True) -> None:
        context = multiprocessing.get_context("forkserver")
        _start_forkserver()
        cpus = None
        available = usable_cpus()
        if pin and available:  # no CPUs to pin to (not Linux): the workers run where the system puts them
            cpus = context.SimpleQueue()
            for worker in range(jobs):
                cpus.put(available[worker % len(available)])
        self.jobs = jobs
        self._executor = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=context,
            initializer=_worker_start,
            initargs=(cpus, os.getpid(), _start_time(os.getpid())),
        )

    def submit(self, task: GameTask) -> Future[GameOutcome]:
        # Submitting may start a worker: the forkserver forks it, and Process.start then waits for its pid before the
        # pool records it. A stop raised in that wait left a worker the pool did not know: `stop` could not end it,
        # the coordinator exited and removed the pool's semaphores, and the worker, still unpickling them, printed a
        # FileNotFoundError traceback.
        with stop_signals_held():
            return self._executor.submit(_run_in_worker, task)

    def close(self) -> None:
        self._executor.shutdown(wait=True)

    def stop(self) -> None:
        """Stop at once: games in progress end (their bots stopped), queued games are dropped, workers exit."""
        processes = list(getattr(self._executor, "_processes", {}).values())  # no public handle on the workers
        self._executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                with contextlib.suppress(ProcessLookupError):  # it ended since
                    os.kill(process.pid, signal.SIGTERM)
        for process in processes:
            process.join(10)
            if process.is_alive():
                process.kill()
                process.join()

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
        else:
            self.stop()
