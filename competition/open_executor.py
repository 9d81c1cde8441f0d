"""Opening the executor an `ExecutorSpec` names: the local pool, or a Dask one (whose module, and ``distributed``
with it, is imported only then). A module of its own so that neither executor's module imports the other's."""

from __future__ import annotations

from competition.executors import ExecutorError, ExecutorSpec, GameExecutor
from competition.runner import Runner
from referee.api import Isolation

__all__ = ["open_executor"]


def open_executor(
    spec: ExecutorSpec, jobs: int, *, pin: bool = True, isolation: Isolation | None = None
) -> GameExecutor:
    """Start (or connect to) the executor. ``jobs`` and ``pin`` are the local pool's; a Dask executor keeps as
    many games in flight as its workers have threads (pinning is the workers' own business there). A Dask
    executor first checks that each of its workers can apply ``isolation`` (bubblewrap works there, when it is
    asked for); the local pool's games run here, where the caller and each match check it."""
    if spec.kind == "local":
        return Runner(jobs, pin=pin)
    try:
        from competition.dask_executor import DaskExecutor
    except ImportError as error:
        raise ExecutorError(
            f"--executor {spec.kind} needs Dask distributed ({error}): pip install 'kierki[dask]'"
        ) from None
    return DaskExecutor.open(spec, jobs, isolation=isolation)
