"""The fault policy: what a bot can do wrong, what each fault costs, and when a seat is forfeited.

Stated once here; the match applies it, the replay timeline checks a log against it, and the wire names the codes
(``protocol.messages.ErrorCode`` has the same values).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import msgspec

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


@dataclass(frozen=True)
class FaultPolicy:
    """``max_strikes`` faults forfeit a seat; a fault whose consequence is FORFEIT does so at once.

    A crash always forfeits: a bot that is gone cannot be asked again.
    """

    max_strikes: int = 3
    consequences: Mapping[FaultCode, Consequence] = field(default_factory=lambda: DEFAULT_CONSEQUENCES)

    def __post_init__(self) -> None:
        if self.max_strikes < 1:
            raise ValueError("max_strikes must be at least 1")
        merged = {**DEFAULT_CONSEQUENCES, **self.consequences, FaultCode.CRASH: Consequence.FORFEIT}
        object.__setattr__(self, "consequences", MappingProxyType(merged))

    def forfeits(self, code: FaultCode | str, strikes: int) -> bool:
        """Whether a fault of ``code`` that brings the seat to ``strikes`` strikes forfeits it."""
        return self.consequences.get(FaultCode(code)) is Consequence.FORFEIT or strikes >= self.max_strikes

    def to_json(self) -> dict[str, str]:
        return {code.value: consequence.value for code, consequence in self.consequences.items()}

    def __reduce__(self) -> tuple[type[FaultPolicy], tuple[int, dict[FaultCode, Consequence]]]:
        """Pickled as its plain parts (a mapping proxy cannot be): a tournament ships match configs to workers."""
        return (FaultPolicy, (self.max_strikes, dict(self.consequences)))
