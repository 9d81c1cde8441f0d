"""The referee's clock, in a module of its own: `TimeControl`, a seat's whole time control, and
`PartialTimeControl`, the settings a bot asks for of its own (a tournament's bots file, a stored tournament, a
ladder submission's bot.toml), each unset one taken from the whole. Like python-chess's ``Limit``: one type, its
constraints declared on it (``msgspec.Meta``), so msgspec checks a decoded one (JSON, TOML) and ``__post_init__``
a constructed one against the same bounds. The wire's clock (``protocol.messages.TimeControl``, the hello's
``time``) is made from it in one place, `TimeControl.to_wire`.

Kept out of the compiled ``seat.py`` (setup.py ``COMPILED``), whose classes are native.
"""

from __future__ import annotations

from typing import Annotated, Final

import msgspec
from msgspec import Meta

from protocol import messages as m
from referee.vocabulary.setting_error import check_declared, declared_minimums

__all__ = ["TIME_MINIMUMS", "PartialTimeControl", "TimeControl"]

# A deadline of 0 could never be met; a bank or an increment may be none.
Deadline = Annotated[int, Meta(ge=1, description="milliseconds, at least 1")]
Allowance = Annotated[int, Meta(ge=0, description="milliseconds, at least 0")]


class TimeControl(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Milliseconds: a deadline per decision, a start-up deadline, an optional bank with an increment.

    With a bank, a decision may run over ``move_ms`` by what is left in the bank (the overrun is taken from it),
    and every decision then adds ``increment_ms`` to the bank.
    """

    move_ms: Deadline = 1000
    startup_ms: Deadline = 5000
    bank_ms: Allowance = 0
    increment_ms: Allowance = 0

    def __post_init__(self) -> None:
        """The bounds declared above, for a clock made in Python: a `SettingError` naming the setting, which each
        front end words as its own (``--time-per-move``, ``time.move_ms``)."""
        _check(self)

    def over(self, own: PartialTimeControl) -> TimeControl:
        """This clock with a bot's own settings in place of the ones it gives (a `SettingError` for one that
        cannot work)."""
        return msgspec.structs.replace(self, **own.given())

    def to_wire(self) -> m.TimeControl:
        """The hello's ``time``: the one place the referee's clock becomes the wire's."""
        return m.TimeControl(
            move_ms=self.move_ms,
            startup_ms=self.startup_ms,
            bank_ms=self.bank_ms,
            increment_ms=self.increment_ms,
        )


class PartialTimeControl(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A bot's own time control: the `TimeControl` settings it gives, with the same bounds; the unset ones (None,
    left out of its JSON and TOML) are the match's, `TimeControl.over`."""

    move_ms: Deadline | None = None
    startup_ms: Deadline | None = None
    bank_ms: Allowance | None = None
    increment_ms: Allowance | None = None

    def __post_init__(self) -> None:
        """The bounds declared above, for a clock made in Python: a `SettingError` naming the setting, which each
        front end words as its own (``--time-per-move``, ``time.move_ms``)."""
        _check(self)

    def given(self) -> dict[str, int]:
        """The settings it gives, by name."""
        return {name: value for name in self.__struct_fields__ if (value := getattr(self, name)) is not None}


# The least each setting may be (ms), read from the type's constraints (the command line's ranges use them).
TIME_MINIMUMS: Final = declared_minimums(TimeControl)


def _check(clock: TimeControl | PartialTimeControl) -> None:
    check_declared(clock, "must be a whole number of milliseconds")
