"""The fault policy: what a bot can do wrong, what each fault costs, and when a seat is forfeited.

Stated once here; the match applies it, the replay timeline checks a log against it, and the wire names the codes
(``protocol.messages.ErrorCode`` has the same values).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated

import msgspec
from msgspec import Meta

__all__ = ["DEFAULT_CONSEQUENCES", "Consequence", "Fault", "FaultCode", "FaultPolicy"]


class FaultCode(enum.StrEnum):
    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    MALFORMED = "malformed"
    WRONG_TYPE = "wrong_type"
    CRASH = "crash"


class Consequence(enum.StrEnum):
    FALLBACK = "fallback"  # the referee plays its fallback for the seat and counts a strike
    FORFEIT = "forfeit"  # the seat is played by the fallback to the end of the match


DEFAULT_CONSEQUENCES: Mapping[FaultCode, Consequence] = MappingProxyType(
    {code: Consequence.FORFEIT if code is FaultCode.CRASH else Consequence.FALLBACK for code in FaultCode}
)


class Fault(msgspec.Struct, frozen=True):
    """One thing a bot did wrong: its code and a message that says what and what to do about it."""

    code: FaultCode
    message: str


class FaultPolicy(msgspec.Struct, frozen=True):
    """``max_strikes`` faults forfeit a seat; a fault whose consequence is FORFEIT does so at once.

    A crash always forfeits: a bot that is gone cannot be asked again. ``consequences`` may name only the codes
    that differ from `DEFAULT_CONSEQUENCES`; the policy holds every code (plain data: a match's configuration is
    shipped to other processes and machines as it is).
    """

    max_strikes: Annotated[int, Meta(ge=1)] = 3
    consequences: dict[FaultCode, Consequence] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.max_strikes < 1:  # the bound declared on the field, for a policy made in Python
            raise ValueError("max_strikes must be at least 1")
        merged = {**DEFAULT_CONSEQUENCES, **self.consequences, FaultCode.CRASH: Consequence.FORFEIT}
        msgspec.structs.force_setattr(self, "consequences", merged)

    def forfeits(self, code: FaultCode | str, strikes: int) -> bool:
        """Whether a fault of ``code`` that brings the seat to ``strikes`` strikes forfeits it."""
        return self.consequences.get(FaultCode(code)) is Consequence.FORFEIT or strikes >= self.max_strikes
