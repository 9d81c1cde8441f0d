"""A seat's time control, in a module of its own: plain data that the command line, ladder.toml and tournaments
build and read (its class attributes are the options' defaults), kept out of the compiled ``seat.py`` (setup.py
``COMPILED``), whose classes are native and have no such attributes."""

from __future__ import annotations

from dataclasses import dataclass

from protocol import messages as m
from referee.setting_error import SettingError

__all__ = ["TIME_MINIMUMS", "TimeControl"]

# The least each setting may be (ms): a deadline of 0 could never be met; a bank or an increment may be none.
TIME_MINIMUMS = {"move_ms": 1, "startup_ms": 1, "bank_ms": 0, "increment_ms": 0}


@dataclass(frozen=True)
class TimeControl:
    """Milliseconds: a deadline per decision, a start-up deadline, an optional bank with an increment.

    With a bank, a decision may run over ``move_ms`` by what is left in the bank (the overrun is taken from it),
    and every decision then adds ``increment_ms`` to the bank.
    """

    move_ms: int = 1000
    startup_ms: int = 5000
    bank_ms: int = 0
    increment_ms: int = 0

    def __post_init__(self) -> None:
        """The one check of a time control, whoever makes it (the options bound theirs to the same minimums)."""
        for name, least in TIME_MINIMUMS.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise SettingError(name, value, "must be a whole number of milliseconds")
            if value < least:
                raise SettingError(name, value, f"must be at least {least}")

    def to_wire(self) -> m.TimeControl:
        return m.TimeControl(
            move_ms=self.move_ms,
            startup_ms=self.startup_ms,
            bank_ms=self.bank_ms,
            increment_ms=self.increment_ms,
        )
