"""The error of a configuration value that checks itself (`referee.bots.isolation.Isolation`,
`referee.bots.time_control.TimeControl`): one shape, so that every front end names the setting in its own words;
and the bounds such a value's type declares (``Annotated[int, msgspec.Meta(ge=1)]``), read from the type, so that
msgspec's check of a decoded value, the check of one made in Python and the command line's ranges are one
statement."""

from __future__ import annotations

import functools

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


@functools.cache
def _bounds(kind: type) -> dict[str, tuple[int, bool]]:
    """Each whole-number field with a least value: (that value, whether the field may also be None)."""
    info = msgspec.inspect.type_info(kind)
    assert isinstance(info, msgspec.inspect.StructType | msgspec.inspect.DataclassType), kind
    bounds = {}
    for field in info.fields:
        members = _members(field.type)
        for member in members:
            if isinstance(member, msgspec.inspect.IntType) and member.ge is not None:
                nullable = any(isinstance(m, msgspec.inspect.NoneType) for m in members)
                bounds[field.name] = (member.ge, nullable)
    return bounds


def declared_minimums(kind: type) -> dict[str, int]:
    """The least each whole-number field of ``kind`` (a msgspec Struct or a dataclass) may be, as its type
    declares it (``Annotated[int, Meta(ge=N)]``)."""
    return {name: least for name, (least, _) in _bounds(kind).items()}


def check_declared(value: object, whole: str = "must be a whole number") -> None:
    """The bounds ``value``'s type declares, for a value made in Python (msgspec checks them itself only as it
    decodes): a `SettingError` naming the first field that breaks one, in field order; ``whole`` words a value
    that is no whole number."""
    kind: type = type(value)
    for name, (least, nullable) in _bounds(kind).items():
        given = getattr(value, name)
        if given is None and nullable:
            continue
        if not isinstance(given, int) or isinstance(given, bool):
            raise SettingError(name, given, whole)
        if given < least:
            raise SettingError(name, given, f"must be at least {least}")
