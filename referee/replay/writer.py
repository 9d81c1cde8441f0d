"""The replay log: one JSON-lines file per game, documented in REPLAY.md.

The log holds the header (versions, game, every rule option, seed or deals, the bots), every decision with the
seat and the time it took (and whether the referee played it as a fallback), every fault, and the records the
rules core derives from the decisions (deals with all hands, exchanges, automatic passes, tricks, deal scores,
the result). Re-applying the decisions to a fresh state must reproduce the derived records exactly: that is what
``kierki replay --verify`` checks.

A log is written to ``NAME.part`` and renamed into place only when the game is over, so a crash can never leave a
file that looks complete; a game stopped by an error or Ctrl-C ends with an ``end`` record whose status says so.
"""

from __future__ import annotations

import datetime
import functools
import importlib.metadata
import os
from pathlib import Path
from typing import IO, Any

import msgspec

from referee.rules import (
    Action,
    CardPlayed,
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealStarted,
    Event,
    GameEnded,
    LotteryPassed,
    MoonShot,
    PassCards,
    PassesExchanged,
    PlayCard,
    PlayerOut,
    TrickEnded,
    TrumpChosen,
    card_name,
)
from referee.rules.cards import SUIT_LETTERS, Card

FORMAT = "kierki-replay"
VERSION = 1  # REPLAY.md documents this version; a reader refuses a newer one

Record = dict[str, Any]


def _names(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [card_name(c) for c in cards]


def _suit(suit: int | None) -> str:
    return "NT" if suit is None else SUIT_LETTERS[suit]


def event_record(event: Event) -> Record | None:
    """The record a core event derives, or None for events that a decision record already says."""
    if isinstance(event, DealStarted):
        return {
            "type": "deal",
            "deal": event.deal,
            "kind": event.kind.value,
            "dealer": event.dealer,
            "hands": [_names(h) for h in event.hands],
            "kitty": _names(event.kitty),
            "pass_offset": event.pass_offset,
        }
    if isinstance(event, PassesExchanged):
        return {
            "type": "exchange",
            "pass_offset": event.pass_offset,
            "passed": [_names(p) for p in event.passed],
        }
    if isinstance(event, LotteryPassed):
        return {"type": "lottery_pass", "seat": event.seat}
    if isinstance(event, TrickEnded):
        return {
            "type": "trick",
            "number": event.number,
            "leader": event.leader,
            "cards": [card_name(c) for _, c in event.plays],
            "winner": event.winner,
            "collected": _names(event.collected),
        }
    if isinstance(event, PlayerOut):
        return {"type": "out", "seat": event.seat, "place": event.place, "bonus": event.bonus}
    if isinstance(event, DealEnded):
        return {
            "type": "deal_end",
            "deal": event.deal,
            "scores": list(event.scores),
            "totals": list(event.totals),
            "early": event.early,
        }
    if isinstance(event, GameEnded):
        return {"type": "game_end", "totals": list(event.totals), "places": list(event.places)}
    assert isinstance(event, CardPlayed | TrumpChosen | MoonShot)
    return None


def decision_record(seat: int, action: Action, ms: float | None, fallback: bool) -> Record:
    record: Record = {"seat": seat}
    if isinstance(action, PlayCard):
        record.update(type="play", card=card_name(action.card))
    elif isinstance(action, PassCards):
        record.update(type="pass", cards=_names(action.cards))
    elif isinstance(action, ChooseTrump):
        record.update(type="trump", suit=_suit(action.suit))
    elif isinstance(action, ChooseMoon):
        record.update(type="moon", choice=action.option.value)
    record["ms"] = None if ms is None else round(ms, 3)
    if fallback:
        record["fallback"] = True
    return record


DECISION_TYPES = frozenset({"play", "pass", "trump", "moon"})
DERIVED_TYPES = frozenset({"deal", "exchange", "lottery_pass", "trick", "out", "deal_end", "game_end"})
RECORD_TYPES = DECISION_TYPES | DERIVED_TYPES | {"header", "fault", "end"}
END_STATUSES = ("complete", "interrupted", "error")


@functools.cache
def referee_version() -> str:
    try:
        return importlib.metadata.version("kierki")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - running from an uninstalled checkout
        return "unknown"


_encoder = msgspec.json.Encoder()


class ReplayWriter:
    """Appends records to ``path.part``; ``finish`` renames it into place."""

    def __init__(self, path: Path, header: Record) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".part")
        self._file: IO[bytes] = open(self.partial, "wb")  # noqa: SIM115 - closed in finish()
        started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        self.write(
            {
                "type": "header",
                "format": FORMAT,
                "version": VERSION,
                "referee": referee_version(),
                "started": started,
                **header,
            }
        )

    def write(self, record: Record) -> None:
        self._file.write(_encoder.encode(record) + b"\n")

    def finish(self, status: str, detail: str = "") -> Path:
        """Close with an ``end`` record; status is "complete", "interrupted" or "error"."""
        assert status in END_STATUSES, status
        end: Record = {"type": "end", "status": status}
        if detail:
            end["detail"] = detail
        self.write(end)
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self.partial, self.path)
        return self.path
