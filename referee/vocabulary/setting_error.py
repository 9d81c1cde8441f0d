"""The error of a configuration value that checks itself (`referee.bots.isolation.Isolation`,
`referee.bots.time_control.TimeControl`): one shape, so that every front end names the setting in its own words;
and the bounds such a value's type declares (``Annotated[int, msgspec.Meta(ge=1)]``), read from the type, so that
msgspec's check of a decoded value, the check of one made in Python and the command line's ranges are one
statement."""

from __future__ import annotations

import functools
from typing import NamedTuple

import msgspec

__all__ = ["SettingError", "check_declared", "declared_minimums"]


class SettingError(ValueError):
    """A setting that cannot work. ``setting`` names it as its field does (``move_ms``, ``memory_mb``), ``value``
    is what was given and ``problem`` says what is wrong; the command line names the option (``--time-per-move``),
    ladder.toml its key (``time.move_ms``)."""

    def __init__(self, setting: str, value: object, problem: str) -> None:
        super().__init__(f"{setting} = {value!r}: {problem}")
        self.setting = setting
        self.value = value
        self.problem = problem


def _members(kind: msgspec.inspect.Type) -> list[msgspec.inspect.Type]:
    if isinstance(kind, msgspec.inspect.Metadata):
        return _members(kind.type)
    if isinstance(kind, msgspec.inspect.UnionType):
        return [member for part in kind.types for member in _members(part)]
    return [kind]


class _Bound(NamedTuple):
    whole: bool  # a whole number (else any real number)
    ge: float | None
    gt: float | None
    nullable: bool  # None is allowed too


@functools.cache
def _bounds(kind: type) -> dict[str, _Bound]:
    """Each numeric field with a least value, as declared."""
    info = msgspec.inspect.type_info(kind)
    assert isinstance(info, msgspec.inspect.StructType | msgspec.inspect.DataclassType), kind
    bounds = {}
    for field in info.fields:
        members = _members(field.type)
        nullable = any(isinstance(member, msgspec.inspect.NoneType) for member in members)
        for member in members:
            if not isinstance(member, msgspec.inspect.IntType | msgspec.inspect.FloatType):
                continue
            if member.ge is not None or member.gt is not None:
                whole = isinstance(member, msgspec.inspect.IntType)
                bounds[field.name] = _Bound(whole, member.ge, member.gt, nullable)
    return bounds


def declared_minimums(kind: type) -> dict[str, int]:
    """The least each whole-number field of ``kind`` (a msgspec Struct or a dataclass) may be, as its type
    declares it (``Annotated[int, Meta(ge=N)]``)."""
    return {name: int(bound.ge) for name, bound in _bounds(kind).items() if bound.whole and bound.ge is not None}


def check_declared(value: object, whole: str = "must be a whole number") -> None:
    """The bounds ``value``'s type declares, for a value made in Python (msgspec checks them itself only as it
    decodes): a `SettingError` naming the first field that breaks one, in field order; ``whole`` words a value
    that is no whole number."""
    kind: type = type(value)
    for name, bound in _bounds(kind).items():
        given = getattr(value, name)
        if given is None and bound.nullable:
            continue
        number = int if bound.whole else int | float
        if not isinstance(given, number) or isinstance(given, bool):
            raise SettingError(name, given, whole if bound.whole else "must be a number")
        if bound.ge is not None and given < bound.ge:
            least = f"at least {bound.ge}" if bound.whole else f"{bound.ge:g} or more"
            raise SettingError(name, given, f"must be {least}")
        if bound.gt is not None and not given > bound.gt:
            raise SettingError(name, given, f"must be above {bound.gt:g}")
