"""The local executor: a pool of worker processes on this machine, each playing one game at a time.

Every game starts its bots afresh (`competition.game.play_game`: a Match of one game), so no bot can remember a
set's cards from an earlier rotation. Workers get plain data (`GameSpec`) and send plain data back (`GameOutcome`),
having moved the game's logs into the set's folder themselves (`play_here`: the same machine); only the
coordinator writes the results file. Each worker is pinned to one CPU before it starts any bot, and bots inherit
the pinning, so a game's referee and its bots hand the turn to each other on one core (a hand-off across cores
costs several times more: BENCHMARKS.md, ``pinning``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import forkserver, resource_tracker
from types import FrameType
from typing import Any

from competition.game import GameOutcome, GameSpec, play_here
from competition.stopping import stop_signals_held
from referee.api import process_stat, usable_cpus

# --- the worker processes ---------------------------------------------------------------------------------

_running = False
_stopping = False
_ORPHAN_GRACE_S = 20.0  # a worker whose coordinator died is ended after this, if its game has not ended it


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
    fields = process_stat(pid)
    return None if fields is None else int(fields[19])


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
        # To the main thread, whose blocking call (an idle worker waits on the call queue's lock, a semaphore) the
        # signal interrupts, so that its handler runs: sent to the process, it went to this thread, which Linux
        # prefers for a signal a thread sends its own process, and an idle worker waited on forever.
        main = threading.main_thread().ident
        if main is not None:
            signal.pthread_kill(main, signal.SIGTERM)
        # The game in progress has this long to end cleanly (its bots stopped); an idle worker's handler has exited
        # long before. Seen in a soak (tools/ladder_soak.py): an idle worker that outlived its killed coordinator
        # blocked in the call queue's read with this thread gone, so the worker ends here whatever happened.
        time.sleep(_ORPHAN_GRACE_S)
        os._exit(0)

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


def _run_in_worker(spec: GameSpec) -> GameOutcome:
    global _running
    _running = True
    try:
        return play_here(spec)
    finally:
        _running = False
        if _stopping:
            os._exit(0)  # the pool is being torn down: nobody is left to take a result


# The pool's queues hold POSIX semaphores, each registered with multiprocessing's resource tracker (a process of its
# own) so that it can unlink them if their owner dies without doing so. After a kill -9 of the coordinator it does
# exactly that, its job, and then warns about the "leaked semaphore objects" it cleaned up: a UserWarning of its
# module, on the stderr it inherited, which is cron's mail. The tracker is started with that one warning filter
# (through the -W options CPython passes on to the processes it starts, `sys.warnoptions`); it still unlinks them.
_TRACKER_WARNINGS = "ignore::UserWarning:multiprocessing.resource_tracker"


def _start_resource_tracker() -> None:
    sys.warnoptions.append(_TRACKER_WARNINGS)
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions.remove(_TRACKER_WARNINGS)


def _start_forkserver() -> None:
    """Start the forkserver (once per process) with Ctrl-C blocked, so that neither it nor a worker it forks can be
    interrupted before the worker's initializer ignores Ctrl-C (`_worker_start`, which then unblocks it).

    Ctrl-C reaches the terminal's whole process group, and the forkserver and the workers it forks are in it until a
    worker makes itself a session (`_own_session`): one landing while the forkserver imported its modules, or while a
    worker started, printed a ``KeyboardInterrupt`` traceback. The signal mask is kept through ``fork`` and ``exec``
    (CPython starts its resource tracker the same way). Blocking, not ignoring, in this process: a Ctrl-C meanwhile
    is delivered here once the forkserver is started, not lost."""
    with stop_signals_held():
        _start_resource_tracker()  # the forkserver's start starts it too, and it unblocks SIGINT as it ends
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            forkserver.ensure_running()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class Runner:
    """A pool of ``jobs`` worker processes, each pinned to its own CPU (cycling when there are more jobs than CPUs)."""

    def __init__(self, jobs: int, *, pin: bool = True) -> None:
        context = multiprocessing.get_context("forkserver")
        # Before it starts (a forkserver already running keeps what it imported): see the module's docstring.
        context.set_forkserver_preload(["__main__", "competition.forkserver_start"])
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

    def submit(self, spec: GameSpec) -> Future[GameOutcome]:
        # Submitting may start a worker: the forkserver forks it, and Process.start then waits for its pid before the
        # pool records it. A stop raised in that wait left a worker the pool did not know: `stop` could not end it,
        # the coordinator exited and removed the pool's semaphores, and the worker, still unpickling them, printed a
        # FileNotFoundError traceback.
        with stop_signals_held():
            return self._executor.submit(_run_in_worker, spec)

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
