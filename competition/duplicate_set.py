"""One duplicate set, played: the one set loop that a tournament (and so an SPRT) and the ladder all use.

`play_set` expands a `SetRequest` into its games (one `GameSpec` per seat rotation of the table), submits them to
an executor and returns the `SetInPlay`, which assembles their outcomes into the set's `SetRecord`. The games put
their logs into ``ROOT/sets/NAME.partial`` as they finish; once all are in, the folder is renamed to
``ROOT/sets/NAME`` and only then is the record made, so a caller that records the set (a line of the results
file, a row of the ladder's database) always has its logs in place.

A game that a bot lost (it could not start, crashed, forfeited) is an ordinary outcome. A game that the referee
failed, not a bot (the worker pool died, an executor gave up on it, a configuration the referee refused), raises
`GameFailed` from the set: its caller decides (a tournament stops, the ladder voids the set and plays it again).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from competition.executors import GameExecutor
from competition.game import GameOutcome, GameSpec
from competition.model import SetRecord
from competition.plan import set_rotations
from referee.api import AnalysisSettings, BotSpec, MatchSpec

__all__ = ["GameFailed", "SetInPlay", "SetOutcome", "SetRequest", "play_set"]


class GameFailed(RuntimeError):
    """A game of the set failed for a reason that is not a bot's. ``cause`` is what the game's future raised
    (``BrokenProcessPool``, `competition.executors.InfrastructureError`, a bug), or None when the referee
    refused to set the game up (the message is its reason)."""

    def __init__(self, set_id: int, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.set_id = set_id
        self.cause = cause


@dataclass(frozen=True)
class SetRequest:
    """One set to play: its deals (``seed``), its table, how each game is played, and where its files go.

    ``match`` says how every game of the set is played (the rules, the clock, the fault policy, the isolation);
    each game's bots, seed and absent seats are filled in from the others. ``dropped`` names the bots to leave
    out, with the reason: their seats are forfeited without starting them."""

    set_id: int
    seed: str
    table: tuple[str, ...]  # bot names in the seat order of the set's first game
    bots: Mapping[str, BotSpec]  # name -> how to start it
    match: MatchSpec
    root: Path  # the run's folder: a tournament's OUT, a ladder's DIR
    set_dir: str  # the set's folder relative to ``root``, e.g. "sets/0001"
    higher_is_better: bool
    # Per game, the table position at each seat (a tournament's plan states them: `competition.plan.PlannedSet`);
    # None: the table's cyclic rotations, orderings that seat the same bots alike played once (the ladder's).
    rotations: tuple[tuple[int, ...], ...] | None = None
    dropped: Mapping[str, str] = field(default_factory=dict)
    analysis: AnalysisSettings | None = None  # analyse each game once played, in its worker

    def games(self) -> tuple[GameSpec, ...]:
        """The set's games, one per rotation."""
        rotations = set_rotations(self.table, "cyclic") if self.rotations is None else self.rotations
        games = []
        for index, rotation in enumerate(rotations):
            names = tuple(self.table[i] for i in rotation)
            absent = tuple(
                (seat, f"dropped: {self.dropped[name]}") for seat, name in enumerate(names) if name in self.dropped
            )
            match = msgspec.structs.replace(
                self.match,
                bots=tuple(self.bots[name] for name in names),
                seed=self.seed,
                games=1,
                forfeit_unstartable=True,  # one bot that cannot start never stops a set
                absent=absent,
            )
            games.append(
                GameSpec(
                    set_id=self.set_id,
                    index=index,
                    names=names,
                    match=match,
                    root=self.root,
                    set_dir=self.set_dir,
                    analysis=self.analysis,
                )
            )
        return tuple(games)


@dataclass(frozen=True)
class SetOutcome:
    """A finished set: its record (its folder is in place by then) and each game's outcome, in rotation order."""

    record: SetRecord
    games: tuple[GameOutcome, ...]


class SetInPlay:
    """A set whose games are submitted. `outcome` polls it, `wait` waits for it; `cancel` drops the games not yet
    started (those running finish; the set is then not finished)."""

    def __init__(self, request: SetRequest, futures: tuple[Future[GameOutcome], ...]) -> None:
        self.request = request
        self.futures = futures

    @property
    def partial_dir(self) -> Path:
        return self.request.root / f"{self.request.set_dir}.partial"

    @property
    def games_done(self) -> int:
        """Games finished so far (played, or failed)."""
        return sum(1 for future in self.futures if future.done() and not future.cancelled())

    @property
    def pending(self) -> int:
        """Games not finished yet (queued or being played)."""
        return sum(1 for future in self.futures if not future.done())

    def outcome(self) -> SetOutcome | None:
        """The set's outcome once every game is in (its folder renamed into place), None while one is not. Raises
        `GameFailed` as soon as a finished game failed, leaving the set's folder as it is."""
        outcomes = [self._outcome(future) for future in self.futures if future.done()]
        if len(outcomes) < len(self.futures):
            return None
        request = self.request
        os.replace(self.partial_dir, request.root / request.set_dir)
        games = tuple(sorted(outcomes, key=lambda outcome: outcome.index))
        record = SetRecord(
            set_id=request.set_id,
            seed=request.seed,
            game=request.match.rules.game,
            players=request.match.rules.players,
            higher_is_better=request.higher_is_better,
            bots=request.table,
            games=tuple(outcome.record for outcome in games if outcome.record is not None),
        )
        return SetOutcome(record, games)

    def wait(self) -> SetOutcome:
        """Wait for every game and return the set's outcome. When one fails, the others are cancelled (those
        running are waited for), the set's folder is removed and `GameFailed` is raised."""
        try:
            for future in self.futures:
                self._outcome(future)  # in order, each waited for
            outcome = self.outcome()
        except GameFailed:
            self.cancel()
            for future in self.futures:  # the set's other games may still be running: let them end first
                if not future.cancelled():
                    with contextlib.suppress(Exception):
                        future.result()
            shutil.rmtree(self.partial_dir, ignore_errors=True)
            raise
        assert outcome is not None
        return outcome

    def cancel(self) -> None:
        for future in self.futures:
            future.cancel()

    def _outcome(self, future: Future[GameOutcome]) -> GameOutcome:
        """A finished game's outcome (waiting for it if it is not), or `GameFailed`."""
        set_id = self.request.set_id
        try:
            outcome = future.result()
        except Exception as error:
            raise GameFailed(set_id, f"set {set_id}: a game failed: {type(error).__name__}: {error}", error) from error
        if outcome.error is not None or outcome.record is None:
            raise GameFailed(set_id, outcome.error or f"set {set_id}: a game returned no record")
        return outcome


def play_set(request: SetRequest, executor: GameExecutor) -> SetInPlay:
    """Submit the set's games to ``executor`` (what a killed run left of the set's folder is removed first)."""
    for leftover in (request.root / f"{request.set_dir}.partial", request.root / request.set_dir):
        shutil.rmtree(leftover, ignore_errors=True)
    return SetInPlay(request, tuple(executor.submit(game) for game in request.games()))
