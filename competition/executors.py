"""Where a tournament's (or the ladder's) games are played: an executor takes `GameSpec`s and returns futures.
`ExecutorSpec` says which, as a user states it; `competition.open_executor.open_executor` opens it.

- ``local`` (the default): `competition.runner.Runner`, a pool of pinned worker processes on this machine.
- ``dask``: the workers of a running Dask scheduler (``--scheduler tcp://HOST:8786``), on any number of machines.
- ``dask-local``: a ``distributed.LocalCluster`` of ``--workers`` processes on this machine.

The Dask ones need the optional extra ``kierki[dask]`` (``distributed``); it is imported only when one is opened.
Every executor's futures resolve to a `GameOutcome` whose logs are already in the set's folder, written by this
process (the coordinator). A failure that is nobody's fault at the table (every worker refused the game because its
copy of a bot differs, a worker died more often than allowed) raises `InfrastructureError` from the future: the
tournament stops (the finished sets are kept) and the ladder voids the set; it is never scored against a bot.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Literal, Protocol

from competition.game import GameOutcome, GameSpec

__all__ = ["EXECUTORS", "ExecutorError", "ExecutorKind", "ExecutorSpec", "GameExecutor", "InfrastructureError"]

ExecutorKind = Literal["local", "dask", "dask-local"]
EXECUTORS: tuple[ExecutorKind, ...] = ("local", "dask", "dask-local")


class ExecutorError(RuntimeError):
    """An executor cannot be opened: ``distributed`` is not installed, the scheduler cannot be reached."""


class InfrastructureError(RuntimeError):
    """A game could not be played for a reason that is not a bot's: refused by every worker, or lost with them."""


class GameExecutor(Protocol):
    """What `competition.duplicate_set` needs of an executor (`competition.runner.Runner` is one)."""

    jobs: int  # games worth keeping in flight at once

    def submit(self, spec: GameSpec) -> Future[GameOutcome]: ...

    def close(self) -> None:
        """Wait for the submitted games, then release the workers."""

    def stop(self) -> None:
        """Stop at once: games in progress end, queued ones are dropped."""

    def __enter__(self) -> GameExecutor: ...

    def __exit__(self, *exc: object) -> None: ...


# How _problem names things: as the command line's options, or as ladder.toml's [run] keys.
_OPTION_WORDS: Mapping[str, str] = {
    "dask": "--executor dask",
    "dask-local": "--executor dask-local",
    "local": "dask-local",
    "scheduler": "--scheduler",
    "scheduler=": "--scheduler tcp://HOST:8786",
    "workers": "--workers",
    "jobs": " (with local, use --jobs)",
}
_TOML_WORDS: Mapping[str, str] = {
    "dask": 'executor = "dask"',
    "dask-local": 'executor = "dask-local"',
    "local": 'executor = "dask-local"',
    "scheduler": "scheduler",
    "scheduler=": 'scheduler = "tcp://HOST:8786"',
    "workers": "workers",
    "jobs": "",
}


def _problem(
    kind: str, scheduler: str | None, workers: int | None, retries: int, words: Mapping[str, str]
) -> str | None:
    """What is wrong with an executor's settings together, in ``words`` (the options' or ladder.toml's)."""
    if kind == "dask" and not scheduler:
        return f"{words['dask']} needs {words['scheduler=']} (the address `dask scheduler` prints)"
    if kind != "dask" and scheduler:
        return f"{words['scheduler']} is for {words['dask']}; for a cluster on this machine use {words['local']}"
    if kind != "dask-local" and workers is not None:
        return f"{words['workers']} is for {words['dask-local']}{words['jobs']}"
    if workers is not None and workers < 1:
        return f"{words['workers']} must be at least 1"
    if retries < 0:
        return "retries must be at least 0"
    return None


@dataclass(frozen=True)
class ExecutorSpec:
    """Which executor, as a user states it (the CLI's ``--executor``, ``--scheduler``, ``--workers``; ladder.toml).

    ``retries``: how often a Dask task that raised is run again (a worker that dies mid-game is retried by the
    scheduler on its own, up to its ``distributed.scheduler.allowed-failures``)."""

    kind: ExecutorKind = "local"
    scheduler: str | None = None  # dask: tcp://HOST:8786 (or tls://...)
    workers: int | None = None  # dask-local: worker processes [default: jobs]
    retries: int = 2

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ExecutorError(f"unknown executor {self.kind!r}: use one of {', '.join(EXECUTORS)}")
        problem = _problem(self.kind, self.scheduler, self.workers, self.retries, _OPTION_WORDS)
        if problem is not None:
            raise ExecutorError(problem)

    @classmethod
    def from_table(cls, table: Mapping[str, object], where: str) -> ExecutorSpec:
        """The executor keys of a TOML table (the ladder's ``[run]``): ``executor``, ``scheduler``, ``workers``,
        ``retries``; other keys are the caller's. ``where`` names the table in messages."""
        kind = table.get("executor", "local")
        scheduler = table.get("scheduler")
        workers = table.get("workers")
        retries = table.get("retries", 2)
        if kind not in EXECUTORS:
            raise ExecutorError(f"{where}: executor must be one of {', '.join(EXECUTORS)}, not {kind!r}")
        if scheduler is not None and not isinstance(scheduler, str):
            raise ExecutorError(f'{where}: scheduler must be a string, e.g. "tcp://10.0.0.5:8786"')
        if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)):
            raise ExecutorError(f"{where}: workers must be a whole number")
        if not isinstance(retries, int) or isinstance(retries, bool):
            raise ExecutorError(f"{where}: retries must be a whole number")
        problem = _problem(kind, scheduler, workers, retries, _TOML_WORDS)  # in the file's words, not the options'
        if problem is not None:
            raise ExecutorError(f"{where}: {problem}")
        return cls(kind, scheduler, workers, retries)
