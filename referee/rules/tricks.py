"""Playing a card to the trick, who wins it, what it scores, which cards cancel, and the first lead of a deal.

Functions of the deal's table (``GameState`` calls them for every card): the trick rules of all four games are
stated here once. A card played returns what the deal does next: it goes on, it ended, or it ended early.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from typing import Any, Final

from referee.rules import kierki_scoring
from referee.rules.cards import HEARTS, HEARTS_MASK, QUEEN_OF_SPADES, Card, mask_of
from referee.rules.points import HEART_POINTS, QUEEN_OF_SPADES_POINTS
from referee.rules.records import CardPlayed, DealKind, Event, Phase, TrickEnded
from referee.rules.ruleset import LastCancelled
from referee.rules.table import Table

# What the deal does after a card (``play_to_trick``, ``lottery.play``).
GOES_ON: Final = 0
ENDED: Final = 1  # every trick is played
ENDED_EARLY: Final = 2  # ended before every card was played (Kierki deals 2-5, the loteryjka)

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


def start_play(table: Table) -> None:
    """The play phase begins: in Hearts the 2♣'s holder leads, in the other games the dealer's left."""
    table.phase = Phase.PLAY
    if table.flags.hearts_game:
        table.leader = next(s for s in range(table.flags.players) if table.hands[s] & 1)
    table.to_act = table.leader
    table.legal = -1


def play_to_trick(table: Table, seat: int, card: Card, events: list[Event] | None) -> int:
    """Add ``seat``'s card (already out of its hand) to the trick; the trick's last card ends it. Events go to
    ``events`` (None: none are kept, as in a random playout). Returns GOES_ON, ENDED or ENDED_EARLY."""
    if card & 3 == HEARTS or (card == QUEEN_OF_SPADES and table.flags.ruleset.qs_breaks_hearts):
        table.hearts_broken = True
    plays = table.plays
    plays.append((seat, card))
    players = table.flags.players
    if len(plays) < players:
        table.to_act = seat + 1 if seat + 1 < players else 0
        return GOES_ON
    return _end_trick(table, events)


def _end_trick(table: Table, events: list[Event] | None) -> int:
    plays = tuple(table.plays)
    leader = table.leader
    number = table.trick_number
    winner = double_deck_winner(table) if table.flags.double_deck else single_deck_winner(table)
    cards = [card for _, card in plays]
    last = number == table.flags.hand_size
    if winner is None and last:
        winner = last_cancelled_winner(table)
    collected: list[Card] = []
    if winner is None:
        table.pending.extend(cards)
        if number == 1:
            table.pending.extend(table.kitty)
            table.kitty = []
        next_leader = leader
    else:
        collected = cards + table.pending
        table.pending = []
        if number == 1:
            collected.extend(table.kitty)
            table.kitty = []
        next_leader = winner
        score_trick(table, winner, collected, number)
    if events is not None:
        ended = trick_ended(number, leader, plays, winner, tuple(collected), table.number)
        table.unviewed.append(ended)
        events.append(ended)
    table.plays = []
    table.leader = next_leader
    table.to_act = next_leader
    table.trick_number += 1
    if last:
        return ENDED
    if table.penalty:
        table.taken |= mask_of(cards)
        if kierki_scoring.ends_early(table.kind, table.taken, table.flags.ruleset):
            return ENDED_EARLY
    return GOES_ON


def single_deck_winner(table: Table) -> int:
    plays = table.plays
    best_seat, best = plays[0]
    trump = table.trump
    for i in range(1, len(plays)):
        seat, card = plays[i]
        suit = card & 3
        if (suit == best & 3 and card > best) or (suit == trump and best & 3 != trump):
            best_seat, best = seat, card
    return best_seat


def double_deck_winner(table: Table) -> int | None:
    led = table.plays[0][1] & 3
    cancelled = cancelled_cards(card for _, card in table.plays)
    live = [(card, seat) for seat, card in table.plays if card & 3 == led and card not in cancelled]
    return max(live)[1] if live else None


def last_cancelled_winner(table: Table) -> int | None:
    rule = table.flags.ruleset.last_cancelled
    if rule is LastCancelled.LEADER:
        return table.leader
    if rule is LastCancelled.SECOND_HIGHEST:
        led = table.plays[0][1] & 3
        top = max(card for _, card in table.plays if card & 3 == led)
        return [seat for seat, card in table.plays if card == top][-1]
    return None


def score_trick(table: Table, winner: int, collected: list[Card], number: int) -> None:
    flags = table.flags
    if table.kind is _TRUMP_DEAL:
        table.scores[winner] += flags.ruleset.trump_trick_value
    elif flags.kierki:
        table.scores[winner] += kierki_scoring.trick_penalty(table.kind, mask_of(collected), number, flags.ruleset)
    elif flags.double_deck:
        table.scores[winner] += sum(
            HEART_POINTS if card & 3 == HEARTS else QUEEN_OF_SPADES_POINTS if card == QUEEN_OF_SPADES else 0
            for card in collected
        )
    else:
        taken = mask_of(collected)
        table.scores[winner] += HEART_POINTS * (taken & HEARTS_MASK).bit_count() + QUEEN_OF_SPADES_POINTS * (
            taken >> QUEEN_OF_SPADES & 1
        )


def moon_shooter(table: Table) -> int:
    """The Hearts games: the seat that took every point of the deal (it chooses how that scores), or -1."""
    if table.flags.kierki:
        return -1
    full = 52 if table.flags.double_deck else 26
    for seat, points in enumerate(table.scores):
        if points == full:
            return seat
    return -1
