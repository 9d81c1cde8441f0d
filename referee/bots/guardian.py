"""A referee's guardian: one small process per referee process that removes the referee's control groups however
the referee ends.

A bot frozen in its group cannot read the end of its input, so a referee that dies without stopping its bots
(SIGKILL, a Dask worker's ``os._exit``, the OOM killer) would leave them frozen until the next match's sweep. The
first match of a process therefore starts its guardian: a process in a session of its own (Ctrl-C and a kill of the
referee's process group do not reach it) holding the read end of a pipe whose write end only the referee has. When
the referee ends, however it ends, the guardian reads the end of its input and runs
``referee.bots.cgroups.guard``, which kills and removes that referee's groups (SECURITY.md, "When a referee dies").
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Final

from referee.bots.stop import KEPT_CHILDREN

__all__ = ["start_guardian"]

# The referee's own copy of the package (a checkout, a build on sys.path), whatever the guardian's path would find.
_GUARDIAN_CODE: Final = (
    "import sys; sys.path.insert(0, sys.argv[1]); from referee.bots.cgroups import guard; guard(sys.argv[2:])"
)
_HOME: Final = str(Path(__file__).resolve().parents[2])
_guardians: dict[int, tuple[subprocess.Popen[bytes], int]] = {}  # our pid: the guardian, our end of its pipe
_guardian_lock = threading.Lock()  # matches in several threads (a Dask worker with --nthreads) start one


def start_guardian(version: str, dirs: dict[str, Path], prefix: str) -> None:
    """Start this process's guardian for the groups named ``prefix...`` in ``dirs`` (controller or "" -> the tree)
    unless it runs (a process forked from a referee starts its own); without one (no Python to start here), what a
    referee leaves is for the next match's ``sweep_stale``."""
    with _guardian_lock:
        _start_locked(version, dirs, prefix)


def _start_locked(version: str, dirs: dict[str, Path], prefix: str) -> None:
    me = os.getpid()
    running = _guardians.get(me)
    if running is not None:
        guardian, end = running
        if guardian.poll() is None:
            return
        KEPT_CHILDREN.discard(guardian.pid)  # killed by someone: start another
        os.close(end)
    read, write = os.pipe()  # neither end is inherited by the bots (nor by anything else we start)
    trees = [f"{key}={path}" for key, path in dirs.items()]
    try:
        guardian = subprocess.Popen(
            [sys.executable, "-c", _GUARDIAN_CODE, _HOME, version, prefix, *trees],
            stdin=read,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # nothing of ours (a terminal, a test's pipe) is held open by it
            start_new_session=True,  # neither Ctrl-C nor a kill of the referee's process group reaches it
        )
    except OSError:
        os.close(write)
        return
    finally:
        os.close(read)
    KEPT_CHILDREN.add(guardian.pid)
    if not _guardians:
        atexit.register(_release_guardians)
    _guardians[me] = guardian, write


GUARDIAN_EXIT_WAIT_S = 10.0  # how long a referee ending normally waits for its guardian's sweep


def _release_guardians() -> None:
    """At a normal exit: close our end of the guardian's pipe, so that it sweeps what is left of our groups now and
    ends, and wait (a bounded while) for it, so that a referee that has returned leaves no process of its own behind
    (and its ``Popen`` is not collected while it still runs: a ResourceWarning). A killed referee runs no exit
    handlers; its guardian sees the pipe close all the same."""
    running = _guardians.pop(os.getpid(), None)
    if running is None:
        return
    guardian, end = running
    with contextlib.suppress(OSError):
        os.close(end)
    with contextlib.suppress(subprocess.TimeoutExpired):
        guardian.wait(GUARDIAN_EXIT_WAIT_S)
    KEPT_CHILDREN.discard(guardian.pid)
