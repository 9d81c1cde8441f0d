"""The Dask executor: each game is one Dask task, ``run_remote`` on a `RemoteGame` (a `GameSpec` and its checks).

Imported only by `competition.open_executor.open_executor` (``distributed`` is the optional extra
``kierki[dask]``). The scheduler runs a task again when its worker dies (a nanny restarts the worker) and,
``retries`` times, when it raises; a worker that refuses a game (its copy of a bot differs from ours, or its kierki
does) returns a refusal instead, and the game is submitted again restricted to the workers that have not refused
it, until none is left (`InfrastructureError`). Whatever happens on the workers, a game's future resolves once: the
results file and the ladder's database hear of it once.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import signal
import threading
import uuid
from concurrent.futures import Future
from typing import Any

import distributed
from distributed.client import FutureCancelledError

from competition.executors import ExecutorError, ExecutorSpec, InfrastructureError
from competition.game import GameOutcome, GameSpec
from competition.remote import (
    RemoteGame,
    RemoteOutcome,
    deliver,
    probe_isolation,
    refusal_fix,
    remote_game,
    run_remote,
    worker_refusal,
)
from referee.api import Isolation

CONNECT_TIMEOUT_S = 30


def run_on_worker(game: RemoteGame) -> tuple[str, RemoteOutcome]:
    """The task: this worker's address (to leave it out of the next attempt if it refuses) and the outcome."""
    return distributed.get_worker().address, run_remote(game)


def _local_cluster(workers: int) -> distributed.LocalCluster:
    """Worker processes (one thread each) that ignore SIGINT, as the local pool's do: Ctrl-C reaches the whole
    terminal group, and the coordinator alone decides (it stops the cluster). An ignored signal stays ignored in
    the processes the nannies spawn, and in the bots the workers start. The cluster's own logs are silenced (a
    worker logs its lost heartbeat as the cluster closes): what matters reaches us through the games' futures."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        return distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address="127.0.0.1:0",  # None means Dask's default port 8787, and with it taken (another
            # program, another ladder's cron run) the cluster fails to start: any free port, on this machine only
            silence_logs=logging.CRITICAL,
        )
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


class _GameFuture(Future[GameOutcome]):
    """A game's future; cancelling it cancels its Dask task."""

    def __init__(self, executor: DaskExecutor) -> None:
        super().__init__()
        self._executor = executor
        self.task: Any = None  # the current distributed.Future
        self.delivering = threading.Lock()  # held while the game's logs are written: a cancel waits for it

    def cancel(self) -> bool:
        with self.delivering:  # once cancelled, nothing more is written for this game
            cancelled = super().cancel()
        if cancelled and self.task is not None:
            self._executor._release(self.task, cancel=True)
        return cancelled


class DaskExecutor:
    def __init__(self, client: distributed.Client, cluster: distributed.LocalCluster | None, retries: int) -> None:
        self._client = client
        self._cluster = cluster
        self._retries = retries
        self._lock = threading.Lock()
        self._tasks: dict[Any, _GameFuture] = {}  # the Dask futures in flight: a released one would be forgotten
        # Held while the client is used from Dask's callback thread (a result fetched, a game resubmitted), and by
        # ``close`` to mark the client closed: a callback that runs after the close must not touch the client, whose
        # ``Future.result`` then waits forever on its stopped loop, and with it the one callback thread every client
        # of the process shares (every later game's callback queues behind it).
        self._client_lock = threading.RLock()  # (re-entrant: a future settled under it may lead to close)
        self._closed = False
        self.jobs = max(1, sum(client.nthreads().values()))

    @classmethod
    def open(cls, spec: ExecutorSpec, jobs: int, *, isolation: Isolation | None = None) -> DaskExecutor:
        """Connect (or start the local cluster); refuse unless each worker can apply ``isolation``."""
        cluster = None
        client = None
        failure = None
        try:
            if spec.kind == "dask-local":
                cluster = _local_cluster(spec.workers or jobs)
                client = distributed.Client(cluster)
            else:
                client = distributed.Client(spec.scheduler, timeout=CONNECT_TIMEOUT_S)
                client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except Exception as error:  # a server that is not a Dask scheduler fails in Dask's own ways (MemoryError)
            for started in (client, cluster):
                if started is not None:
                    with contextlib.suppress(Exception):
                        started.close()
            where = spec.scheduler or "a local cluster"
            if isinstance(error, (OSError, TimeoutError, ValueError)):
                why = str(error)
            elif spec.scheduler:  # its bytes were read as a Dask frame: the error says nothing useful
                why = f"what answers there is not a Dask scheduler ({type(error).__name__})"
            else:
                why = f"{type(error).__name__}: {error}"
            failure = f"cannot use {where}: {why}; is `dask scheduler` running there, with `dask worker` attached?"
        if failure is not None:
            # A Client whose constructor failed is left half-built, reachable only from the error's traceback. Raised
            # outside the except block the error is not kept as our error's context, so that Client is garbage now:
            # collect it here. Its __del__ closes its loop runner; run later, from inside another Client's
            # constructor (a garbage collection can start anywhere), it waits for a lock that constructor holds, and
            # distributed deadlocks (seen in the test suite).
            gc.collect()
            raise ExecutorError(failure)
        assert client is not None
        executor = cls(client, cluster, spec.retries)
        # What a worker must check of sandbox "none" and fair play "auto" or "none": nothing (it plays as a match).
        if isolation is not None and (isolation.sandbox == "bwrap" or isolation.fair_play == "cgroup"):
            try:
                executor._check_isolation(isolation)
            except BaseException:
                executor.close()
                raise
        return executor

    def _check_isolation(self, isolation: Isolation) -> None:
        """The coordinator's checks of bubblewrap and control groups say nothing of the workers: run the same probe
        on each of them before any game goes there, and refuse in one line naming the first worker where it fails.
        (A worker that joins later is checked by its first such game, which it refuses: ``run_remote``.)"""
        try:
            answers = self._client.run(probe_isolation, isolation)
        except Exception as error:
            raise ExecutorError(f"cannot ask the Dask workers whether they can isolate the bots: {error}") from None
        for worker, problem in sorted(answers.items()):
            if problem is not None:
                what, why = problem  # (Dask hands back what the probe returned)
                raise ExecutorError(
                    f"{worker_refusal(worker, (what, why))}; {refusal_fix((what, why))} or take it out of the cluster"
                )

    def submit(self, spec: GameSpec) -> Future[GameOutcome]:
        future = _GameFuture(self)
        try:
            game = remote_game(spec)
        except OSError as error:  # a bot's program file that this machine cannot read
            future.set_exception(InfrastructureError(f"set {spec.set_id}: cannot hash a bot's program: {error}"))
            return future
        self._attempt(future, spec, game, {})
        return future

    def _attempt(self, future: _GameFuture, spec: GameSpec, game: RemoteGame, refused: dict[str, str]) -> None:
        with self._client_lock:
            if self._closed:
                raise InfrastructureError(f"set {spec.set_id}: the executor is closed")
            self._submit(future, spec, game, refused)

    def _submit(self, future: _GameFuture, spec: GameSpec, game: RemoteGame, refused: dict[str, str]) -> None:
        workers = None
        if refused:
            workers = [w for w in self._client.scheduler_info(n_workers=-1)["workers"] if w not in refused]
            if not workers:
                reasons = "; ".join(sorted(set(refused.values())))
                future.set_exception(
                    InfrastructureError(f"set {spec.set_id}, game {spec.index + 1}: every worker refused it: {reasons}")
                )
                return
        dask_future = self._client.submit(
            run_on_worker,
            game,
            key=f"kierki-game-{spec.set_id}-{spec.index + 1}-{uuid.uuid4().hex}",
            pure=False,
            retries=self._retries,
            workers=workers,
            allow_other_workers=False,
        )
        with self._lock:
            self._tasks[dask_future] = future
        future.task = dask_future
        dask_future.add_done_callback(lambda done: self._done(done, future, spec, game, refused))

    def _done(self, done: Any, future: _GameFuture, spec: GameSpec, game: RemoteGame, refused: dict[str, str]) -> None:
        """In Dask's callback thread: deliver the game's logs and settle its future, or try another worker."""
        self._release(done, cancel=False)
        if future.cancelled():
            return
        try:
            with self._client_lock:
                if self._closed:
                    raise InfrastructureError(
                        f"set {spec.set_id}: the executor was closed before the game's result came"
                    )
                worker, outcome = done.result()
        except FutureCancelledError:
            self._settle(future, exception=InfrastructureError(f"set {spec.set_id}: the game was cancelled"))
            return
        except distributed.scheduler.KilledWorker as error:
            message = f"set {spec.set_id}, game {spec.index + 1}: its workers died while playing it ({error})"
            self._settle(future, exception=InfrastructureError(message))
            return
        except Exception as error:  # the referee itself failed, ``retries`` times (a bug, not a bot), or closed
            self._settle(future, exception=error)
            return
        if outcome.refused is not None:
            try:
                self._attempt(future, spec, game, {**refused, worker: outcome.refused})
            except Exception as error:  # the client is closing: nobody will hear of this game otherwise
                self._settle(future, exception=InfrastructureError(f"set {spec.set_id}: cannot resubmit: {error}"))
            return
        with future.delivering:
            if future.cancelled():
                return
            try:
                result = deliver(spec, outcome)
            except Exception as error:  # our disk, not the game
                self._settle(future, exception=error)
                return
            self._settle(future, result=result)

    @staticmethod
    def _settle(
        future: _GameFuture, *, result: GameOutcome | None = None, exception: BaseException | None = None
    ) -> None:
        with contextlib.suppress(Exception):  # cancelled meanwhile: nobody waits for it
            if exception is not None:
                future.set_exception(exception)
            else:
                future.set_result(result)  # type: ignore[arg-type]

    def _release(self, task: Any, *, cancel: bool) -> None:
        with self._lock:
            self._tasks.pop(task, None)
        if cancel:
            task.cancel()

    def close(self) -> None:
        with self._client_lock:  # after a result being fetched now; no callback uses the client from here on
            self._closed = True
        with contextlib.suppress(Exception):
            self._client.close()
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close()

    def stop(self) -> None:
        """Cancel every game in flight (a running one finishes on its worker; its result is dropped) and close."""
        with self._lock:
            tasks = dict(self._tasks)
            self._tasks.clear()
        with contextlib.suppress(Exception):
            self._client.cancel(list(tasks))
        for future in tasks.values():
            self._settle(future, exception=InfrastructureError("the executor was stopped"))
        self.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
        else:
            self.stop()
