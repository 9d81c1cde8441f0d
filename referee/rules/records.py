"""What a seat may do (actions), what happened (events) and why a choice was refused (errors).

Events are frozen records appended to ``GameState.events`` as the game goes (pokerkit's habit): the replay log
and the messages to bots are both derived from them, so the log can never disagree with the game. Some events
hold private information (the deal holds every hand, an exchange every passed card); who may see what is decided
in one place, ``projection.project``. Events carry what that projection needs (the deal number, the hands after
an exchange), so it needs no memory of earlier events; those extra fields take no part in equality.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from referee.rules.cards import Card, Suit


class Phase(enum.StrEnum):
    PASS = "pass"
    TRUMP = "trump"
    PLAY = "play"
    MOON = "moon"
    OVER = "over"


class DealKind(enum.StrEnum):
    NO_TRICKS = "no_tricks"
    NO_HEARTS = "no_hearts"
    NO_QUEENS = "no_queens"
    NO_KINGS_JACKS = "no_kings_jacks"
    NO_KING_OF_HEARTS = "no_king_of_hearts"
    NO_SEVENTH_LAST = "no_seventh_last"
    ROBBER = "robber"
    TRUMP = "trump"
    LOTTERY = "lottery"
    HEARTS = "hearts"
    CANCELLATION = "cancellation"


class MoonOption(enum.StrEnum):
    SELF = "self"
    OTHERS = "others"


# --- actions -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PassCards:
    """Pass these cards to the seat the deal's pass offset names."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    """Name the trump suit of a trump deal (None: no trump)."""

    suit: Suit | None  # None is no trump, when the ruleset allows it


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play this card: to the trick, or in the loteryjka to its column."""

    card: Card


@dataclass(frozen=True, slots=True)
class ChooseMoon:
    """After shooting the moon: take the points off oneself or add them to every other seat."""

    option: MoonOption


Action = PassCards | ChooseTrump | PlayCard | ChooseMoon

# --- events ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealStarted:
    """A deal began: its kind, the dealer, every hand and the kitty."""

    deal: int
    kind: DealKind
    dealer: int
    hands: tuple[tuple[Card, ...], ...]  # private: each hand in dealing order
    kitty: tuple[Card, ...]  # private until collected
    pass_offset: int  # receiver = (seat + pass_offset) % players; 0 = no passing


@dataclass(frozen=True, slots=True)
class TrumpChosen:
    """A seat named the trump suit (None: no trump)."""

    seat: int
    suit: Suit | None
    dealt: DealStarted | None = field(default=None, compare=False)  # the deal it completes (for the projection)


@dataclass(frozen=True, slots=True)
class PassesExchanged:
    """Every seat's passed cards reached their receivers."""

    pass_offset: int
    passed: tuple[tuple[Card, ...], ...]  # private: what each seat sent
    deal: int = field(default=0, compare=False)
    hands: tuple[tuple[Card, ...], ...] = field(default=(), compare=False)  # private: each hand after the exchange


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A seat played a card to the trick (or, in the loteryjka, to a column)."""

    seat: int
    card: Card
    deal: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class LotteryPassed:
    """In the loteryjka, a seat with no card it may play passed its turn."""

    seat: int
    deal: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class TrickEnded:
    """A trick is complete: its plays, its winner and what the winner collected."""

    number: int
    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None  # None: every led-suit card cancelled (Cancellation Hearts)
    collected: tuple[Card, ...]  # what the winner took: the trick, plus any pending pile and kitty
    deal: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class PlayerOut:
    """In the loteryjka, a seat emptied its hand: its place among those out and its bonus."""

    seat: int
    place: int
    bonus: int
    deal: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class MoonShot:
    """A seat shot the moon (took all of the deal's points) and chose how it scores."""

    seat: int
    option: MoonOption
    deal: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class DealEnded:
    """A deal is over: each seat's score for it and the running totals."""

    deal: int
    kind: DealKind
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    early: bool  # ended before every card was played (Kierki deals 2-5, the loteryjka)
    moon: MoonShot | None = field(default=None, compare=False)  # the moon that scored this deal


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over: the final totals and each seat's place."""

    totals: tuple[int, ...]
    places: tuple[int, ...]  # 1 is best; equal totals share a place


Event = (
    DealStarted
    | TrumpChosen
    | PassesExchanged
    | CardPlayed
    | LotteryPassed
    | TrickEnded
    | PlayerOut
    | MoonShot
    | DealEnded
    | GameEnded
)

# --- errors ------------------------------------------------------------------------------------------------


class RulesError(ValueError):
    """Base of every error the rules core raises."""


class IllegalActionError(RulesError):
    """A choice the rules forbid; ``rule`` names the rule it breaks. The state is unchanged."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class DealSpecError(RulesError):
    """A given deal (hands, dealer, kitty) that is not a possible deal of the game."""
