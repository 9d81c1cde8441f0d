"""Shuffling, dealing and given deals.

The deals of a match must be reproducible by anyone who knows the seed (an organiser publishing it afterwards,
a replay being verified) and unguessable by a bot that knows only its own cards. A seeded Mersenne Twister is
the first but not the second: a bot that sees 13 cards can search the seeds. So every random choice is drawn
from a keyed cryptographic stream:

    stream(label, game, deal) = HMAC-SHA256(key = seed as UTF-8,
                                             msg = label | game as 8 bytes | deal as 8 bytes | counter as 8 bytes)
                                for counter = 0, 1, 2, ... concatenated (big-endian integers)

and ``below(n)``, a uniform integer in ``[0, n)``, takes the next 8 bytes as an unsigned big-endian integer
``x``, draws again while ``x >= 2**64 - 2**64 % n`` (so no residue is favoured) and returns ``x % n``.

- The first dealer of game ``g`` is ``stream(b"dealer", g, 0).below(players)``; dealers then rotate left.
- Deal ``d`` of game ``g`` shuffles the deck (card ids ascending, each twice in the two-deck game) with
  Fisher-Yates driven by ``stream(b"deal", g, d)``: for ``i`` from the last index down to 1, swap ``i`` and
  ``below(i + 1)``; then deals one card at a time clockwise from the dealer's left; leftovers form the kitty.

A seed is any text; the default is 128 random bits from the operating system. A short seed (``7``) can be found
by any bot from its own cards, so it suits tests, not competitions. docs/rules/dealing.md says how to
check a published seed.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import struct
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


_TWO_64 = 1 << 64
_FOUR_UINT64: Final = struct.Struct(">4Q")  # a 32-byte block as four big-endian unsigned 64-bit integers


class KeyedStream:
    """Uniform integers from HMAC-SHA256 of the seed over (label, game, deal, counter): see the module docstring.

    The HMAC keyed with the seed is made once and copied for each block (the standard library's ``copy``), and
    each 32-byte block is split into its four 64-bit integers at once: a shuffle costs about half as much."""

    __slots__ = ("_counter", "_keyed", "_prefix", "_values")

    def __init__(self, seed: str, label: bytes, game: int, deal: int) -> None:
        self._keyed = hmac.new(seed.encode("utf-8"), digestmod=hashlib.sha256)
        self._prefix = label + game.to_bytes(8, "big") + deal.to_bytes(8, "big")
        self._counter = 0
        self._values: list[int] = []  # the current block's integers not yet drawn, the next one last

    def _next64(self) -> int:
        values = self._values
        if not values:
            block = self._keyed.copy()
            block.update(self._prefix + self._counter.to_bytes(8, "big"))
            values.extend(reversed(_FOUR_UINT64.unpack(block.digest())))
            self._counter += 1
        return values.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        limit = _TWO_64 - _TWO_64 % n
        while True:
            value = self._next64()
            if value < limit:
                return value % n


Randomness = KeyedStream | random.Random  # a random.Random only for tests and check-bot's made-up deals


def _below(rng: Randomness, n: int) -> int:
    return rng.below(n) if isinstance(rng, KeyedStream) else int(rng.random() * n)


def shuffle(cards: list[Card], rng: Randomness) -> None:
    """Fisher-Yates: for i from the last index down to 1, swap i with a uniform index in [0, i]."""
    for i in range(len(cards) - 1, 0, -1):
        j = _below(rng, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def first_dealer(seed: str, game: int, players: int) -> int:
    return KeyedStream(seed, b"dealer", game, 0).below(players)


def seeded_deal(ruleset: Ruleset, seed: str, game: int, deal: int, dealer: int) -> DealSpec:
    """Deal ``deal`` of game ``game`` from ``seed``: what anyone holding the seed can recompute."""
    return deal_cards(ruleset, dealer, KeyedStream(seed, b"deal", game, deal))


def deal_cards(ruleset: Ruleset, dealer: int, rng: Randomness) -> DealSpec:
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
