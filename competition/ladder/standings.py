"""The ladder's standings: every bot ranked by μ − 3σ, with its sets, mean place, faults and a provisional flag.

The ranking rule is the tournament's (README): a game the fallback played (in part) for a bot is its last place,
in the ratings (`competition.ratings.set_ranks`) and the mean place. The active bots are ranked 1..n; the retired
and deactivated ones come after them, ranked 1..m among themselves (the site shows them apart); a bot that never
played a game of its own (the fallback played every seat of it) is listed last in its group, unranked."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field

from competition.ladder.store import Store
from competition.ladder.store_records import Bot, BotStatus
from competition.model import SetRecord
from competition.ratings import Rating
from referee.api import FaultCode

__all__ = ["PROVISIONAL_SETS", "Standing", "standings"]

PROVISIONAL_SETS = 10  # a rating from fewer sets is shown as provisional


@dataclass(frozen=True)
class Standing:
    rank: int | None  # 1-based in its group (active; retired and deactivated), by μ − 3σ; None: no game of its own
    label: str
    name: str
    version: int
    owner: str | None
    status: str
    reason: str | None
    mu: float
    sigma: float
    conservative: float
    sets: int
    mean_place: float | None
    provisional: bool
    faults: dict[FaultCode, int] = field(default_factory=dict)
    start_failures: int = 0
    forfeits: int = 0
    fallback_games: int = 0  # games the fallback played (in part) for it: counted as last places
    cpu_ms: float | None = None  # CPU time of its control groups over every game, start-ups included (None: never)
    loss_per_decision: float | None = None  # ladder.toml [analysis]: the mean loss a decision (None: none analysed)
    analysed_decisions: int = 0

    @property
    def active(self) -> bool:
        return self.status == BotStatus.ACTIVE


def standings(store: Store, records: list[SetRecord] | None = None) -> list[Standing]:
    records = store.results() if records is None else records
    ratings = store.ratings()
    params = store.rating_params()
    places: dict[str, list[float]] = {}
    faults: dict[str, Counter[FaultCode]] = {}
    start_failures: Counter[str] = Counter()
    forfeits: Counter[str] = Counter()
    fallback_games: Counter[str] = Counter()
    cpu: dict[str, float] = {}
    analysed: dict[str, list[float]] = {}  # label -> [decisions, points lost], by the ladder's [analysis]
    for record in records:
        for game in record.games:
            for label in set(game.seats):
                places.setdefault(label, []).append(game.place_of(label))
                fallback_games[label] += int(game.fallback_of(label))
            for seat, label in enumerate(game.seats):
                if seat < len(game.faults):
                    faults.setdefault(label, Counter()).update(game.faults[seat])
                if seat < len(game.start_failed) and game.start_failed[seat]:
                    start_failures[label] += 1
                elif seat < len(game.forfeited) and game.forfeited[seat]:
                    forfeits[label] += 1
                used = game.cpu_of(seat)
                if used is not None:
                    cpu[label] = cpu.get(label, 0.0) + used
                judged = game.analysis[seat] if seat < len(game.analysis) else None
                if judged is not None:
                    tally = analysed.setdefault(label, [0, 0.0])
                    tally[0] += judged.decisions
                    tally[1] += judged.loss

    def row(bot: Bot) -> tuple[Bot, Rating]:
        return bot, ratings.get(bot.label) or Rating(params.mu, params.sigma, 0)

    def unranked(bot: Bot) -> bool:
        return len(places.get(bot.label, [])) == fallback_games[bot.label]  # no game of its own

    rows = sorted(
        (row(bot) for bot in store.bots()),
        key=lambda br: (br[0].status != BotStatus.ACTIVE, unranked(br[0]), -br[1].conservative, br[0].label),
    )
    table = []
    ranks = {True: itertools.count(1), False: itertools.count(1)}
    for bot, rating in rows:
        mine = places.get(bot.label, [])
        table.append(
            Standing(
                rank=None if unranked(bot) else next(ranks[bot.status == BotStatus.ACTIVE]),
                label=bot.label,
                name=bot.name,
                version=bot.version,
                owner=bot.owner,
                status=bot.status,
                reason=bot.reason,
                mu=rating.mu,
                sigma=rating.sigma,
                conservative=rating.conservative,
                sets=rating.sets,
                mean_place=sum(mine) / len(mine) if mine else None,
                provisional=rating.sets < PROVISIONAL_SETS,
                faults=dict(sorted(faults.get(bot.label, Counter()).items())),
                start_failures=start_failures[bot.label],
                forfeits=forfeits[bot.label],
                fallback_games=fallback_games[bot.label],
                cpu_ms=cpu.get(bot.label),
                loss_per_decision=_mean_loss(analysed.get(bot.label)),
                analysed_decisions=int(analysed.get(bot.label, [0])[0]),
            )
        )
    return table


def _mean_loss(tally: list[float] | None) -> float | None:
    return tally[1] / tally[0] if tally is not None and tally[0] else None
