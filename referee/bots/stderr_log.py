"""A bot's stderr: copied to its log file up to a cap, then read and dropped; its last few KiB kept in memory.

A chatty bot must never block on a full pipe (which would look like a timeout) nor fill the disk, so the
transport reads stderr whenever it is ready and hands each chunk here; only the log's cap is written.
"""

from __future__ import annotations

from typing import BinaryIO

__all__ = ["TAIL_LINES", "StderrLog", "last_lines"]

_TAIL_BYTES = 4096  # the end of the bot's stderr kept in memory: its last words explain a failure
TAIL_LINES = 6  # the lines of a bot's stderr a failure report shows (a failed start, check-bot, a ladder's validation)


def last_lines(data: bytes) -> list[str]:
    """The last ``TAIL_LINES`` lines of the end of a bot's stderr, as text (not yet escaped for a terminal)."""
    return data.decode("utf-8", "replace").splitlines()[-TAIL_LINES:]


class StderrLog:
    """Where one bot's stderr goes: ``take`` each chunk read, ``tail`` for a report, ``close`` at the end."""

    def __init__(self, log: BinaryIO, cap_bytes: int) -> None:
        self._log = log
        self._cap = cap_bytes
        self._logged = 0
        self._truncated = False
        self._tail = bytearray()
        self.error: str | None = None  # why the log stopped (a full disk), if it did

    def take(self, chunk: bytes) -> None:
        """Log ``chunk`` up to the cap (a note marks the cut) and keep the end of it in the tail."""
        self._tail += chunk[-_TAIL_BYTES:]
        del self._tail[:-_TAIL_BYTES]
        room = self._cap - self._logged
        try:
            if room > 0:
                kept = chunk[:room]
                self._log.write(kept)
                self._logged += len(kept)
            if len(chunk) > room and not self._truncated:
                self._truncated = True
                self._log.write(f"\n[stderr truncated after {self._cap} bytes]\n".encode())
        except OSError as error:
            # A full disk (a bot may have filled it) stops this log, never the match: the bytes are still read.
            self.error = f"the stderr log stopped: {error.strerror or error}"
            self._logged = self._cap
            self._truncated = True

    def tail(self) -> bytes:
        """The last bytes taken (a few KiB, past the log's cap too)."""
        return bytes(self._tail)

    def close(self) -> None:
        self._log.close()
