"""Playing one of the ladder's duplicate sets: `competition.duplicate_set.play_set` on the ladder's executor.

A set's games (one per seat rotation) go to the executor at once; their replay and stderr logs land in
``sets/NNNNNN.partial`` and the folder is renamed to ``sets/NNNNNN`` once all are in, before the ladder commits the
result: a result in the database always has its logs in place.

Whose fault a failure is decides what happens to the set. A bot that cannot start, crashes or forfeits loses its
games (the set is rated; the bot's failure is counted); so does one whose files filled the disk (the game is played
again without it: `competition.game.play_game`). A failure of the referee itself (a game that cannot be set
up, a worker that dies, an exception in the referee) raises `RefereeFailure`: the ladder voids the set.
"""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from competition.duplicate_set import GameFailed, SetRequest, play_set
from competition.executors import GameExecutor
from competition.game import GameOutcome
from competition.model import GameRecord, SetRecord

__all__ = ["RefereeFailure", "SetOutcome", "play_ladder_set"]


class RefereeFailure(RuntimeError):
    """The referee, not a bot, failed a set's game: the set is voided and played again later.

    ``broken`` says the worker pool died with it (a new one is needed)."""

    def __init__(self, message: str, *, broken: bool = False) -> None:
        super().__init__(message)
        self.broken = broken


@dataclass(frozen=True)
class SetOutcome:
    record: SetRecord
    failures: dict[str, str | None]  # per bot of the table: why it failed the set (start, crash, forfeit), or None


def play_ladder_set(request: SetRequest, executor: GameExecutor) -> SetOutcome:
    """Play the set and say, per bot, why it failed it; a failure of the referee is a `RefereeFailure`."""
    try:
        played = play_set(request, executor).wait()
    except BrokenProcessPool:  # as the games were submitted
        raise RefereeFailure("the worker pool died before the set could start", broken=True) from None
    except GameFailed as failed:
        if isinstance(failed.cause, BrokenProcessPool):
            raise RefereeFailure("a worker process died during the set", broken=True) from None
        if failed.cause is not None:
            cause = failed.cause
            raise RefereeFailure(f"a game failed in the referee: {type(cause).__name__}: {cause}") from cause
        raise RefereeFailure(f"a game could not be set up: {failed}") from None
    return SetOutcome(played.record, bot_failures(request.table, list(played.games)))


def bot_failures(table: tuple[str, ...], outcomes: list[GameOutcome]) -> dict[str, str | None]:
    """Per bot: the first reason it failed one of the set's games (could not start, crashed, forfeited), or None."""
    failures: dict[str, str | None] = dict.fromkeys(table)
    for outcome in sorted(outcomes, key=lambda o: o.index):
        game = outcome.record
        assert game is not None
        for seat, name in enumerate(game.seats):
            if failures[name] is not None:
                continue
            started = outcome.start_failures[seat] if seat < len(outcome.start_failures) else None
            broke = outcome.charged[seat] if seat < len(outcome.charged) else None
            if broke is not None:
                failures[name] = f"forfeited game {game.index + 1}: it {broke}"
            elif started is not None:
                failures[name] = f"could not start: {started}"
            elif _flag(game.forfeited, seat):
                failures[name] = f"forfeited game {game.index + 1} ({_faults(game, seat)})"
    return failures


def _flag(flags: tuple[bool, ...], seat: int) -> bool:
    return seat < len(flags) and flags[seat]


def _faults(game: GameRecord, seat: int) -> str:
    faults = game.faults[seat] if seat < len(game.faults) else {}
    return ", ".join(f"{code} x{count}" for code, count in sorted(faults.items())) or "no fault recorded"
