"""A bot's stdout read without blocking and cut into lines, in bounded memory whatever the bot writes.

Each read takes at most a longest line, its CR and its LF beyond what is buffered, so a 100 MB line costs bounded
memory. Once a line is known to be too long, ``take`` returns ``LineTooLong`` with its start, and the rest of it is
thrown away as it arrives, in 64 KiB reads (what follows its newline is kept, so the buffer never exceeds
64 KiB + ``max_line`` bytes).
"""

from __future__ import annotations

import os
from typing import Final

from referee.bots.pipe_results import LineTooLong

__all__ = ["BIG_READ", "StdoutLines"]

BIG_READ: Final = 65536  # bytes per read or write of a pipe when no line limit bounds it
_CR: Final = 13


class StdoutLines:
    """One bot's stdout: ``fill`` reads what is there, ``take`` hands out the next line."""

    __slots__ = ("_discarding", "_fd", "_max_line", "data", "eof")

    def __init__(self, fd: int, max_line: int) -> None:
        self._fd = fd  # non-blocking
        self._max_line = max_line
        self.data = bytearray()  # received and not yet taken
        self._discarding = False  # inside an over-long line, dropping bytes up to its newline
        self.eof = False  # the pipe reached its end (or the caller knows nobody holds it any more)

    def fill(self) -> bool:
        """Read what is there, up to the bound; True if bytes or the end of the pipe came."""
        data = self.data
        if self._discarding:  # every byte up to the newline is dropped at once: read big chunks
            size = BIG_READ
        else:  # a longest line, its CR and its LF (at least 1: a poll may ask with complete lines buffered)
            size = self._max_line + 2 - len(data)
            if size < 1:
                size = 1
        try:
            chunk = os.read(self._fd, size)
        except BlockingIOError:
            return False
        if not chunk:
            self.eof = True
        elif not self._discarding:
            data += chunk
        elif (end := chunk.find(b"\n")) >= 0:
            self._discarding = False
            data += chunk[end + 1 :]
        return True

    def drain(self) -> bool:
        """Read and drop a big chunk (the bot is being stopped: only keep its pipe moving); like ``fill``."""
        try:
            chunk = os.read(self._fd, BIG_READ)
        except BlockingIOError:
            return False
        if not chunk:
            self.eof = True
        return True

    def has_room(self) -> bool:
        """False while a complete or too-long line waits to be taken: reading more would only buffer more."""
        data = self.data
        return data.find(b"\n") < 0 and len(data) <= self._max_line + 1  # (``in`` first tries bytes as an int)

    def take(self) -> bytes | LineTooLong | None:
        """The next line without its newline, a too-long line's start, or None while no line is complete."""
        data = self.data
        end = data.find(b"\n")
        if end >= 0:
            if end > self._max_line and end - (data[end - 1] == _CR) > self._max_line:  # a CRLF's CR is free
                line: bytes | LineTooLong = LineTooLong(bytes(data[: self._max_line]))
            else:
                line = bytes(data[:end])
            del data[: end + 1]
            return line
        max_line = self._max_line
        if len(data) > max_line + 1 or (len(data) == max_line + 1 and data[-1] != _CR):
            cut = LineTooLong(bytes(data[:max_line]))
            data.clear()
            self._discarding = True
            return cut
        return None
