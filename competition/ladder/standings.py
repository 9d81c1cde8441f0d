"""The ladder's standings: every bot ranked by μ − 3σ, with its sets, mean place, faults and a provisional flag."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from competition.ladder.store import Bot, Store
from competition.model import SetRecord
from competition.ratings import Rating
from referee.faults import FaultCode

__all__ = ["PROVISIONAL_SETS", "Standing", "standings"]

PROVISIONAL_SETS = 10  # a rating from fewer sets is shown as provisional


@dataclass(frozen=True)
class Standing:
    rank: int  # 1-based among all bots, by μ − 3σ (a bot without a rated set comes last)
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
    cpu_ms: float | None = None  # CPU time of its control groups over every game, start-ups included (None: never)


def standings(store: Store, records: list[SetRecord] | None = None) -> list[Standing]:
    records = store.results() if records is None else records
    ratings = store.ratings()
    params = store.rating_params()
    places: dict[str, list[float]] = {}
    faults: dict[str, Counter[FaultCode]] = {}
    start_failures: Counter[str] = Counter()
    forfeits: Counter[str] = Counter()
    cpu: dict[str, float] = {}
    for record in records:
        for game in record.games:
            for label in set(game.seats):
                places.setdefault(label, []).append(game.place_of(label))
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

    def row(bot: Bot) -> tuple[Bot, Rating]:
        return bot, ratings.get(bot.label) or Rating(params.mu, params.sigma, 0)

    rows = sorted(
        (row(bot) for bot in store.bots()), key=lambda br: (br[1].sets == 0, -br[1].conservative, br[0].label)
    )
    table = []
    for rank, (bot, rating) in enumerate(rows, 1):
        mine = places.get(bot.label, [])
        table.append(
            Standing(
                rank=rank,
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
                cpu_ms=cpu.get(bot.label),
            )
        )
    return table
