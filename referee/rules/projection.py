"""What one seat may see of each event: the only place that decides it.

The rules core's events hold everything (every hand of a deal, every card passed, the kitty inside a collected
pile). ``project(event, seat)`` gives what ``seat`` may know of one event, or None when it learns nothing from it.
The wire (messages to bots), the replay viewer's seat views and the leak tests all use this one function, so a
seat's view cannot differ between them. It keeps no memory: each event carries what its projection needs.

What is private and to whom:

- a deal's hands: each seat sees only its own; in a Kierki trump deal nobody sees a hand until trump is named
  (the dealer names it from their first cards, which only the dealer's own observation holds);
- the kitty: only its size, ever (whoever collects it learns its cards from their score, not from a message);
- an exchange: each seat sees what it sent, what it received and from whom, and its new hand;
- a trick: who played what and who won it, not what the winner collected (the pending pile, the kitty).

Everything else (cards played, loteryjka passes, players going out, moons, scores, the result) is public.

``redactions(event, seat)`` states the same for an event written whole (a replay log's record): which of its fields
``seat`` may not see as they are, and what it sees of each instead; it is built on ``project``, so the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from referee.rules.cards import Card, Suit
from referee.rules.records import (
    CardPlayed,
    DealEnded,
    DealKind,
    DealStarted,
    Event,
    GameEnded,
    LotteryPassed,
    MoonShot,
    PassesExchanged,
    PlayerOut,
    TrickEnded,
    TrumpChosen,
)
from referee.rules.table import TrickView

__all__ = ["CardsPassed", "HandDealt", "SeatEvent", "is_public", "project", "redactions"]


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A new deal as one seat sees it: its own hand (in dealing order) and what the whole table knows."""

    deal: int
    kind: DealKind
    dealer: int
    hand: tuple[Card, ...]
    trump: Suit | None  # set when the deal's hand is seen only once trump is named
    pass_offset: int  # receiver = (seat + pass_offset) % players; 0 = no passing
    kitty_size: int


@dataclass(frozen=True, slots=True)
class CardsPassed:
    """One seat's side of an exchange: what it sent, what it received and from whom, and its hand now."""

    deal: int
    pass_offset: int
    sent: tuple[Card, ...]
    received: tuple[Card, ...]
    giver: int
    hand: tuple[Card, ...]  # lowest id first, as the state holds it


SeatEvent = HandDealt | CardsPassed | CardPlayed | LotteryPassed | TrickView | PlayerOut | DealEnded | GameEnded


def _hand_dealt(deal: DealStarted, seat: int, trump: Suit | None) -> HandDealt:
    return HandDealt(deal.deal, deal.kind, deal.dealer, deal.hands[seat], trump, deal.pass_offset, len(deal.kitty))


# The events every seat sees alike: ``project`` gives each seat an equal view of them (or None to all).
_PUBLIC: Final[frozenset[type]] = frozenset(
    {CardPlayed, LotteryPassed, PlayerOut, DealEnded, GameEnded, TrickEnded, MoonShot}
)


def is_public(event: Event) -> bool:
    """Whether every seat's view of ``event`` is the same, so one seat's ``project`` serves all (the referee
    builds and encodes such a message once)."""
    return type(event) in _PUBLIC


def project(event: Event, seat: int) -> SeatEvent | None:
    """What ``seat`` may see of ``event``; None when the seat learns nothing from it."""
    kind = type(event)
    if kind is CardPlayed or kind is LotteryPassed or kind is PlayerOut or kind is DealEnded or kind is GameEnded:
        return event  # type: ignore[return-value]
    if kind is TrickEnded:
        trick: TrickEnded = event  # type: ignore[assignment]
        return TrickView(trick.number, trick.leader, trick.plays, trick.winner, trick.deal)
    if kind is DealStarted:
        deal: DealStarted = event  # type: ignore[assignment]
        return None if deal.kind is DealKind.TRUMP else _hand_dealt(deal, seat, None)
    if kind is TrumpChosen:
        chosen: TrumpChosen = event  # type: ignore[assignment]
        assert chosen.dealt is not None, "a TrumpChosen from the state always carries its deal"
        return _hand_dealt(chosen.dealt, seat, chosen.suit)
    if kind is PassesExchanged:
        exchange: PassesExchanged = event  # type: ignore[assignment]
        players = len(exchange.passed)
        giver = (seat - exchange.pass_offset) % players
        return CardsPassed(
            exchange.deal,
            exchange.pass_offset,
            exchange.passed[seat],
            exchange.passed[giver],
            giver,
            exchange.hands[seat],
        )
    assert kind is MoonShot, kind
    return None  # told with the deal's end (DealEnded.moon)


def redactions(event: Event, seat: int, named: TrumpChosen | None = None) -> dict[str, object]:
    """The fields of ``event`` that ``seat`` may not see as they are, each with what the seat sees of it instead:
    None where it sees nothing, and for a field with one entry per seat, None in the places of what it may not see.
    Empty when the seat may see the whole event. ``named``: for a trump deal, the naming of its trump, after which
    each seat sees its own hand (without it, no hand of the deal is seen).
    """
    if isinstance(event, DealStarted):
        seen = project(event, seat)
        if seen is None and named is not None:  # a trump deal: its hands are seen once trump is named
            seen = project(named, seat)
        hand = seen.hand if isinstance(seen, HandDealt) else None
        return {"hands": tuple(hand if s == seat else None for s in range(len(event.hands))), "kitty": None}
    if isinstance(event, PassesExchanged):
        side = project(event, seat)
        assert isinstance(side, CardsPassed)
        passed: list[tuple[Card, ...] | None] = [None] * len(event.passed)
        passed[side.giver] = side.received
        passed[seat] = side.sent
        return {"passed": tuple(passed)}
    if isinstance(event, TrickEnded):
        return {"collected": None}  # the projection shows who played what and who won, not the pile
    return {}
