"""Passing three cards (Hearts, Cancellation): the rule of thumb the simulated seats pass by, and the few passes
the search weighs against each other.

The rule of thumb: pass Q♠ K♠ A♠ unless four or more low spades guard them, then the highest cards, hearts first.
The candidates: the rule of thumb's own pass, and every other three of its five most dangerous cards, so the
search decides among passes a good player would consider instead of spreading its playouts over all 286.
"""

from __future__ import annotations

import itertools
from typing import Final

SPADES: Final = 3
HEARTS: Final = 2
QUEEN: Final = 10
HIGH_SPADES: Final = (43, 47, 51)  # Q♠ K♠ A♠
CANDIDATE_POOL: Final = 5


def _danger(hand: list[int]) -> dict[int, int]:
    low_spades = sum(1 for c in hand if c & 3 == SPADES and c >> 2 < QUEEN)
    return {
        c: 100 + (c >> 2) if c in HIGH_SPADES and low_spades < 4 else (c >> 2) + (6 if c & 3 == HEARTS else 0)
        for c in set(hand)
    }


def _by_danger(hand: list[int]) -> list[int]:
    danger = _danger(hand)
    return sorted(hand, key=lambda c: (danger[c], c), reverse=True)


def rule_of_thumb_pass(hand: list[int], count: int) -> list[int]:
    return _by_danger(hand)[:count]


def candidate_passes(hand: list[int], count: int) -> list[tuple[int, ...]]:
    """The passes to weigh, the rule of thumb's first (a hand may hold a card twice: two decks)."""
    ranked = _by_danger(hand)
    first = tuple(ranked[:count])
    pool = ranked[: max(count, CANDIDATE_POOL)]
    seen = {tuple(sorted(first))}
    passes = [first]
    for combo in itertools.combinations(range(len(pool)), count):
        chosen = tuple(pool[i] for i in combo)
        key = tuple(sorted(chosen))
        if key not in seen:
            seen.add(key)
            passes.append(chosen)
    return passes
