"""Ratings: openskill's Plackett–Luce model, one update per duplicate set, recomputed from the results.

Results are the truth and ratings a cache: :func:`rate` is a pure function of the set records, so a ladder can store
its output and recompute it (``rerate``) from the results file at any time. Each set is one multiplayer "match"
ranked by the bots' set totals (equal totals share a rank; a bot the fallback played for ranks below every bot
that played for itself: `set_ranks`), which uses every rotation of the deals at once, so the
cards' luck cancels before the rating sees the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated

import msgspec
from msgspec import Meta
from openskill.models import PlackettLuce, PlackettLuceRating

from competition.model import SetRecord
from referee.api import check_declared

__all__ = ["Rating", "RatingParams", "rate", "rate_steps", "set_ranks"]


class RatingParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The model's parameters (openskill's defaults); stored beside a ladder's ratings so a rerate can match them
    (`competition.ladder.rating_cache`, as JSON), and given in ladder.toml's ``[rating]``."""

    mu: float = 25.0
    sigma: Annotated[float, Meta(gt=0)] = 25.0 / 3.0
    beta: Annotated[float, Meta(gt=0)] = 25.0 / 6.0
    kappa: Annotated[float, Meta(gt=0)] = 0.0001
    tau: Annotated[float, Meta(ge=0)] = 25.0 / 300.0

    def __post_init__(self) -> None:
        check_declared(self)  # the bounds above, for parameters made in Python (ladder.toml's [rating])

    def model(self) -> PlackettLuce:
        return PlackettLuce(mu=self.mu, sigma=self.sigma, beta=self.beta, kappa=self.kappa, tau=self.tau)


@dataclass(frozen=True)
class Rating:
    """A bot's skill estimate: mean ``mu`` and uncertainty ``sigma`` after ``sets`` rated sets."""

    mu: float
    sigma: float
    sets: int = 0

    @property
    def conservative(self) -> float:
        """μ − 3σ: the leaderboard key, which a bot raises only by playing enough to be sure of."""
        return self.mu - 3.0 * self.sigma


def set_ranks(record: SetRecord) -> dict[str, int]:
    """Each bot's rank in the set: 1 is best, equal keys share a rank (1, 1, 3).

    The ranking rule: a bot whose seat the fallback played (in part) in a game finished last in that game, so bots
    are ranked first by how many of the set's games the fallback played for them (fewer is better), then by
    their set totals. A forfeit, a crash or a bot that never starts is never better than playing: the fallback's
    points (its lowest legal card can be a decent Hearts strategy) never lift a bot above one that played.
    """
    sign = -1.0 if record.higher_is_better else 1.0
    keys = {
        bot: (sum(1 for game in record.games if game.fallback_of(bot)), sign * record.total(bot))
        for bot in dict.fromkeys(record.bots)
    }
    return {bot: 1 + sum(1 for other in keys.values() if other < key) for bot, key in keys.items()}


def rate(
    sets: Iterable[SetRecord], params: RatingParams | None = None, start: Mapping[str, Rating] | None = None
) -> dict[str, Rating]:
    """Every bot's rating after all ``sets``, updated one set at a time in ``set_id`` order.

    Plackett–Luce updates depend on their order; sorting by ``set_id`` makes a parallel run (whose sets finish in
    any order) rate exactly like a serial one. A set with a single distinct bot carries no ranking and is skipped.
    ``start`` continues from earlier ratings: ``rate(later, start=rate(earlier))`` equals ``rate(earlier + later)``
    when every set of ``later`` has a higher ``set_id`` than those of ``earlier`` (a ladder's cache relies on it).
    """
    current = dict(start or {})
    for _, updated in rate_steps(sets, params, current):
        current.update(updated)
    return current


def rate_steps(
    sets: Iterable[SetRecord], params: RatingParams | None = None, start: Mapping[str, Rating] | None = None
) -> Iterator[tuple[int, dict[str, Rating]]]:
    """Per rated set, in ``set_id`` order: its id and the new ratings of its bots (a rating history)."""
    model = (params or RatingParams()).model()
    current = dict(start or {})
    for record in sorted(sets, key=lambda r: r.set_id):
        ranks = set_ranks(record)
        if len(ranks) < 2:
            continue
        bots = list(ranks)
        teams = [[_model_rating(model, bot, current.get(bot))] for bot in bots]
        updated = model.rate(teams, ranks=[float(ranks[bot]) for bot in bots])
        step = {}
        for bot, (rating,) in zip(bots, updated, strict=True):
            previous = current.get(bot)
            step[bot] = Rating(mu=rating.mu, sigma=rating.sigma, sets=(previous.sets if previous else 0) + 1)
        current.update(step)
        yield record.set_id, step


def _model_rating(model: PlackettLuce, bot: str, rating: Rating | None) -> PlackettLuceRating:
    if rating is None:
        return model.rating(name=bot)
    return model.rating(mu=rating.mu, sigma=rating.sigma, name=bot)
