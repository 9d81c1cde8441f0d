"""Shuffling, dealing and given deals.

Reproducibility across machines and Python versions: the only thing Python guarantees to keep stable for a
seeded ``random.Random`` is the sequence of ``random()`` values (the ``random`` module documentation, "Notes on
Reproducibility"); ``shuffle`` and ``randrange`` may change between versions. So the shuffle here is a plain
Fisher-Yates driven by ``random()`` alone, and a golden test pins the first deals of a few seeds.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from referee.rules.cards import TWO_OF_CLUBS, Card, card_name
from referee.rules.records import DealSpecError
from referee.rules.ruleset import Game, Ruleset


@dataclass(frozen=True)
class DealSpec:
    """One deal: each hand in dealing order, the kitty, and optionally the dealer (None: the rotation)."""

    hands: tuple[tuple[Card, ...], ...]
    kitty: tuple[Card, ...] = ()
    dealer: int | None = None


_DECK_SIZES: Final = {Game.KIERKI: 52, Game.HEARTS: 52, Game.KIERKI3: 51, Game.CANCELLATION: 104}
_DECK_MASKS: Final = {
    Game.KIERKI: (1 << 52) - 1,
    Game.HEARTS: (1 << 52) - 1,
    Game.KIERKI3: ((1 << 52) - 1) ^ (1 << TWO_OF_CLUBS),
}


def deck_for(ruleset: Ruleset) -> list[Card]:
    if ruleset.game is Game.CANCELLATION:
        return [card for card in range(52) for _ in range(2)]
    if ruleset.game is Game.KIERKI3:
        return [card for card in range(52) if card != TWO_OF_CLUBS]
    return list(range(52))


def hand_size(ruleset: Ruleset) -> int:
    return _DECK_SIZES[ruleset.game] // ruleset.players


def shuffle(cards: list[Card], rng: random.Random) -> None:
    for i in range(len(cards) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def random_index(rng: random.Random, n: int) -> int:
    return int(rng.random() * n)


def deal_cards(ruleset: Ruleset, dealer: int, rng: random.Random) -> DealSpec:
    """Shuffle and deal one card at a time clockwise from the dealer's left; leftovers form the kitty."""
    deck = deck_for(ruleset)
    shuffle(deck, rng)
    players = ruleset.players
    size = len(deck) // players
    hands: list[list[Card]] = [[] for _ in range(players)]
    for i in range(size * players):
        hands[(dealer + 1 + i) % players].append(deck[i])
    return DealSpec(tuple(tuple(h) for h in hands), tuple(deck[size * players :]), dealer)


def validate_deal(ruleset: Ruleset, spec: DealSpec) -> None:
    """Raise DealSpecError unless the spec deals exactly the game's deck, evenly."""
    players = ruleset.players
    size = hand_size(ruleset)
    if len(spec.hands) != players:
        raise DealSpecError(f"a {ruleset.game.value} deal has {players} hands, not {len(spec.hands)}")
    for seat, hand in enumerate(spec.hands):
        if len(hand) != size:
            raise DealSpecError(f"hand {seat} has {len(hand)} cards; each hand must have {size}")
    if spec.dealer is not None and not 0 <= spec.dealer < players:
        raise DealSpecError(f"dealer {spec.dealer} is not a seat (0 to {players - 1})")
    if ruleset.game is not Game.CANCELLATION and not spec.kitty:
        # One deck: the deal is right when its cards, as a mask, are the deck's mask and none is repeated.
        mask = count = 0
        for hand in spec.hands:
            for card in hand:
                if type(card) is not int or not 0 <= card < 52:
                    break
                mask |= 1 << card
                count += 1
        if count == _DECK_SIZES[ruleset.game] and mask == _DECK_MASKS[ruleset.game]:
            return
    given = Counter(card for hand in spec.hands for card in hand) + Counter(spec.kitty)
    wanted = Counter(deck_for(ruleset))
    if given != wanted:
        missing = sorted((wanted - given).elements())
        extra = sorted((given - wanted).elements())
        parts = []
        if missing:
            parts.append("missing " + " ".join(card_name(c) for c in missing))
        if extra:
            parts.append("extra or repeated " + " ".join(card_name(c) for c in extra))
        raise DealSpecError(f"the deal does not hold the {ruleset.game.value} deck exactly: " + "; ".join(parts))


def validate_deals(ruleset: Ruleset, specs: Sequence[DealSpec]) -> None:
    for number, spec in enumerate(specs, 1):
        try:
            validate_deal(ruleset, spec)
        except DealSpecError as error:
            raise DealSpecError(f"deal {number}: {error}") from None
