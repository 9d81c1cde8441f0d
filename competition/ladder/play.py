"""Playing one of the ladder's duplicate sets on the tournament runner: the ladder's one seam to `competition.runner`.

A set's games (one per seat rotation) go to the runner's pinned worker processes at once; their replay and stderr
logs land in ``sets/NNNNNN.partial`` and the folder is renamed to ``sets/NNNNNN`` once all are in, before the
ladder commits the result: a result in the database always has its logs in place.

Whose fault a failure is decides what happens to the set. A bot that cannot start, crashes or forfeits loses its
games (the set is rated; the bot's failure is counted). A failure of the referee itself (a game that cannot be set
up, a worker that dies, an exception in the referee) raises `RefereeFailure`: the ladder voids the set.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Mapping
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from competition.executors import GameExecutor
from competition.model import GameRecord, SetRecord
from competition.plan import set_rotations
from competition.runner import GameOutcome, GameTask
from referee.bots.fairplay import FairPlay
from referee.bots.sandbox import Limits, SandboxKind
from referee.bots.seat import TimeControl
from referee.faults import FaultPolicy
from referee.match import BotSpec, MatchConfig
from referee.rules import Ruleset

__all__ = ["RefereeFailure", "SetOutcome", "SetRequest", "play_set"]


class RefereeFailure(RuntimeError):
    """The referee, not a bot, failed a set's game: the set is voided and played again later.

    ``broken`` says the worker pool died with it (a new one is needed)."""

    def __init__(self, message: str, *, broken: bool = False) -> None:
        super().__init__(message)
        self.broken = broken


@dataclass(frozen=True)
class SetRequest:
    """Everything needed to play one set, as plain data."""

    set_id: int
    seed: str
    table: tuple[str, ...]  # bot labels in the seat order of the first game
    specs: Mapping[str, BotSpec]  # label -> how to start it
    ruleset: Ruleset
    higher_is_better: bool
    folder: Path  # the ladder's folder: replays are stored under it, and named relative to it
    time: TimeControl = field(default_factory=TimeControl)
    limits: Limits = field(default_factory=Limits)
    sandbox: SandboxKind = "none"
    bot_env: tuple[tuple[str, str], ...] = ()
    bot_ro: tuple[Path, ...] = ()
    fair_play: FairPlay = field(default_factory=FairPlay)
    max_strikes: int = 3

    @property
    def relative_dir(self) -> str:
        return f"sets/{self.set_id:06d}"


@dataclass(frozen=True)
class SetOutcome:
    record: SetRecord
    failures: dict[str, str | None]  # per bot of the table: why it failed the set (start, crash, forfeit), or None


def play_set(request: SetRequest, runner: GameExecutor) -> SetOutcome:
    final = request.folder / request.relative_dir
    partial = final.with_name(final.name + ".partial")
    for leftover in (partial, final):  # a run killed after playing (or renaming) but before its commit
        shutil.rmtree(leftover, ignore_errors=True)
    rotations = set_rotations(request.table, "cyclic")
    futures: list[Future[GameOutcome]] = []
    for index, rotation in enumerate(rotations):
        names = tuple(request.table[i] for i in rotation)
        config = MatchConfig(
            ruleset=request.ruleset,
            bots=tuple(request.specs[name] for name in names),
            out_dir=request.folder / "work" / f"{request.set_id:06d}-game{index + 1}",
            seed=request.seed,
            games=1,
            time=request.time,
            faults=FaultPolicy(max_strikes=request.max_strikes),
            limits=request.limits,
            sandbox=request.sandbox,
            bot_env=request.bot_env,
            bot_ro=request.bot_ro,
            fair_play=request.fair_play,
            forfeit_unstartable=True,
        )
        task = GameTask(request.set_id, index, config, names, partial, request.relative_dir)
        try:
            futures.append(runner.submit(task))
        except BrokenProcessPool:
            raise RefereeFailure("the worker pool died before the set could start", broken=True) from None
    try:
        outcomes = [_outcome(future) for future in futures]
    except RefereeFailure:
        for future in futures:
            future.cancel()
        for future in futures:  # the set's other games may still be running: let them end before cleaning up
            if not future.cancelled():
                with contextlib.suppress(Exception):
                    future.result()
        shutil.rmtree(partial, ignore_errors=True)
        raise
    os.replace(partial, final)
    games = tuple(sorted((o.record for o in outcomes if o.record is not None), key=lambda g: g.index))
    record = SetRecord(
        set_id=request.set_id,
        seed=request.seed,
        game=request.ruleset.game.value,
        players=request.ruleset.players,
        higher_is_better=request.higher_is_better,
        bots=request.table,
        games=games,
    )
    return SetOutcome(record, bot_failures(request.table, outcomes))


def _outcome(future: Future[GameOutcome]) -> GameOutcome:
    try:
        outcome = future.result()
    except BrokenProcessPool:
        raise RefereeFailure("a worker process died during the set", broken=True) from None
    except Exception as error:
        raise RefereeFailure(f"a game failed in the referee: {type(error).__name__}: {error}") from error
    if outcome.error is not None or outcome.record is None:
        raise RefereeFailure(f"a game could not be set up: {outcome.error}")
    return outcome


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
            if started is not None:
                failures[name] = f"could not start: {started}"
            elif _flag(game.forfeited, seat):
                failures[name] = f"forfeited game {game.index + 1} ({_faults(game, seat)})"
    return failures


def _flag(flags: tuple[bool, ...], seat: int) -> bool:
    return seat < len(flags) and flags[seat]


def _faults(game: GameRecord, seat: int) -> str:
    faults = game.faults[seat] if seat < len(game.faults) else {}
    return ", ".join(f"{code} x{count}" for code, count in sorted(faults.items())) or "no fault recorded"
