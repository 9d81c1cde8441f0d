"""The replay log: one JSON-lines file per game, documented in REPLAY.md.

The log holds the header (versions, game, every rule option, seed or deals, the bots), every decision with the
seat and the time it took (and whether the referee played it as a fallback), every fault, and the records the
rules core derives from the decisions (deals with all hands, exchanges, automatic passes, tricks, deal scores,
the result). Re-applying the decisions to a fresh state must reproduce the derived records exactly: that is what
``kierki replay --verify`` checks.

Every line is one of the Structs of ``referee.replay.records`` (the only description of the format), encoded as
is: the writer builds records, never dicts.

A log is written to ``NAME.part`` and renamed into place only when the game is over, so a crash can never leave a
file that looks complete; a game stopped by an error or Ctrl-C ends with an ``end`` record whose status says so.
"""

from __future__ import annotations

import contextlib
import datetime
import os
from pathlib import Path
from typing import IO, Final

import msgspec

import referee
from referee.replay.errors import ReplayWriteError
from referee.replay.records import (
    DealEndRecord,
    DealRecord,
    Decision,
    Derived,
    EndRecord,
    ExchangeRecord,
    GameEndRecord,
    Header,
    LotteryPassRecord,
    MoonDecision,
    OutRecord,
    PassDecision,
    PlayDecision,
    Record,
    TrickRecord,
    TrumpDecision,
)
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
from referee.rules.cards import Card, trump_name
from referee.vocabulary.match_result import GameStatus

__all__ = [
    "ReplayWriteError",
    "ReplayWriter",
    "decision_record",
    "event_record",
    "referee_version",
]


def _names(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [card_name(c) for c in cards]


def event_record(event: Event) -> Derived | None:
    """The record a core event derives, or None for events that a decision record already says."""
    if type(event) is CardPlayed:  # first: one of every decision, and it derives no record
        return None
    if isinstance(event, DealStarted):
        return DealRecord(
            deal=event.deal,
            kind=event.kind,
            dealer=event.dealer,
            hands=[_names(h) for h in event.hands],
            kitty=_names(event.kitty),
            pass_offset=event.pass_offset,
        )
    if isinstance(event, PassesExchanged):
        return ExchangeRecord(pass_offset=event.pass_offset, passed=[_names(p) for p in event.passed])
    if isinstance(event, LotteryPassed):
        return LotteryPassRecord(seat=event.seat)
    if isinstance(event, TrickEnded):
        return TrickRecord(
            number=event.number,
            leader=event.leader,
            cards=[card_name(c) for _, c in event.plays],
            winner=event.winner,
            collected=_names(event.collected),
        )
    if isinstance(event, PlayerOut):
        return OutRecord(seat=event.seat, place=event.place, bonus=event.bonus)
    if isinstance(event, DealEnded):
        return DealEndRecord(deal=event.deal, scores=list(event.scores), totals=list(event.totals), early=event.early)
    if isinstance(event, GameEnded):
        return GameEndRecord(totals=list(event.totals), places=list(event.places))
    assert isinstance(event, CardPlayed | TrumpChosen | MoonShot)
    return None


def decision_record(
    seat: int,
    action: Action,
    ms: float | None,
    fallback: bool,
    replayed: bool = False,
    ignored: int = 0,
    cpu_ms: float | None = None,
) -> Decision:
    """The record of a decision; ``ms`` None: the referee decided without asking (written as null); ``ignored``:
    the lines of the bot's that were ignored while it was asked (answers to other requests); ``cpu_ms`` the CPU
    time its control group used for it (None: not measured, not written)."""
    took = None if ms is None else round(ms, 3)
    cpu: float | msgspec.UnsetType = msgspec.UNSET if cpu_ms is None else round(cpu_ms, 3)
    if isinstance(action, PlayCard):
        card = card_name(action.card)
        return PlayDecision(
            seat=seat, card=card, ms=took, fallback=fallback, replayed=replayed, ignored=ignored, cpu_ms=cpu
        )
    if isinstance(action, PassCards):
        cards = _names(action.cards)
        return PassDecision(
            seat=seat, cards=cards, ms=took, fallback=fallback, replayed=replayed, ignored=ignored, cpu_ms=cpu
        )
    if isinstance(action, ChooseTrump):
        suit = trump_name(action.suit)
        return TrumpDecision(
            seat=seat, suit=suit, ms=took, fallback=fallback, replayed=replayed, ignored=ignored, cpu_ms=cpu
        )
    assert isinstance(action, ChooseMoon)
    option = action.option
    return MoonDecision(
        seat=seat, choice=option, ms=took, fallback=fallback, replayed=replayed, ignored=ignored, cpu_ms=cpu
    )


def referee_version() -> str:
    return referee.__version__


_encoder: Final = msgspec.json.Encoder()


class ReplayWriter:
    """Appends records to ``path.part``; ``finish`` renames it into place.

    The header reaches the file at once and each deal's records when the deal ends (a flush), so a game that is
    killed keeps every deal it finished. A write that fails raises `ReplayWriteError` naming the file and why;
    ``finish`` after a failure only closes the file, leaving the ``.part`` with what was written.
    """

    def __init__(self, path: Path, header: Header) -> None:
        """Write ``header`` stamped with this referee's version and the time the game starts."""
        self.path = path
        self.partial = path.with_name(path.name + ".part")
        self.failed: OSError | None = None
        try:
            self._file: IO[bytes] = open(self.partial, "wb")  # noqa: SIM115 - closed in finish()
        except OSError as error:
            raise self._error(error) from None
        started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        self.write(msgspec.structs.replace(header, referee=referee_version(), started=started))
        self._flush()

    def _flush(self) -> None:
        try:
            self._file.flush()
        except OSError as error:
            raise self._error(error) from None

    def _error(self, error: OSError) -> ReplayWriteError:
        self.failed = error
        failure = ReplayWriteError(
            f"cannot write the replay log {self.partial}: {error.strerror or error}; the game stopped"
        )
        failure.errno = error.errno
        return failure

    def write(self, record: Record) -> None:
        if self.failed is not None:
            raise self._error(self.failed)
        try:
            self._file.write(_encoder.encode(record) + b"\n")
            if type(record) is DealEndRecord:
                self._file.flush()
        except OSError as error:
            raise self._error(error) from None

    def finish(self, status: GameStatus, detail: str = "", cpu_ms: list[float | None] | None = None) -> Path:
        """Close with an ``end`` record; ``status`` how the game ended; ``cpu_ms`` the
        game's CPU time per seat, where measured.

        After a failed write the file is only closed (its ``.part`` keeps what was written) and that path is
        returned.
        """
        if self.failed is None:
            try:
                cpu: list[float | None] | msgspec.UnsetType = msgspec.UNSET if cpu_ms is None else cpu_ms
                self.write(EndRecord(status=status, detail=detail, cpu_ms=cpu))
                self._file.flush()
                os.fsync(self._file.fileno())
                self._file.close()
                os.replace(self.partial, self.path)
                return self.path
            except OSError as error:
                self.failed = error
        with contextlib.suppress(OSError):
            self._file.close()  # its buffer may not fit on the disk either: what reached the file stays
        if status == GameStatus.COMPLETE:
            raise self._error(self.failed)
        return self.partial
