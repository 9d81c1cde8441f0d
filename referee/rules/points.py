"""What each thing taken is worth in a game: the one statement of the point values, which scoring applies and the
protocol tells bots (``game_start.scoring``), so no bot needs RULES.md to know them.

Kierki's values are negative (penalties) but for the trump tricks and the loteryjka bonuses; the Hearts games count
penalty points up (which total wins is ``Game.higher_is_better``). Which deal scores which item is the deal's kind
(PROTOCOL.md §10 has the table).
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.rules import kierki_scoring
from referee.rules.ruleset import Game, Ruleset

HEART_POINTS = 1  # Hearts games: each heart taken
QUEEN_OF_SPADES_POINTS = 13  # Hearts games: each Q♠ taken (both copies count in Cancellation Hearts)


@dataclass(frozen=True)
class PointValues:
    """Points for each item taken; 0 or empty where the game has no such item."""

    trick: int = 0  # Kierki no_tricks and robber: each trick
    heart: int = 0  # Kierki no_hearts and robber; Hearts games: each heart
    queen: int = 0  # Kierki no_queens and robber: each queen
    king_or_jack: int = 0  # Kierki no_kings_jacks and robber: each king or jack
    king_of_hearts: int = 0  # Kierki no_king_of_hearts and robber: the K♥
    seventh_or_last: int = 0  # Kierki no_seventh_last and robber: each of the tricks below
    seventh_or_last_tricks: tuple[int, ...] = ()
    trump_trick: int = 0  # Kierki trump deals: each trick
    lottery: tuple[int, ...] = ()  # Kierki loteryjka: the first and second player out
    queen_of_spades: int = 0  # Hearts games: each Q♠
    moon: int = 0  # Hearts games: the moon value


def point_values(ruleset: Ruleset) -> PointValues:
    if ruleset.game in (Game.KIERKI, Game.KIERKI3):
        v = kierki_scoring.VALUES[ruleset.game]
        return PointValues(
            trick=-v.trick,
            heart=-v.heart,
            queen=-v.queen,
            king_or_jack=-v.king_or_jack,
            king_of_hearts=-v.king_of_hearts,
            seventh_or_last=-v.seventh_or_last,
            seventh_or_last_tricks=ruleset.deal6_tricks,
            trump_trick=ruleset.trump_trick_value,
            lottery=v.lottery_bonuses,
        )
    return PointValues(heart=HEART_POINTS, queen_of_spades=QUEEN_OF_SPADES_POINTS, moon=ruleset.moon_value)
