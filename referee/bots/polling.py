"""Waiting on a bot's file descriptors: one ``select.poll`` object kept for the bot's life, and a wait on several.

A new poll object with 3-4 registrations on every round cost more than the round trip it waited for, so each fd is
registered once and its mask changed only when what we wait for changes.
"""

from __future__ import annotations

import math
import select
from collections.abc import Iterable

__all__ = ["FdWatch", "poll_ms", "wait_for_any"]

_POLL_CAP_MS = 60_000  # poll() takes a C int; longer deadlines just loop
_NO_PIDFD_POLL_MS = 50  # how often we check for exit when the kernel has no pidfd


class FdWatch:
    """Which of one bot's fds to wait for, and for what; ``poll`` waits on them."""

    __slots__ = ("_poller", "masks")

    def __init__(self) -> None:
        self._poller = select.poll()
        self.masks: dict[int, int] = {}  # fd -> events waited for; fds not waited for are not in it

    def watch(self, fd: int, mask: int) -> None:
        """Poll ``fd`` for ``mask`` from now on (0: not at all, so a hung-up pipe we do not read cannot spin us)."""
        masks = self.masks
        if masks.get(fd, 0) == mask:
            return
        if not mask:
            self._poller.unregister(fd)
            del masks[fd]
        elif fd in masks:
            self._poller.modify(fd, mask)
            masks[fd] = mask
        else:
            self._poller.register(fd, mask)
            masks[fd] = mask

    def poll(self, timeout_s: float, slow_exit: bool) -> list[tuple[int, int]]:
        """The (fd, events) ready within ``timeout_s`` (see ``poll_ms`` for ``slow_exit``)."""
        return self._poller.poll(poll_ms(timeout_s, slow_exit))


def wait_for_any(watches: Iterable[FdWatch], timeout_s: float, slow_exit: bool) -> None:
    """Sleep until any fd of any of ``watches`` is ready, or ``timeout_s`` passes; reads nothing."""
    poller = select.poll()
    for watch in watches:
        for fd, mask in watch.masks.items():
            poller.register(fd, mask)
    poller.poll(poll_ms(timeout_s, slow_exit))


def poll_ms(timeout_s: float, slow_exit: bool) -> int:
    """poll()'s timeout for a wait of ``timeout_s``; capped when an exit can only be seen by asking again."""
    ms = min(math.ceil(max(0.0, timeout_s) * 1000), _POLL_CAP_MS)
    return min(ms, _NO_PIDFD_POLL_MS) if slow_exit else ms
