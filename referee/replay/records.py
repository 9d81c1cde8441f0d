"""The replay log's records: one msgspec Struct per line type, tagged on ``"type"``. This *is* the format.

REPLAY.md documents these Structs field by field, ``referee/replay/schema.json`` is generated from them, the
writer encodes them and the reader decodes each line straight into one of them. Nothing else describes a record.

How a record is written follows from its Struct: fields in declaration order after the tag, every field written
unless it has a default and holds it (``omit_defaults``). So a field the log always carries has no default, and
the optional ones (``fallback``, ``replayed``, ``detail``, and header fields that older referees did not write)
appear only when set. A decision's ``ms`` is null when the referee decided without asking; it is absent only in
logs normalised without timing (the goldens of ``tests/regen_golden.py``).
"""

from __future__ import annotations

from typing import Any, Final, get_args

import msgspec

from referee.rules import DealKind, MoonOption
from referee.vocabulary.faults import Consequence, FaultCode
from referee.vocabulary.match_result import GameStatus

__all__ = [
    "DECISION_TYPES",
    "DERIVED_TYPES",
    "END_STATUSES",
    "FORMAT",
    "RECORD_TYPES",
    "VERSION",
    "BotRecord",
    "ClockRecord",
    "DealEndRecord",
    "DealRecord",
    "Decision",
    "Derived",
    "EndRecord",
    "ExchangeRecord",
    "FaultRecord",
    "GameEndRecord",
    "Header",
    "IsolationRecord",
    "LotteryPassRecord",
    "MoonDecision",
    "OutRecord",
    "PassDecision",
    "PlayDecision",
    "Record",
    "TrickRecord",
    "TrumpDecision",
    "record_type",
]

FORMAT: Final = "kierki-replay"
VERSION: Final = 2  # REPLAY.md documents this version; a reader refuses a newer one (1: Mersenne Twister deals)
END_STATUSES: Final = tuple(status.value for status in GameStatus)


class _Record(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="type"):
    pass


# --- the header ---------------------------------------------------------------------------------------------


class BotRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One seat's bot: the organiser's name for it (``label``), its name and version as it said in its hello (what
    it calls itself: any bot can say ``heuristic_bot``), and the command that ran it."""

    seat: int
    name: str
    version: str
    command: str
    label: str | None = None  # a tournament's NAME, a ladder's NAME@version; absent from a plain match's log


class IsolationRecord(msgspec.Struct, frozen=True, kw_only=True):
    """How the bots were isolated and timed (SECURITY.md): the sandbox, the control groups (``"v1"``, ``"v2"``,
    null for none), the clock their deadlines were judged on (``"cpu"``: each bot's own CPU time, with a
    wall-clock cap; ``"wall"``), whether a bot was frozen while not to move, which limit held its memory and its
    processes (``"cgroup"`` or ``"rlimit"``), and the uid bots ran as when it was not the referee's (null)."""

    sandbox: str
    cgroups: str | None
    clock: str
    freeze: bool
    memory: str
    processes: str
    bot_uid: int | None = None


class ClockRecord(msgspec.Struct, frozen=True, kw_only=True):
    """The match's time control, in milliseconds."""

    move_ms: int
    startup_ms: int
    bank_ms: int
    increment_ms: int


class Header(_Record, frozen=True, kw_only=True, tag="header"):
    """Line 1: the format, the game with every rule option, the seed, the fault policy and the bots."""

    format: str
    version: int
    referee: str | None = None  # absent only in normalised logs (the goldens)
    started: str | None = None  # likewise
    protocol: int
    game: str
    players: int
    options: dict[str, Any]
    seed: str | int  # text from format 2 on (format 1 wrote a number)
    game_number: int  # with the seed, it fixes the deals
    deals_file: str | None
    max_strikes: int | None = None  # absent in logs of referees older than the fault policy
    consequences: dict[FaultCode, Consequence] | None = None  # likewise
    given_deals: int
    bots: list[BotRecord]
    time: ClockRecord
    isolation: IsolationRecord | None = None  # absent in logs of referees before fair play, and in the goldens


# --- decisions: what the bots chose (or the referee for them) ------------------------------------------------


class PlayDecision(_Record, frozen=True, kw_only=True, tag="play"):
    """A card played."""

    seat: int
    card: str
    ms: float | msgspec.UnsetType | None = msgspec.UNSET
    fallback: bool = False
    replayed: bool = False
    ignored: int = 0  # lines the bot wrote for other requests while this one waited (answers to old ids)
    cpu_ms: float | msgspec.UnsetType = msgspec.UNSET  # CPU time of the bot's control group for it (fair play)


class PassDecision(_Record, frozen=True, kw_only=True, tag="pass"):
    """The cards a seat passed, as it listed them."""

    seat: int
    cards: list[str]
    ms: float | msgspec.UnsetType | None = msgspec.UNSET
    fallback: bool = False
    replayed: bool = False
    ignored: int = 0  # lines the bot wrote for other requests while this one waited (answers to old ids)
    cpu_ms: float | msgspec.UnsetType = msgspec.UNSET  # CPU time of the bot's control group for it (fair play)


class TrumpDecision(_Record, frozen=True, kw_only=True, tag="trump"):
    """The trump suit named (C, D, H, S, or NT for no trump)."""

    seat: int
    suit: str
    ms: float | msgspec.UnsetType | None = msgspec.UNSET
    fallback: bool = False
    replayed: bool = False
    ignored: int = 0  # lines the bot wrote for other requests while this one waited (answers to old ids)
    cpu_ms: float | msgspec.UnsetType = msgspec.UNSET  # CPU time of the bot's control group for it (fair play)


class MoonDecision(_Record, frozen=True, kw_only=True, tag="moon"):
    """How a seat that shot the moon scores it."""

    seat: int
    choice: MoonOption
    ms: float | msgspec.UnsetType | None = msgspec.UNSET
    fallback: bool = False
    replayed: bool = False
    ignored: int = 0  # lines the bot wrote for other requests while this one waited (answers to old ids)
    cpu_ms: float | msgspec.UnsetType = msgspec.UNSET  # CPU time of the bot's control group for it (fair play)


class FaultRecord(_Record, frozen=True, kw_only=True, tag="fault"):
    """A bot's fault; the next record is the fallback decision the referee played for it."""

    seat: int
    code: FaultCode
    message: str
    strikes: int
    forfeited: bool


# --- derived records: what the rules made of the decisions -------------------------------------------------


class DealRecord(_Record, frozen=True, kw_only=True, tag="deal"):
    """A new deal, with every hand in dealing order."""

    deal: int
    kind: DealKind
    dealer: int
    hands: list[list[str]]
    kitty: list[str]
    pass_offset: int


class ExchangeRecord(_Record, frozen=True, kw_only=True, tag="exchange"):
    """The passed cards change hands."""

    pass_offset: int
    passed: list[list[str]]


class LotteryPassRecord(_Record, frozen=True, kw_only=True, tag="lottery_pass"):
    """In the loteryjka, a seat with no card that fits a column passes."""

    seat: int


class TrickRecord(_Record, frozen=True, kw_only=True, tag="trick"):
    """A complete trick; ``winner`` is null when every led-suit card was cancelled."""

    number: int
    leader: int
    cards: list[str]
    winner: int | None
    collected: list[str]


class OutRecord(_Record, frozen=True, kw_only=True, tag="out"):
    """In the loteryjka, a seat that played its last card: its place and bonus."""

    seat: int
    place: int
    bonus: int


class DealEndRecord(_Record, frozen=True, kw_only=True, tag="deal_end"):
    """A deal's scores and the totals after it."""

    deal: int
    scores: list[int]
    totals: list[int]
    early: bool


class GameEndRecord(_Record, frozen=True, kw_only=True, tag="game_end"):
    """The result: totals and places (1 is best) per seat."""

    totals: list[int]
    places: list[int]


class EndRecord(_Record, frozen=True, kw_only=True, tag="end"):
    """The last line: complete, stopped (after the deals the referee was asked to play), interrupted or error,
    with what happened."""

    status: GameStatus
    detail: str = ""
    # Per seat, the CPU time (ms) its bot's control group used in this game; absent without control groups.
    cpu_ms: list[float | None] | msgspec.UnsetType = msgspec.UNSET


Decision = PlayDecision | PassDecision | TrumpDecision | MoonDecision
Derived = DealRecord | ExchangeRecord | LotteryPassRecord | TrickRecord | OutRecord | DealEndRecord | GameEndRecord
Record = Header | Decision | FaultRecord | Derived | EndRecord


def record_type(record: Record) -> str:
    """The ``"type"`` tag a record is written with."""
    return str(record.__struct_config__.tag)


def _tags(union: Any) -> frozenset[str]:
    return frozenset(str(cls.__struct_config__.tag) for cls in get_args(union))


DECISION_TYPES: Final = _tags(Decision)
DERIVED_TYPES: Final = _tags(Derived)
RECORD_TYPES: Final = _tags(Record)
