"""What a match produced, per bot and as a whole: the result a match returns and writes as result.json."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from referee.faults import FaultCode

__all__ = ["GameStatus", "MatchResult", "SeatResult"]


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


class MatchResult(msgspec.Struct):
    """A whole match's result, as printed and written to result.json (``to_json``)."""

    game: str
    players: int
    options: dict[str, Any]
    seed: str
    games_played: int
    seats: list[SeatResult]
    replays: list[str]
    out_dir: str
    status: GameStatus = GameStatus.COMPLETE
    rotated: bool = False  # seats rotated between games: SeatResult.seat is the bot's seat in game 1
    isolation: dict[str, Any] | None = None  # what was in force (the replay header's isolation record)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "seed": self.seed,
            "games": self.games_played,
            "status": self.status,
            "rotated": self.rotated,
            "out_dir": self.out_dir,
            "replays": self.replays,
            "isolation": self.isolation,
            "seats": [
                {
                    "seat": s.seat,
                    "name": s.name,
                    "version": s.version,
                    "command": s.command,
                    "total": s.total,
                    "totals": s.totals,
                    "places": s.places,
                    "wins": s.wins,
                    "strikes": s.strikes,
                    "faults": s.faults,
                    "forfeited_in_game": s.forfeited_in_game,
                    "forfeit_reason": s.forfeit_reason,
                    "decisions": s.decisions,
                    "mean_ms": round(s.mean_ms, 3),
                    "max_ms": round(s.max_ms, 3),
                    "stderr_log_error": s.stderr_log_error,
                    "ignored_lines": s.ignored_lines,
                    "start_failure": s.start_failure,
                    "cpu_ms": [round(ms, 3) for ms in s.cpu_ms],
                    "startup_cpu_ms": None if s.startup_cpu_ms is None else round(s.startup_cpu_ms, 3),
                    "cpu_total_ms": None if s.cpu_total_ms is None else round(s.cpu_total_ms, 3),
                }
                for s in self.seats
            ],
        }
