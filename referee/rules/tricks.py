"""Who wins a trick, what it scores, which cards cancel, and the two records made on every card and trick.

Functions of the game state (``GameState._end_trick`` calls them): the trick rules of all four games are stated
here once.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from referee.rules import kierki_scoring
from referee.rules.cards import HEARTS, HEARTS_MASK, QUEEN_OF_SPADES, Card, mask_of
from referee.rules.points import HEART_POINTS, QUEEN_OF_SPADES_POINTS
from referee.rules.records import CardPlayed, DealKind, TrickEnded
from referee.rules.ruleset import LastCancelled

if TYPE_CHECKING:
    from referee.rules.state import GameState

_TRUMP_DEAL: Final = DealKind.TRUMP


# The two events made on every card and every trick are built slot by slot. For a frozen dataclass with slots
# and no __post_init__ that is all its generated __init__ does (object.__setattr__ per field), at about half the
# cost. If a class stops qualifying, or its fields are not the ones named here, its constructor is used.
def _slot_setters(cls: type, names: tuple[str, ...]) -> list[Any] | None:
    fields = tuple(field.name for field in dataclasses.fields(cls))
    if fields != names or hasattr(cls, "__post_init__") or "__slots__" not in cls.__dict__:
        return None
    return [cls.__dict__[name].__set__ for name in names]


_CARD_PLAYED_SETTERS: Final = _slot_setters(CardPlayed, ("seat", "card", "deal"))
_TRICK_ENDED_SETTERS: Final = _slot_setters(TrickEnded, ("number", "leader", "plays", "winner", "collected", "deal"))


def card_played(seat: int, card: Card, deal: int) -> CardPlayed:
    setters = _CARD_PLAYED_SETTERS
    if setters is None:
        return CardPlayed(seat, card, deal)
    event: CardPlayed = object.__new__(CardPlayed)
    setters[0](event, seat)
    setters[1](event, card)
    setters[2](event, deal)
    return event


def trick_ended(
    number: int,
    leader: int,
    plays: tuple[tuple[int, Card], ...],
    winner: int | None,
    collected: tuple[Card, ...],
    deal: int,
) -> TrickEnded:
    setters = _TRICK_ENDED_SETTERS
    if setters is None:
        return TrickEnded(number, leader, plays, winner, collected, deal)
    event: TrickEnded = object.__new__(TrickEnded)
    for setter, value in zip(setters, (number, leader, plays, winner, collected, deal), strict=True):
        setter(event, value)
    return event


def cancelled_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cancellation Hearts: the cards played twice to one trick (one from each deck), which cancel each other."""
    counts = Counter(cards)
    return tuple(sorted(card for card, count in counts.items() if count > 1))


def single_deck_winner(state: GameState) -> int:
    plays = state._plays
    best_seat, best = plays[0]
    trump = state.trump
    for i in range(1, len(plays)):
        seat, card = plays[i]
        suit = card & 3
        if (suit == best & 3 and card > best) or (suit == trump and best & 3 != trump):
            best_seat, best = seat, card
    return best_seat


def double_deck_winner(state: GameState) -> int | None:
    led = state._plays[0][1] & 3
    cancelled = cancelled_cards(card for _, card in state._plays)
    live = [(card, seat) for seat, card in state._plays if card & 3 == led and card not in cancelled]
    return max(live)[1] if live else None


def last_cancelled_winner(state: GameState) -> int | None:
    rule = state.ruleset.last_cancelled
    if rule is LastCancelled.LEADER:
        return state._leader
    if rule is LastCancelled.SECOND_HIGHEST:
        led = state._plays[0][1] & 3
        top = max(card for _, card in state._plays if card & 3 == led)
        return [seat for seat, card in state._plays if card == top][-1]
    return None


def score_trick(state: GameState, winner: int, collected: list[Card], number: int) -> None:
    if state.kind is _TRUMP_DEAL:
        state._deal_scores[winner] += state.ruleset.trump_trick_value
    elif state._kierki:
        state._deal_scores[winner] += kierki_scoring.trick_penalty(
            state.kind, mask_of(collected), number, state.ruleset
        )
    elif state._double_deck:
        state._deal_scores[winner] += sum(
            HEART_POINTS if card & 3 == HEARTS else QUEEN_OF_SPADES_POINTS if card == QUEEN_OF_SPADES else 0
            for card in collected
        )
    else:
        taken = mask_of(collected)
        state._deal_scores[winner] += HEART_POINTS * (taken & HEARTS_MASK).bit_count() + QUEEN_OF_SPADES_POINTS * (
            taken >> QUEEN_OF_SPADES & 1
        )
