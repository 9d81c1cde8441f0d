"""Cards as small integers, and hands as bit masks.

A card is ``rank * 4 + suit`` (OpenSpiel's encoding: clubs 0, diamonds 1, hearts 2, spades 3; rank 0 is the
two, rank 12 the ace), so 2♣ = 0, Q♠ = 43, K♥ = 46 and A♠ = 51. Keeping OpenSpiel's numbering lets the Hearts
engine be differential-tested against it card for card.

A hand is an ``int`` with bit ``c`` set when card ``c`` is held. Cancellation Hearts plays with two decks, so a
hand there is two masks: ``single`` (at least one copy) and ``double`` (both copies); every other game has an
empty ``double``. Legality only ever depends on *which* cards are held, so it is computed on ``single`` alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

Card = int
Suit = int

# Constants are Final so that the compiled build reads them as C constants, not module attributes.
CLUBS: Final = 0
DIAMONDS: Final = 1
HEARTS: Final = 2
SPADES: Final = 3
SUIT_LETTERS: Final = "CDHS"
SUIT_SYMBOLS: Final = "♣♦♥♠"
RANK_LETTERS: Final = "23456789TJQKA"

TWO: Final = 0
JACK: Final = 9
QUEEN: Final = 10
KING: Final = 11


def make_card(rank: int, suit: Suit) -> Card:
    return rank * 4 + suit


TWO_OF_CLUBS: Final = make_card(TWO, CLUBS)
QUEEN_OF_SPADES: Final = make_card(QUEEN, SPADES)
KING_OF_HEARTS: Final = make_card(KING, HEARTS)

FULL_DECK: Final = (1 << 52) - 1
SUIT_MASKS: Final = tuple(sum(1 << make_card(r, s) for r in range(13)) for s in range(4))
HEARTS_MASK: Final = SUIT_MASKS[HEARTS]
QUEENS_MASK: Final = sum(1 << make_card(QUEEN, s) for s in range(4))
KINGS_JACKS_MASK: Final = sum(1 << make_card(r, s) for s in range(4) for r in (JACK, KING))
POINT_CARDS_MASK: Final = HEARTS_MASK | (1 << QUEEN_OF_SPADES)


class CardParseError(ValueError):
    """A card name that is not two characters of rank and suit."""


def parse_card(text: str) -> Card:
    """Parse a card in its one written form, ``"QS"``, ``"TH"``, ``"2C"``: the protocol's, the replay logs' and the
    deal files' (``"10H"``, ``"qs"`` or spaces are refused, so a card is always written the same way)."""
    if len(text) != 2 or text[0] not in RANK_LETTERS or text[1] not in SUIT_LETTERS:
        raise CardParseError(
            f"{text!r} is not a card: write rank then suit in capitals, ranks 2-9 T J Q K A (T is the ten), "
            "suits C D H S (for example QS, TH, 2C)"
        )
    return make_card(RANK_LETTERS.index(text[0]), SUIT_LETTERS.index(text[1]))


def parse_suit(text: str) -> Suit:
    name = text.strip().upper()
    if len(name) != 1 or name not in SUIT_LETTERS:
        raise CardParseError(f"{text!r} is not a suit: use one of C D H S")
    return SUIT_LETTERS.index(name)


NO_TRUMP: Final = "NT"  # how no trump is named where a trump is (the protocol, the replay logs)


def trump_name(suit: Suit | None) -> str:
    """A trump choice's written form: its suit's letter, or ``NT`` for no trump (None)."""
    return NO_TRUMP if suit is None else SUIT_LETTERS[suit]


def parse_trump(text: str) -> Suit | None:
    """A trump choice from its written form (``trump_name``): a suit letter, or ``NT`` for no trump (None)."""
    return None if text == NO_TRUMP else parse_suit(text)


_CARD_NAMES: Final = tuple(RANK_LETTERS[card >> 2] + SUIT_LETTERS[card & 3] for card in range(52))


def card_name(card: Card) -> str:
    """A card's two letters, "QS" (made once per card: several cards are named on every decision)."""
    return _CARD_NAMES[card]


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def card_list(mask: int) -> list[Card]:
    """The cards of a mask as a list, lowest id first (a hot path: no generator; in the compiled build this
    loop is faster than reading the mask a byte at a time from tables)."""
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sort_for_display(cards: Iterable[Card]) -> list[Card]:
    """Grouped by suit (♣ ♦ ♥ ♠), low to high within a suit."""
    return sorted(cards, key=lambda c: (c & 3, c >> 2))


def lowest_in(mask: int) -> Card:
    return (mask & -mask).bit_length() - 1
