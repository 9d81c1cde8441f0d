"""What a seat answered and what the referee decided for it: the two records of the match's decision loop.

A `SeatAnswer` is what came back for one request (every seat's pass is asked at once and kept as one until its turn
comes); a `SeatDecision` is the action played at a seat, with the answer it came from, as the replay log records it
(``referee.match.Match._record``, the one place a decision is written).
"""

from __future__ import annotations

import msgspec

from protocol import messages as m
from referee.faults import Fault
from referee.rules import Action

__all__ = ["SeatAnswer", "SeatDecision"]


class SeatAnswer(msgspec.Struct, frozen=True):
    """The outcome of one request: the bot's answer or its fault, the wall time it took, the bot's lines ignored
    meanwhile (answers to older requests), the CPU time its control group used (None: not measured)."""

    request_id: int
    outcome: m.BotMessage | Fault
    spent_s: float
    ignored: int
    cpu_s: float | None


class SeatDecision(msgspec.Struct, frozen=True):
    """The action played at ``seat``; ``answer`` what its bot was asked and answered (None: the referee decided
    without asking), ``fallback`` whether the referee played it for the seat, ``replayed`` whether it was one of a
    resumed game's decisions, given (``kierki replay --from``)."""

    seat: int
    action: Action
    answer: SeatAnswer | None
    fallback: bool = False
    replayed: bool = False
