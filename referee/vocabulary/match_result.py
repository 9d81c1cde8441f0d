"""What a match produced, per bot and as a whole: the result a match returns and writes as result.json."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from referee.vocabulary.faults import FaultCode

__all__ = ["GameStatus", "MatchResult", "MatchSummary", "SeatResult", "SeatSummary"]


class GameStatus(enum.StrEnum):
    """How a game, a match or a run of them ended (the replay log's ``end`` record, ``result.json``'s ``status``,
    a tournament's result): the values are what those files hold."""

    COMPLETE = "complete"  # played to its end
    STOPPED = "stopped"  # stopped as asked after some deals (a ladder's validation game): the totals so far
    INTERRUPTED = "interrupted"  # Ctrl-C, SIGTERM or SIGHUP: what was finished is kept
    ERROR = "error"  # the referee could not go on (a full disk, a failed handshake)


class SeatResult(msgspec.Struct):
    """One bot's result over the match: totals and places per game, strikes, faults, timings, forfeit."""

    seat: int
    name: str
    version: str
    command: str
    totals: list[int] = msgspec.field(default_factory=list)  # per game
    places: list[int] = msgspec.field(default_factory=list)  # per game
    strikes: int = 0
    faults: dict[FaultCode, int] = msgspec.field(default_factory=dict)
    forfeited_in_game: int | None = None
    forfeit_reason: str | None = None  # the fault that forfeited the seat: its code, strikes and message
    decisions: int = 0
    mean_ms: float = 0.0
    max_ms: float = 0.0
    stderr_log_error: str | None = None  # the bot's stderr log stopped early (e.g. a full disk)
    ignored_lines: int = 0  # lines that answered another request (an old or a wrong id), ignored
    start_failure: str | None = None  # why the bot could not start or failed its handshake (forfeit_unstartable)
    # CPU time (ms) of the bot's control group: per game, and its start-up (to its hello); empty/None without one.
    cpu_ms: list[float] = msgspec.field(default_factory=list)
    startup_cpu_ms: float | None = None

    @property
    def cpu_total_ms(self) -> float | None:
        """Its start-up and every game's CPU time, or None where it was not measured."""
        if self.startup_cpu_ms is None:
            return None
        return self.startup_cpu_ms + sum(self.cpu_ms)

    @property
    def total(self) -> int:
        return sum(self.totals)

    @property
    def wins(self) -> int:
        return sum(1 for p in self.places if p == 1)


class MatchResult(msgspec.Struct, kw_only=True):
    """A whole match's result, as printed; written to result.json as its `summary`. Its fields are in the file's
    order, and the file's fields (`MatchSummary`) are read from those of the same name."""

    game: str
    players: int
    options: dict[str, Any]
    seed: str
    games: int  # games played
    status: GameStatus = GameStatus.COMPLETE
    rotated: bool = False  # seats rotated between games: SeatResult.seat is the bot's seat in game 1
    out_dir: str
    replays: list[str]
    isolation: dict[str, Any] | None = None  # what was in force (the replay header's isolation record)
    seats: list[SeatResult]

    def summary(self) -> MatchSummary:
        """What result.json and ``kierki match --json`` hold."""
        values = {name: getattr(self, name) for name in MatchSummary.__struct_fields__}
        values["seats"] = [SeatSummary.of(seat) for seat in self.seats]
        return MatchSummary(**values)


def _ms(value: float) -> float:
    return round(value, 3)


class SeatSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One seat of result.json: `SeatResult`'s figures with its totals and wins, times rounded to a microsecond."""

    seat: int
    name: str
    version: str
    command: str
    total: int
    totals: list[int]
    places: list[int]
    wins: int
    strikes: int
    faults: dict[FaultCode, int]
    forfeited_in_game: int | None
    forfeit_reason: str | None
    decisions: int
    mean_ms: float
    max_ms: float
    stderr_log_error: str | None
    ignored_lines: int
    start_failure: str | None
    cpu_ms: list[float]
    startup_cpu_ms: float | None
    cpu_total_ms: float | None

    @classmethod
    def of(cls, seat: SeatResult) -> SeatSummary:
        """Each field read from the seat's field or property of the same name, the times rounded."""
        values = {name: getattr(seat, name) for name in cls.__struct_fields__}
        for name in _ROUNDED_MS:
            values[name] = None if values[name] is None else _ms(values[name])
        values["cpu_ms"] = [_ms(ms) for ms in seat.cpu_ms]
        return cls(**values)


_ROUNDED_MS = ("mean_ms", "max_ms", "startup_cpu_ms", "cpu_total_ms")


class MatchSummary(msgspec.Struct, frozen=True, kw_only=True):
    """result.json (and ``kierki match --json``), made once the match is over (`MatchResult.summary`): its fields
    in the file's order, encoded by msgspec (``msgspec.to_builtins``)."""

    game: str
    players: int
    options: dict[str, Any]
    seed: str
    games: int
    status: GameStatus
    rotated: bool
    out_dir: str
    replays: list[str]
    isolation: dict[str, Any] | None
    seats: list[SeatSummary]
