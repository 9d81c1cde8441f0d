"""What a seat answered and what the referee decided for it: the two records of the match's decision loop.

A `SeatAnswer` is what came back for one request (every seat's pass is asked at once and kept as one until its turn
comes); a `SeatDecision` is the action played at a seat, with the answer it came from, as the replay log records it
(``referee.match.Match._record``, the one place a decision is written). Both are made on every decision: plain
slotted classes whose attributes are ``Final`` (read-only to mypy), compiled with the match (setup.py ``COMPILED``),
where they are native classes; a msgspec Struct or a frozen dataclass costs the compiled match loop about 4% more
instructions a decision (bench/instructions.py ``match_loop``).
"""

from __future__ import annotations

from typing import Final

from protocol import messages as m
from referee.rules import Action
from referee.vocabulary.faults import Fault

__all__ = ["SeatAnswer", "SeatDecision"]


class SeatAnswer:
    """The outcome of one request: the bot's answer or its fault, the wall time it took, the bot's lines ignored
    meanwhile (answers to older requests), the CPU time its control group used (None: not measured)."""

    __slots__ = ("cpu_s", "ignored", "outcome", "request_id", "spent_s")

    def __init__(
        self, request_id: int, outcome: m.BotMessage | Fault, spent_s: float, ignored: int, cpu_s: float | None
    ) -> None:
        self.request_id: Final = request_id
        self.outcome: Final = outcome
        self.spent_s: Final = spent_s
        self.ignored: Final = ignored
        self.cpu_s: Final = cpu_s


class SeatDecision:
    """The action played at ``seat``; ``answer`` what its bot was asked and answered (None: the referee decided
    without asking), ``fallback`` whether the referee played it for the seat, ``replayed`` whether it was one of a
    resumed game's decisions, given (``kierki replay --from``)."""

    __slots__ = ("action", "answer", "fallback", "replayed", "seat")

    def __init__(
        self, seat: int, action: Action, answer: SeatAnswer | None, fallback: bool = False, replayed: bool = False
    ) -> None:
        self.seat: Final = seat
        self.action: Final = action
        self.answer: Final = answer
        self.fallback: Final = fallback
        self.replayed: Final = replayed
