"""What reading and writing a bot's pipes returns (the transport's calls, ``referee.bots.process``), and the
transport's own errors.

A bot misbehaving is never an exception here: a line, a timeout, an end of output, a line too long, input it
stopped reading are all results a caller branches on. Exceptions are for the referee's side: a command that
cannot start, a process that survives SIGKILL.

The results are frozen msgspec Structs, not dataclasses: one is made for every line a bot sends, and a Struct
costs a fifth of a frozen dataclass to create (msgspec is used here as a record type only; nothing is encoded).
"""

from __future__ import annotations

import msgspec

__all__ = [
    "BotProcessError",
    "BotStartError",
    "Closed",
    "FlushResult",
    "Flushed",
    "Line",
    "LineResult",
    "LineTooLong",
    "Overflow",
    "Timeout",
]


class BotProcessError(RuntimeError):
    """Something went wrong running a bot process (not the bot misbehaving: that is a result)."""


class BotStartError(BotProcessError):
    """The bot's command could not be started; the message says why and what to fix."""


class Line(msgspec.Struct, frozen=True):
    """One complete line from the bot's stdout, without its newline."""

    data: bytes
    elapsed_s: float  # from the request being fully written (or from the call) to the read


class Timeout(msgspec.Struct, frozen=True):
    """The deadline passed before a line (or the flush) completed."""


class Closed(msgspec.Struct, frozen=True):
    """The bot's stdout reached EOF or the bot exited; nothing more will come."""


class LineTooLong(msgspec.Struct, frozen=True):
    """A line exceeded ``max_line_bytes``; only its start is kept, the rest is discarded."""

    prefix: bytes


class Overflow(msgspec.Struct, frozen=True):
    """The bot stopped reading stdin and our pending output passed the cap; treat as Closed."""

    pending_bytes: int


class Flushed(msgspec.Struct, frozen=True):
    """Everything sent so far has been written into the bot's stdin pipe."""


LineResult = Line | Timeout | Closed | LineTooLong | Overflow
FlushResult = Flushed | Timeout | Closed | Overflow
