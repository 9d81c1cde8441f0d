"""Reading Linux's /proc: every process's file of one kind, a process's children, a session's members.

The transport's kill sweep and pipe-holder check, the reaper and the sandbox's task count read processes here
and nowhere else.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

__all__ = ["abandoned_behind", "children", "proc_files", "process_stat", "session_members", "stat_fields"]


def proc_files(filename: str) -> Iterator[tuple[int, bytes]]:
    """(pid, contents of /proc/PID/FILENAME) for every process that still exists while we read (Linux only)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/{filename}", "rb") as f:
                yield int(name), f.read()
        except OSError:
            continue  # exited while we looked


def stat_fields(stat: bytes) -> list[bytes]:
    """The fields of a ``/proc/PID/stat`` from its third on: the state (``R``, ``S``, ``Z``...), the parent, the
    process group, the session, ... (``proc(5)``'s field N is at N - 3). The second field, the command's name in
    parentheses, may hold spaces and ``)``: the line is split after the last ``)``."""
    return stat[stat.rfind(b")") + 2 :].split()


def process_stat(pid: int) -> list[bytes] | None:
    """``stat_fields`` of process ``pid``, or None when it cannot be read (it has ended)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return stat_fields(f.read())
    except OSError:
        return None


def children(pid: int) -> list[int] | None:
    """The children of ``pid`` (from every thread's ``children`` file), or None when they cannot be read."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []  # gone: no children
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as listing:
                found += [int(child) for child in listing.read().split()]
        except FileNotFoundError:
            continue  # that thread ended
        except OSError:
            return None
    return found


def session_members(sid: int) -> list[int]:
    """Live (non-zombie) pids whose session id is ``sid``."""
    members = []
    for pid, stat in proc_files("stat"):
        fields = stat_fields(stat)
        if len(fields) > 3 and int(fields[3]) == sid and fields[0] not in (b"Z", b"X"):
            members.append(pid)
    return members


def abandoned_behind(root: int, launchers: int, pipe_inode: int) -> bool:
    """True when no process more than ``launchers`` levels below ``root`` holds the pipe ``pipe_inode`` any more.

    ``root`` and the ``launchers - 1`` levels below it are a sandbox's own processes, which keep the bot's pipes
    open; the bot is behind them. Any doubt (a /proc file that cannot be read, no process behind them to look at)
    counts as held: the caller's deadline then decides.
    """
    target = f"pipe:[{pipe_inode}]"
    frontier, depth, behind = [root], 0, 0
    while frontier:
        if depth >= launchers:
            behind += len(frontier)
            for pid in frontier:
                try:
                    fds = os.listdir(f"/proc/{pid}/fd")
                except OSError:
                    return False
                for fd in fds:
                    try:
                        if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                            return False
                    except OSError:
                        continue
        found: list[int] = []
        for pid in frontier:
            listed = children(pid)
            if listed is None:
                return False
            found += listed
        frontier, depth = found, depth + 1
    return behind > 0  # nobody behind the launchers yet (still starting) or any more (exiting): not abandoned
