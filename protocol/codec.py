"""One message <-> one line of bytes, and errors a bot author can act on.

A good line costs one msgspec call with a decoder built once at import. Only when that call fails is the line
looked at again, step by step (UTF-8? JSON? an object? a "type"? a known type?), so the error says what was
wrong in a bot author's terms and how to fix it. The referee forwards that text in the ``error`` event, so it
is often the only debugging help a bot author gets.

Whatever bytes a bot writes, ``decode_bot_line`` raises ``ProtocolError`` and nothing else: a bot must never be
able to crash the referee.
"""

from __future__ import annotations

import functools
import re
import typing
from typing import Final

import msgspec
import msgspec.inspect as mi

from protocol.messages import CARD_PATTERN, BotMessage, ErrorEventV1, RefereeMessage

__all__ = [
    "MAX_BOT_LINE_BYTES",
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "ProtocolError",
    "decode_bot_line",
    "decode_referee_line",
    "encode",
    "encode_answer",
]

PROTOCOL_VERSION: Final = 2
"""The newest protocol version, the one ``hello`` names; the referee speaks every version from 1 up to it."""
PROTOCOL_VERSIONS: Final = (1, 2)
"""The versions a bot may answer ``hello`` with. Protocol 2 differs from 1 in the ``error`` event alone: it names
the request concerned in ``request_id``, where protocol 1 wrote ``id`` (PROTOCOL.md section 4)."""
MAX_BOT_LINE_BYTES: Final = 4096
"""Longest line the referee accepts from a bot, not counting the line end ("\\n" or "\\r\\n")."""

_ENCODER: Final = msgspec.json.Encoder()
_BOT_DECODER: Final[msgspec.json.Decoder[BotMessage]] = msgspec.json.Decoder(BotMessage)

_PREVIEW_CHARS: Final = 60
_STDOUT_HINT: Final = "Print only protocol messages on stdout, one JSON object per line, and write logs to stderr."
_EXAMPLE_ANSWER: Final = '{"type": "play", "id": 7, "card": "QS"}'


class ProtocolError(ValueError):
    """A line that is not a valid message; ``str(error)`` says what was wrong and what to do about it.

    ``message_type`` and ``message_id`` are whatever the line claimed, when it got that far, so the referee can
    still tell a late answer (an old id) from a broken answer to the current request. ``protocol`` is the
    version a ``hello`` claimed when that hello failed to decode, so a bot of another protocol version is
    reported as a version mismatch rather than as malformed.
    """

    def __init__(
        self,
        problem: str,
        hint: str,
        *,
        line_number: int | None = None,
        message_type: str | None = None,
        message_id: int | None = None,
        protocol: int | None = None,
    ) -> None:
        self.problem = problem
        self.hint = hint
        self.line_number = line_number
        self.message_type = message_type
        self.message_id = message_id
        self.protocol = protocol
        where = f"line {line_number}: " if line_number is not None else ""
        super().__init__(f"{where}{problem}. Hint: {hint}")


def encode(msg: RefereeMessage | ErrorEventV1) -> bytes:
    """One referee message as one line of compact JSON ending in ``b"\\n"`` (JSON strings escape newlines)."""
    return _ENCODER.encode(msg) + b"\n"


def encode_answer(msg: BotMessage) -> bytes:
    """One bot answer as one line; for fake bots and tests, which must speak exactly what bots speak."""
    return _ENCODER.encode(msg) + b"\n"


def decode_bot_line(line: bytes, *, line_number: int | None = None) -> BotMessage:
    """Decode one line a bot wrote (with or without its line end); raise only ``ProtocolError``.

    ``line_number`` (the bot's n-th line, when the caller counts) only prefixes the error message.
    """
    length = len(line) - _line_end_length(line)
    if length > MAX_BOT_LINE_BYTES:
        raise ProtocolError(
            f"the line is {length} bytes long, the limit is {MAX_BOT_LINE_BYTES} bytes; it starts with "
            f"{_preview(line)}",
            'End every message with "\\n" and send one compact JSON object per line.',
            line_number=line_number,
        )
    try:
        return _BOT_DECODER.decode(line)
    except (msgspec.DecodeError, RecursionError) as error:
        raise _explain(line, error, _BOT_SIDE, line_number) from None


def decode_referee_line(line: bytes, *, line_number: int | None = None) -> RefereeMessage:
    """Decode one line the referee wrote, for tests, fake bots and replay tools; raise only ``ProtocolError``.

    Unknown fields are ignored (a newer referee may add some); an unknown message type is an error, which a
    caller that wants to skip those can catch and check ``message_type`` on.
    """
    try:
        return _referee_decoder().decode(line)
    except (msgspec.DecodeError, RecursionError) as error:
        try:  # an "error" event of protocol 1 (the request concerned in "id"): read as this protocol's
            return msgspec.json.decode(line, type=ErrorEventV1).current()
        except (msgspec.DecodeError, RecursionError):
            pass
        raise _explain(line, error, _REFEREE_SIDE, line_number) from None


@functools.cache
def _referee_decoder() -> msgspec.json.Decoder[RefereeMessage]:
    """Built on first use: the referee never decodes its own messages (tests, fake bots and ``kierki play`` do), and
    building it walks every message type (about 0.8 ms at each start of ``kierki``)."""
    return msgspec.json.Decoder(RefereeMessage)


# --- the slow path: explaining a bad line ------------------------------------------------------------------


class _Side:
    """What differs between explaining a bot's line and a referee's line. (A plain class: a dataclass would cost
    more at import than everything else here.)"""

    __slots__ = ("has_fields", "noun", "sender", "structs")

    def __init__(self, structs: dict[str, type[msgspec.Struct]], noun: str, sender: str, has_fields: str) -> None:
        self.structs = structs
        self.noun = noun  # what a message of this side is called in hints: "answer" or "message"
        self.sender = sender
        self.has_fields = has_fields  # answers must have exactly their fields; referee messages may grow


def _tagged(union: object) -> dict[str, type[msgspec.Struct]]:
    structs: dict[str, type[msgspec.Struct]] = {}
    for cls in typing.get_args(union):
        tag = cls.__struct_config__.tag
        assert isinstance(tag, str), cls
        structs[tag] = cls
    return structs


_BOT_SIDE: Final = _Side(_tagged(BotMessage), "answer", "a bot", "has exactly these fields")
_REFEREE_SIDE: Final = _Side(_tagged(RefereeMessage), "message", "the referee", "has these fields")


def _explain(line: bytes, error: Exception, side: _Side, line_number: int | None) -> ProtocolError:
    """Find the first thing wrong with ``line``, which ``error`` came from decoding it."""
    body = line[: len(line) - _line_end_length(line)]

    def fail(problem: str, hint: str, **claimed: typing.Any) -> ProtocolError:
        return ProtocolError(problem, hint, line_number=line_number, **claimed)

    try:
        body.decode("utf-8")
    except UnicodeDecodeError as bad:
        return fail(
            f"the line is not valid UTF-8 (byte {bad.start} is 0x{body[bad.start]:02x}): {_preview(body)}",
            "Write your output as UTF-8 text.",
        )
    if not body.strip():
        return fail(
            'empty line, expected a JSON object with a "type" field',
            "Do not print blank lines: every line on stdout must be one message.",
        )
    try:
        value = msgspec.json.decode(body)
    except RecursionError:
        return fail(f"the JSON is nested too deeply: {_preview(body)}", _STDOUT_HINT)
    except msgspec.ValidationError:
        # Valid JSON holding a number msgspec cannot represent (1e400): the typed error has the path.
        return fail(f"invalid message: {error}", f"Send a message such as {_EXAMPLE_ANSWER}.")
    except msgspec.DecodeError as bad:
        return fail(f"not valid JSON ({bad}): {_preview(body)}", _STDOUT_HINT)
    if not isinstance(value, dict):
        return fail(
            f'expected a JSON object with a "type" field, got {_describe_value(value)}',
            f"Send one JSON object per line, such as {_EXAMPLE_ANSWER}.",
        )
    raw_id = value.get("id")
    claimed_id = raw_id if isinstance(raw_id, int) and not isinstance(raw_id, bool) else None
    if "type" not in value:
        return fail(
            f'the JSON object has no "type" field: {_preview(body)}',
            f"Every message names its type, such as {_EXAMPLE_ANSWER}. {_known_types(side)}.",
            message_id=claimed_id,
        )
    tag = value["type"]
    if not isinstance(tag, str):
        return fail(
            f'"type" must be a string, got {_describe_value(tag)}',
            f"{_known_types(side)}.",
            message_id=claimed_id,
        )
    cls = side.structs.get(tag)
    if cls is None:
        import difflib  # the slow path only

        close = difflib.get_close_matches(tag, side.structs, n=1)
        guess = f' (did you mean "{close[0]}"?)' if close else ""
        return fail(
            f'unknown message type "{_clip(tag)}"{guess}',
            f"{_known_types(side)}.",
            message_type=tag,
            message_id=claimed_id,
        )
    claimed_protocol = value.get("protocol")
    if (
        side is _BOT_SIDE
        and tag == "hello"
        and isinstance(claimed_protocol, int)
        and not isinstance(claimed_protocol, bool)
        and claimed_protocol not in PROTOCOL_VERSIONS
    ):
        return fail(
            f"the bot speaks protocol version {claimed_protocol}, this referee speaks versions {_versions()} ({error})",
            f"Use a referee for protocol version {claimed_protocol}, or make the bot follow "
            f"PROTOCOL.md version {PROTOCOL_VERSION}.",
            message_type=tag,
            message_id=claimed_id,
            protocol=claimed_protocol,
        )
    small = _small_card(value)
    guess = f' (did you mean "{small.upper()}"?)' if small is not None else _field_guess(str(error), cls)
    return fail(
        f'invalid "{tag}" {side.noun}: {error}{guess}',
        _CARD_CASE_HINT if small is not None else _field_hint(tag, f"{side.noun} {side.has_fields}", cls),
        message_type=tag,
        message_id=claimed_id,
    )


_CARD: Final = re.compile(CARD_PATTERN)


_CARD_CASE_HINT: Final = 'Write cards in capital letters, rank then suit: "QS", "TH", "2C", not "qs".'


def _small_card(value: dict[str, typing.Any]) -> str | None:
    """The first card of an answer written in small letters ("qs"), the commonest bad card; None if none is."""
    for key in ("card", "cards"):
        found = value.get(key)
        for item in found if isinstance(found, list) else [found]:
            if isinstance(item, str) and not _CARD.match(item) and _CARD.match(item.upper()):
                return item
    return None


def _versions() -> str:
    """The versions this referee speaks, for messages: "1 and 2"."""
    return " and ".join(str(v) for v in PROTOCOL_VERSIONS)


def _line_end_length(line: bytes) -> int:
    """The line end's bytes: "\r\n" or "\n", or a lone "\r" left when a transport has cut the "\n" off."""
    if line.endswith(b"\r\n"):
        return 2
    return 1 if line.endswith((b"\n", b"\r")) else 0


def _clip(text: str) -> str:
    return text if len(text) <= _PREVIEW_CHARS else text[:_PREVIEW_CHARS] + "..."


def _preview(data: bytes) -> str:
    """The start of a line as readable text, so the author sees what the referee actually received."""
    return "`" + _clip(data[: _PREVIEW_CHARS * 4].decode("utf-8", "backslashreplace")) + "`"


def _describe_value(value: object) -> str:
    preview = _preview(msgspec.json.encode(value))
    if isinstance(value, dict):
        return f"an object {preview}"
    if isinstance(value, list):
        return f"an array {preview}"
    if isinstance(value, str):
        return f"a string {preview}"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"a number {preview}"
    return f"a value {preview}"


def _known_types(side: _Side) -> str:
    names = [f'"{tag}"' for tag in side.structs]
    return f"{side.sender.capitalize()} sends only these types: {', '.join(names)}"


_UNKNOWN_FIELD = re.compile(r"unknown field `(.*)`")


def _field_guess(error: str, cls: type[msgspec.Struct]) -> str:
    """Suggest the field a misspelt one probably meant: typos are the commonest unknown field."""
    found = _UNKNOWN_FIELD.search(error)
    if found is None:
        return ""
    names = [field.encode_name for field in _struct_info(cls).fields]
    import difflib

    close = difflib.get_close_matches(found.group(1), names, n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""


@functools.cache
def _struct_info(cls: type[msgspec.Struct]) -> mi.StructType:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return info


@functools.cache
def _field_hint(tag: str, what: str, cls: type[msgspec.Struct]) -> str:
    """Every field of the message and what it must hold, built from the Struct so it cannot go stale."""
    parts = [f'"type": "{tag}"']
    parts += [f'"{f.encode_name}": {_describe_type(f.type)}' for f in _struct_info(cls).fields]
    return f'A "{tag}" {what}: {", ".join(parts)}.'


def _describe_type(kind: mi.Type) -> str:
    match kind:
        case mi.Metadata(type=inner):  # a description only: say what the value inside must be
            return _describe_type(inner)
        case mi.StrType(pattern=pattern) if pattern == CARD_PATTERN:
            return 'a card such as "QS" (rank 2-9 T J Q K A, then suit C D H S)'
        case mi.StrType():
            return "a string"
        case mi.BoolType():
            return "true or false"
        case mi.IntType(ge=ge):
            return "an integer" if ge is None else f"an integer >= {ge}"
        case mi.LiteralType(values=values):
            return "one of " + ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in values)
        case mi.NoneType():
            return "null"
        case mi.UnionType(types=types):
            return " or ".join(_describe_type(t) for t in types)
        case mi.ListType(item_type=item) | mi.VarTupleType(item_type=item):
            if isinstance(item, mi.Metadata):
                item = item.type
            if isinstance(item, mi.StrType) and item.pattern == CARD_PATTERN:
                return 'a list of cards such as ["QS", "TH", "2C"]'
            return f"a list, each item {_describe_type(item)}"
        case mi.TupleType(item_types=items):
            return f"a list of {len(items)} items"
        case _:
            return "an object"
