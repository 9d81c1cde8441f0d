"""One seat's view of the game: all that seat may know at this moment, nothing more.

Built fresh from the state for each request (never a shared mutable object), so no seat can ever be handed
another seat's hand by accident: the only cards in it are the seat's own, the cards played to tricks, and what
the seat itself passed and received.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.rules.cards import Card, Suit
from referee.rules.records import DealKind, MoonOption, Phase
from referee.rules.ruleset import Game


@dataclass(frozen=True, slots=True)
class TrickView:
    """A finished trick as every seat sees it: who played what and who won, not what the winner collected."""

    number: int
    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None
    deal: int = 0


@dataclass(frozen=True, slots=True)
class Observation:
    game: Game
    players: int
    seat: int
    deal: int
    kind: DealKind
    dealer: int
    phase: Phase
    to_act: int  # -1 once the game is over
    hand: tuple[Card, ...]  # while trump is being named: the dealer's first cards only, others see none
    hand_sizes: tuple[int, ...]
    trump: Suit | None
    trump_named: bool
    pass_offset: int  # 0: no passing this deal
    passed: tuple[Card, ...]
    received: tuple[Card, ...]
    trick_leader: int
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[TrickView, ...]
    deal_scores: tuple[int, ...]
    totals: tuple[int, ...]
    legal: tuple[Card, ...]  # only for the seat to play
    lottery_start_rank: int | None
    lottery_columns: tuple[tuple[int, int] | None, ...]
    lottery_finished: tuple[int, ...]
    kitty_size: int
    pending_cards: int
    moon_options: dict[MoonOption, tuple[int, ...]] | None
    hearts_broken: bool
