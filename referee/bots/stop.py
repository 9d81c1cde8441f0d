"""Stopping a bot for good: its process group, then every process of its session, and knowing when to skip that.

Why this is safe: a bot's exit is observed *without reaping* (a pidfd, or ``waitid(WNOWAIT)``), so until
``BotProcess.terminate`` reaps it, the bot's pid, which is also its process-group id and session id
(``start_new_session=True``), cannot be recycled, and ``killpg`` and the ``/proc`` session sweep here cannot hit
an unrelated process.

The group is killed first and then every process whose session id is the bot's, which catches descendants that
moved to another process group. A descendant that calls ``setsid()`` itself leaves the session;
``referee.bots.reaper`` catches it instead (the referee is a child subreaper, so the orphan becomes its child
when the bot dies). Killed orphans may stay visible as zombies for a moment until they are reaped; they hold no
resources.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

from referee.bots import procfs

__all__ = ["KEPT_CHILDREN", "LIVE_BOTS", "adopt_orphans", "kill_group", "kill_session", "left_nobody", "own_children"]

_SWEEP_S = 2.0  # how long we keep SIGKILLing session members that have not died yet

LIVE_BOTS: set[int] = set()  # pids of the bots started in this process and not yet reaped
KEPT_CHILDREN: set[int] = set()  # children of ours that are no bots and outlive matches (the cgroups' guardian)
_ADOPTING = False  # set by adopt_orphans: orphaned descendants of a bot become our children


def adopt_orphans() -> None:
    """Note that this process is a child subreaper (``referee.bots.reaper``): lets ``terminate`` skip its sweep."""
    global _ADOPTING
    _ADOPTING = True


def own_children() -> set[int] | None:
    """This process's children, zombies included, from ``/proc/self/task/*/children``; None where not listed."""
    children: set[int] = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", "rb") as listing:
                children.update(int(pid) for pid in listing.read().split())
    except FileNotFoundError:
        return None  # a kernel without CONFIG_PROC_CHILDREN, or a thread that just ended: ask the slow way
    except OSError:
        return None
    return children


def kill_group(pgid: int, sig: signal.Signals) -> None:
    """Send ``sig`` to the bot's process group (its pid); a group already gone is no error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def left_nobody(exited: bool) -> bool:
    """True when the bot has ``exited`` and provably left no process behind, so the session sweep can be skipped.

    When this process adopts orphans (``adopt_orphans``), a descendant still alive after the bot's exit either
    is our child now or has a live ancestor that is: so our children being only bots (and ``KEPT_CHILDREN``, which
    start no bot) proves there is none.
    Anything else (no adoption, an unknown child, children not listed by this kernel) means: sweep.
    """
    if not _ADOPTING or not exited:
        return False
    children = own_children()
    return children is not None and children - KEPT_CHILDREN <= LIVE_BOTS


def kill_session(sid: int) -> None:
    """SIGKILL every live process in the session ``sid`` (the bot's pid), including other process groups."""
    deadline = time.monotonic() + _SWEEP_S
    me = os.getpid()
    while True:
        members = [p for p in procfs.session_members(sid) if p != me]
        if not members or time.monotonic() >= deadline:
            return
        for member in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(member, signal.SIGKILL)
        time.sleep(0.005)  # SIGKILL is asynchronous; give the kernel a moment
