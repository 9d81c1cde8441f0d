"""Descendants that escape a bot's session: the referee adopts them (a child subreaper) and ends them.

A bot's process group and session are swept when it stops (``stop.py``), but a descendant that calls
``setsid()`` leaves both. Linux re-parents an orphan to its nearest ancestor that declared itself a *child
subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``) instead of to init; so once the referee has declared itself one,
every escaped descendant of a bot becomes the referee's own child when the bot dies, and ``reap_orphans`` at the
end of a match kills and reaps every child the referee did not have when the match began.

The one assumption: while a match runs, the process running it starts no other children of its own that must
outlive the match (the tournament runner plays each game in a worker process for this reason), except those it
names in ``stop.KEPT_CHILDREN`` (the guardian of its control groups, ``cgroups.py``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from collections.abc import Collection

from referee.bots.procfs import proc_files, stat_fields
from referee.bots.stop import KEPT_CHILDREN, adopt_orphans, own_children

__all__ = ["become_subreaper", "child_pids", "reap_orphans"]

_PR_SET_CHILD_SUBREAPER = 36
_REAP_S = 2.0


def become_subreaper() -> bool:
    """Make orphaned descendants re-parent to this process; False where the kernel does not offer it."""
    try:
        # The program's own symbols include libc's: no find_library, which runs ldconfig in a subprocess.
        libc = ctypes.CDLL(None, use_errno=True)
        adopted = bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
    if adopted:
        adopt_orphans()
    return adopted


def child_pids() -> set[int]:
    """Our live children (zombies included: they are ours to reap), less ``KEPT_CHILDREN`` (the cgroups' guardian,
    started by a match and kept for the next ones)."""
    listed = own_children()
    if listed is not None:
        return listed - KEPT_CHILDREN
    me = os.getpid()
    children = set()
    for pid, stat in proc_files("stat"):
        fields = stat_fields(stat)
        if len(fields) > 1 and int(fields[1]) == me:
            children.add(pid)
    return children - KEPT_CHILDREN


def reap_orphans(known: Collection[int]) -> int:
    """SIGKILL and reap every child not in ``known`` (adopted orphans); return how many there were."""
    deadline = time.monotonic() + _REAP_S
    ended: set[int] = set()
    while time.monotonic() < deadline:
        adopted = child_pids() - set(known) - ended
        if not adopted:
            break
        for pid in adopted:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, 0)[0] == pid:
                    ended.add(pid)
    return len(ended)
