"""Reading a replay log: split it into lines and decode each line, once, straight into its record Struct.

Nothing here applies the rules: ``referee.replay.timeline`` re-applies the decisions and checks every derived
record. What this module checks is the file itself: complete lines of JSON, each a known record of the right
shape (``referee.replay.records``), a kierki header of a version this reader knows on line 1 and nowhere else,
and a ruleset the header's game and options can build.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from referee.replay.records import (
    FORMAT,
    RECORD_TYPES,
    VERSION,
    DealRecord,
    EndRecord,
    Header,
    MoonDecision,
    PassDecision,
    PlayDecision,
    Record,
    TrumpDecision,
    record_type,
)
from referee.rules import (
    Action,
    ChooseMoon,
    ChooseTrump,
    DealSpec,
    PassCards,
    PlayCard,
    RulesError,
    Ruleset,
    RulesetError,
    parse_card,
)
from referee.rules.cards import CardParseError, parse_trump

GZIP_MAGIC = b"\x1f\x8b"


class ReplayError(Exception):
    """A log that cannot be read, or that disagrees with the rules; ``line`` is the 1-based line at fault."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        return self.message if self.line is None else f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class Entry:
    """One line of the log: its number and its record."""

    line: int
    record: Record

    @property
    def type(self) -> str:
        return record_type(self.record)

    @property
    def raw(self) -> dict[str, Any]:
        """The record as JSON values, in the order and with the fields the writer writes them."""
        raw: dict[str, Any] = msgspec.to_builtins(self.record)
        return raw


@dataclass
class Replay:
    name: str
    header: Header
    ruleset: Ruleset
    entries: list[Entry]  # every record after the header, in order
    partial: bool = False  # a NAME.part file: the game was being played when it was read or was never finished
    warnings: list[str] = field(default_factory=list)

    @property
    def header_raw(self) -> dict[str, Any]:
        """The header as JSON values, as the writer writes it."""
        raw: dict[str, Any] = msgspec.to_builtins(self.header)
        return raw

    @property
    def line_count(self) -> int:
        return 1 + len(self.entries)

    @property
    def end(self) -> EndRecord | None:
        last = self.entries[-1].record if self.entries else None
        return last if isinstance(last, EndRecord) else None

    def deal_entries(self) -> list[Entry]:
        return [e for e in self.entries if isinstance(e.record, DealRecord)]

    def bot_name(self, seat: int) -> str:
        """The seat's name: the organiser's (``label``) when the header has one, else what the bot calls itself."""
        bots = {b.seat: b for b in self.header.bots}
        bot = bots.get(seat)
        if bot is None:
            return f"seat{seat}"
        return bot.label if bot.label is not None else bot.name

    def calls_itself(self, seat: int) -> str | None:
        """The name and version the seat's bot gave in its hello, when the seat also has the organiser's name."""
        bot = next((b for b in self.header.bots if b.seat == seat), None)
        if bot is None or bot.label is None:
            return None
        return f"{bot.name} {bot.version}".rstrip()


# --- parsing -----------------------------------------------------------------------------------------------

_decoder = msgspec.json.Decoder(Record)


def load(path: Path, *, strict: bool = True) -> Replay:
    """Read a log, plain or gzip-compressed.

    ``strict=False`` (for viewing) drops a last line cut off in the middle, with a warning."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror or error}") from None
    if data.startswith(GZIP_MAGIC):  # a compressed log (the ladder compresses old ones): by content, not by name
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise ReplayError(f"a damaged gzip file ({error}); it cannot be read") from None
    replay = parse(data, str(path), strict=strict)
    if path.name.endswith(".part"):
        replay.partial = True
        replay.warnings.insert(
            0,
            f"{path.name} is a partial log (.part): its game was still being played, or the match was killed "
            "before the game ended",
        )
    return replay


def parse(data: bytes, name: str = "<replay>", *, strict: bool = True) -> Replay:
    """Split the lines and decode each into its record (no rules are applied yet: that is the timeline's walk)."""
    if not data.strip():
        raise ReplayError("the file is empty: not a replay log")
    lines = data.split(b"\n")
    cut = lines[-1] != b""
    if not cut:
        lines.pop()
    warnings: list[str] = []
    header: Header | None = None
    ruleset: Ruleset | None = None
    entries: list[Entry] = []
    for number, text in enumerate(lines, 1):
        last = number == len(lines)
        text = text.rstrip(b"\r")
        if not text.strip():
            raise ReplayError("an empty line: every line of a replay log is one JSON record", number)
        try:
            record = _decoder.decode(text)
        except msgspec.ValidationError as error:
            raise ReplayError(_invalid(text, number, error), number) from None
        except msgspec.DecodeError as error:
            if last and cut:
                if not strict:
                    warnings.append(f"line {number} is cut off (the file ends in the middle of it) and was ignored")
                    break
                raise ReplayError(
                    "the line is cut off: the file ends in the middle of a record (it was truncated, or the match "
                    "was killed while writing it)",
                    number,
                ) from None
            hint = "; is this a kierki replay log (gameNNN.replay.jsonl)?" if number == 1 else ""
            raise ReplayError(f"not valid JSON ({error}){hint}", number) from None
        if number == 1:
            header = _check_header(record)
            try:
                ruleset = Ruleset.create(header.game, header.players, header.options)
            except (RulesError, RulesetError) as error:
                raise ReplayError(f"header: {error}", 1) from None
        elif isinstance(record, Header):
            raise ReplayError("a second header: a log holds one game and starts with its only header", number)
        else:
            entries.append(Entry(number, record))
    if header is None or ruleset is None:
        raise ReplayError("the file ends in the middle of its first line: not a complete replay log", 1)
    return Replay(name, header, ruleset, entries, warnings=warnings)


def _check_header(record: Record) -> Header:
    if not isinstance(record, Header) or record.format != FORMAT:
        raise ReplayError(f'not a kierki replay log: the first line is not a "{FORMAT}" header', 1)
    if record.version > VERSION:
        raise ReplayError(_newer(record.version), 1)
    return record


def _newer(version: object) -> str:
    return f"format version {version!r} is newer than this kierki reads (version {VERSION}): update kierki"


def _invalid(text: bytes, number: int, error: msgspec.ValidationError) -> str:
    """Why a line of valid JSON is not a record. Only a line that failed is decoded a second time, to say so."""
    raw = msgspec.json.decode(text)
    if number == 1:
        if not isinstance(raw, dict) or raw.get("type") != "header" or raw.get("format") != FORMAT:
            return f'not a kierki replay log: the first line is not a "{FORMAT}" header'
        version = raw.get("version")
        if not isinstance(version, int) or version > VERSION:
            return _newer(version)
    if not isinstance(raw, dict):
        return f"a record is a JSON object, not {type(raw).__name__}"
    kind = raw.get("type")
    if not isinstance(kind, str):
        return 'a record without a "type"'
    if kind not in RECORD_TYPES:
        return f"unknown record type {kind!r}"
    return f"{kind} record: {error}"


# --- from records to the rules core's values ---------------------------------------------------------------


def action_of(entry: Entry) -> Action:
    """The rules-core action a decision record names."""
    record = entry.record
    try:
        if isinstance(record, PlayDecision):
            return PlayCard(parse_card(record.card))
        if isinstance(record, PassDecision):
            return PassCards(tuple(parse_card(c) for c in record.cards))
        if isinstance(record, TrumpDecision):
            return ChooseTrump(parse_trump(record.suit))
        if isinstance(record, MoonDecision):
            return ChooseMoon(record.choice)
    except CardParseError as error:
        raise ReplayError(f"{entry.type} record: {error}", entry.line) from None
    raise ReplayError(f"a {entry.type} record is not a decision", entry.line)


def deal_spec(entry: Entry) -> DealSpec:
    record = entry.record
    assert isinstance(record, DealRecord)
    try:
        hands = tuple(tuple(parse_card(c) for c in hand) for hand in record.hands)
        kitty = tuple(parse_card(c) for c in record.kitty)
    except CardParseError as error:
        raise ReplayError(f"deal record: {error}", entry.line) from None
    return DealSpec(hands, kitty, record.dealer)
