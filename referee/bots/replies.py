"""What one request to a bot brings back: the lines heard while it waited, and the reply; the words for a backlog.

``referee.bots.seat`` makes them (``BotSeat.converse``); a match, check-bot and the reports read them. They are
frozen msgspec Structs, not dataclasses: one of each is made per decision, at a fifth of a dataclass's cost.
"""

from __future__ import annotations

import msgspec

from protocol import codec
from protocol import messages as m
from referee.bots.pipe_results import Closed, Overflow, Timeout
from referee.vocabulary.faults import Fault

__all__ = ["Asked", "Heard", "Reply", "backlog_note"]


class Heard(msgspec.Struct, frozen=True):
    """One line the bot wrote while a request waited, and what it decoded to (both None: the line was too long)."""

    line: bytes  # without its newline; only the start of a line that was too long
    at_s: float  # seconds after the request was sent
    message: m.BotMessage | None = None
    error: codec.ProtocolError | None = None


class Reply(msgspec.Struct, frozen=True):
    """What one request brought back.

    ``outcome`` is the answer (the request's id and type) or the fault that ended the wait. ``heard`` holds every
    line read for the request, in order, the answer's own line last when there is one: answers to older requests
    (ignored) and, when the caller asked to read on, broken lines. ``ended`` is what ended a wait without an
    answer on the transport's side; ``late`` a line that came in the grace after a missed deadline; ``backlog``
    how many messages sent before the request the bot had still not read when the deadline passed (events
    arrive in bursts, and reading them is part of the time a bot has for the request after them).
    """

    outcome: m.BotMessage | Fault
    elapsed_s: float
    heard: tuple[Heard, ...] = ()
    ended: Timeout | Closed | Overflow | None = None
    late: Heard | None = None
    backlog: int = 0
    cpu_s: float | None = None  # the CPU time the bot's control group used for it (None: not measured)

    @property
    def answer(self) -> m.BotMessage | None:
        return None if isinstance(self.outcome, Fault) else self.outcome


class Asked(msgspec.Struct):
    """A request sent and not yet answered: when it went out, the time allowed, the lines heard for it so far.

    Timed on CPU time (``cpu_from`` >= 0, referee/bots/fairplay.py), ``allowed_s`` is CPU time from ``cpu_from``
    and ``wall_s`` the wall-clock cap; on the wall clock both are the same.
    """

    request: m.Request
    started: float
    allowed_s: float
    charged: bool  # the decision's own deadline, charged to the seat's clock (not the handshake's)
    heard: list[Heard] = msgspec.field(default_factory=list)
    cpu_from: int = -1  # the bot's CPU time (ns) its time counts from; -1: timed on the wall clock
    wall_s: float = 0.0
    cpu_s: float | None = None  # the CPU time it used, once its reply is known


def backlog_note(backlog: int) -> str:
    """The words for messages a bot had still to read when its deadline passed ("" for none)."""
    if backlog <= 0:
        return ""
    plural = "message" if backlog == 1 else "messages"
    return (
        f"your bot had {backlog} earlier {plural} still to read when the deadline passed "
        "(reading events is part of the time for the next request: read and parse them quickly)"
    )
