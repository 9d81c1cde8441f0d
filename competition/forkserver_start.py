"""Imported by the worker pool's forkserver as it starts (`competition.runner`): a worker that loses its
coordinator while it is being started exits without a traceback.

The forkserver forks each new worker, which then reads its start-up data from the coordinator through a pipe. A
coordinator killed at that moment (cron's ``kill -9``, a machine's shutdown) closes the pipe, the worker's read
ends in ``EOFError`` inside ``multiprocessing.spawn``, and the forkserver's child prints it with ``sys.excepthook``
to the stderr it inherited: cron's mail. That one case, and only it, is the kill's expected end, not an error.
"""

from __future__ import annotations

import sys
import types

__all__ = ["orphaned_at_start"]

_previous = sys.excepthook


def orphaned_at_start(kind: type[BaseException], tb: types.TracebackType | None) -> bool:
    """An EOFError raised while a new process read its start-up data (``multiprocessing.spawn._main``)."""
    if not issubclass(kind, EOFError):
        return False
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == "_main" and code.co_filename.endswith(
            ("multiprocessing/spawn.py", "multiprocessing\\spawn.py")
        ):
            return True
        tb = tb.tb_next
    return False


def _hook(kind: type[BaseException], value: BaseException, tb: types.TracebackType | None) -> None:
    if orphaned_at_start(kind, tb):
        return
    _previous(kind, value, tb)


sys.excepthook = _hook
