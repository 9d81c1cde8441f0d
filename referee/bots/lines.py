"""A bot's stdout cut into lines in bounded memory, whatever it writes.

The transport reads at most ``read_size()`` bytes at a time: a longest line, its CR and its LF beyond what is
buffered, so a 100 MB line costs bounded memory. Once a line is known to be too long, ``take`` returns
``LineTooLong`` with its start, and the rest of it is thrown away as it arrives, in 64 KiB reads (what follows its
newline is kept, so the buffer never exceeds 64 KiB + ``max_line_bytes``).
"""

from __future__ import annotations

from referee.bots.results import LineTooLong

__all__ = ["BIG_READ", "LineBuffer"]

BIG_READ = 65536  # bytes per read of a pipe when no line limit bounds it (here: inside a too-long line)
_CR = 13


class LineBuffer:
    """Bytes in (``feed``), complete lines out (``take``); a line longer than ``max_line`` bytes is cut off."""

    __slots__ = ("_discarding", "_max_line", "data")

    def __init__(self, max_line: int) -> None:
        self._max_line = max_line
        self.data = bytearray()  # received and not yet taken
        self._discarding = False  # inside an over-long line, dropping bytes up to its newline

    def read_size(self) -> int:
        """How many bytes the next read may take."""
        if self._discarding:
            return BIG_READ  # every byte up to the newline is dropped at once: read big chunks
        return max(1, self._max_line + 2 - len(self.data))  # a longest line, its CR and its LF

    def has_room(self) -> bool:
        """False while a complete or too-long line waits to be taken: reading more would only buffer more."""
        data = self.data
        return b"\n" not in data and len(data) <= self._max_line + 1

    def feed(self, chunk: bytes) -> None:
        """Add bytes read from the bot; inside a too-long line, those up to its newline are dropped."""
        if self._discarding:
            end = chunk.find(b"\n")
            if end < 0:
                return
            self._discarding = False
            chunk = chunk[end + 1 :]
        self.data += chunk

    def take(self) -> bytes | LineTooLong | None:
        """The next line without its newline, a too-long line's start, or None while no line is complete."""
        data = self.data
        max_line = self._max_line
        end = data.find(b"\n")
        if end >= 0:
            if end - (end > 0 and data[end - 1] == _CR) > max_line:  # the limit does not count a CRLF's CR
                line: bytes | LineTooLong = LineTooLong(bytes(data[:max_line]))
            else:
                line = bytes(data[:end])
            del data[: end + 1]
            return line
        if len(data) > max_line + 1 or (len(data) == max_line + 1 and data[-1] != _CR):
            cut = LineTooLong(bytes(data[:max_line]))
            data.clear()
            self._discarding = True
            return cut
        return None

    def clear(self) -> None:
        self.data.clear()
