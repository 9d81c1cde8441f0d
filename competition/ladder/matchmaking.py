"""Matchmaking: which tables the ladder plans next. Pure: bots and a random generator in, tables out.

Each table is built around a *focus* bot drawn with a weight that favours the uncertain and the new (σ, and few
sets played, planned sets counted as played so one bot is not planned over and over), then filled with opponents of
nearby rating (μ) plus some drawn at random from the whole field, so ratings connect across the ladder and a bot
cannot farm one neighbourhood. A bot never sits twice at a table, and at most one version per owner sits at one when
owners are given (a bot never plays its author's other bots): with too few bots or owners for the seats there is no
table. The seat order is shuffled; the duplicate set then rotates the seats.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Candidate", "plan_tables"]


@dataclass(frozen=True)
class Candidate:
    """An active bot as matchmaking sees it."""

    label: str
    mu: float
    sigma: float
    sets: int = 0  # rated sets so far
    owner: str | None = None


def focus_weight(bot: Candidate, pending: int) -> float:
    """How strongly a bot is drawn as a table's focus: σ², doubled for a new bot, shrinking with planned sets."""
    newness = 1.0 + 2.0 / (1.0 + bot.sets)
    return bot.sigma * bot.sigma * newness / (1.0 + pending)


def plan_tables(
    bots: Sequence[Candidate],
    players: int,
    count: int,
    rng: random.Random,
    *,
    pending: Sequence[Sequence[str]] = (),
    random_share: float = 0.34,
) -> list[tuple[str, ...]]:
    """``count`` tables of ``players`` seats from the active ``bots`` (``pending``: tables already planned).

    Every table seats ``players`` different bots of different owners: with fewer, no table (the run says why).
    """
    field = sorted(bots, key=lambda b: b.label)
    if len(field) < max(2, players) or count <= 0:
        return []
    planned: Counter[str] = Counter(label for table in pending for label in set(table))
    tables = []
    for _ in range(count):
        weights = [focus_weight(b, planned[b.label]) for b in field]
        focus = rng.choices(field, weights=weights)[0]
        table = _fill(focus, field, players, rng, random_share)
        if len(table) < players:
            continue  # too few owners beside the focus's to fill the table
        rng.shuffle(table)
        tables.append(tuple(b.label for b in table))
        planned.update({b.label for b in table})
    return tables


def _fill(focus: Candidate, field: list[Candidate], players: int, rng: random.Random, share: float) -> list[Candidate]:
    table = [focus]

    def allowed(bot: Candidate) -> bool:
        if bot in table:
            return False
        return bot.owner is None or all(seated.owner != bot.owner for seated in table)

    opponents = players - 1
    random_seats = sum(1 for _ in range(opponents) if rng.random() < share)
    for seat in range(opponents):
        eligible = [b for b in field if allowed(b)]
        if not eligible:
            break
        if seat < opponents - random_seats:
            # The nearest in rating, ties broken at random (so equal new bots meet different opponents).
            eligible.sort(key=lambda b: (abs(b.mu - focus.mu), rng.random()))
            table.append(eligible[0])
        else:
            table.append(rng.choice(eligible))
    return table
