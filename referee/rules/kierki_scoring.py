"""Polish Kierki penalty values, the robber, and the early end of deals 2-5 (RULES.md §2.1, §3.1)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.rules.cards import HEARTS_MASK, KING_OF_HEARTS, KINGS_JACKS_MASK, QUEENS_MASK
from referee.rules.records import DealKind
from referee.rules.ruleset import Game, Ruleset

PENALTY_KINDS = (
    DealKind.NO_TRICKS,
    DealKind.NO_HEARTS,
    DealKind.NO_QUEENS,
    DealKind.NO_KINGS_JACKS,
    DealKind.NO_KING_OF_HEARTS,
    DealKind.NO_SEVENTH_LAST,
)
HEART_LEAD_BAN = frozenset({DealKind.NO_HEARTS, DealKind.NO_KING_OF_HEARTS, DealKind.ROBBER})
_KING_OF_HEARTS_BIT = 1 << KING_OF_HEARTS


@dataclass(frozen=True)
class PenaltyValues:
    """The points of each penalty of a Kierki game, and the loteryjka's bonuses for the first two out."""

    trick: int
    heart: int
    queen: int
    king_or_jack: int
    king_of_hearts: int
    seventh_or_last: int
    lottery_bonuses: tuple[int, int]


VALUES = {
    Game.KIERKI: PenaltyValues(20, 20, 60, 30, 150, 75, (800, 500)),
    Game.KIERKI3: PenaltyValues(15, 20, 60, 30, 140, 70, (790, 485)),
}


def deal_kinds(ruleset: Ruleset) -> tuple[DealKind, ...]:
    """The deals of a match in order: penalties, the robber, one trump deal per player, the loteryjka."""
    robber = (DealKind.ROBBER,) if ruleset.rozbojnik else ()
    return PENALTY_KINDS + robber + (DealKind.TRUMP,) * ruleset.players + (DealKind.LOTTERY,)


def trick_penalty(kind: DealKind, taken: int, number: int, ruleset: Ruleset) -> int:
    """Points (negative) for taking the trick ``number`` holding the cards of mask ``taken``."""
    v = VALUES[ruleset.game]
    points = 0
    every = kind is DealKind.ROBBER
    if every or kind is DealKind.NO_TRICKS:
        points -= v.trick
    if every or kind is DealKind.NO_HEARTS:
        points -= v.heart * (taken & HEARTS_MASK).bit_count()
    if every or kind is DealKind.NO_QUEENS:
        points -= v.queen * (taken & QUEENS_MASK).bit_count()
    if every or kind is DealKind.NO_KINGS_JACKS:
        points -= v.king_or_jack * (taken & KINGS_JACKS_MASK).bit_count()
    if (every or kind is DealKind.NO_KING_OF_HEARTS) and taken & _KING_OF_HEARTS_BIT:
        points -= v.king_of_hearts
    if (every or kind is DealKind.NO_SEVENTH_LAST) and number in ruleset.deal6_tricks:
        points -= v.seventh_or_last
    return points


_LAST_PENALTY_CARDS = {
    DealKind.NO_HEARTS: HEARTS_MASK,
    DealKind.NO_QUEENS: QUEENS_MASK,
    DealKind.NO_KINGS_JACKS: KINGS_JACKS_MASK,
    DealKind.NO_KING_OF_HEARTS: _KING_OF_HEARTS_BIT,
}


def ends_early(kind: DealKind, played: int, ruleset: Ruleset) -> bool:
    """True once every penalty card of a deal 2-5 has been taken (``played`` holds every finished trick)."""
    if ruleset.play_out_all_tricks:
        return False
    wanted = _LAST_PENALTY_CARDS.get(kind)
    return wanted is not None and played & wanted == wanted
