"""``projection.project``: what each seat may see of every event, checked against the truth the events hold.

A ``Table`` follows a game from its events alone (every hand, every pass, the kitty) and states, independently of
the projection, what each seat may know at each moment: its own hand once it is shown (in a Kierki trump deal, once
trump is named), what it sent and received, and the cards played. Every event of every game is projected for
every seat, and each view may show only such cards: never a card of another seat's hand, another seat's passed
cards or the kitty. Hands shown must be the seat's exact hand (as multisets: Cancellation plays two decks).
"""

from __future__ import annotations

import functools
import random
import typing
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from rules_helpers import cards, names, new_state, random_action, view_cards

from referee.rules import (
    CardPlayed,
    DealEnded,
    DealKind,
    DealStarted,
    Event,
    GameEnded,
    GameState,
    LotteryPassed,
    MoonShot,
    PassesExchanged,
    PlayerOut,
    Ruleset,
    TrickEnded,
    TrickView,
    TrumpChosen,
    card_name,
)
from referee.rules.cards import Card
from referee.rules.projection import CardsPassed, HandDealt, SeatEvent, is_public, project

Config = tuple[str, int | None, Mapping[str, object]]
Projection = Callable[[Event, int], SeatEvent | None]

GAMES: list[Config] = [
    ("kierki", None, {}),
    ("kierki", None, {"allow_no_trump": True, "rozbojnik": False}),
    ("kierki3", None, {}),
    ("hearts", None, {}),
    ("hearts", None, {"passing": "left", "target": 50}),
    *[("cancellation", n, {}) for n in range(6, 12)],
    ("cancellation", 7, {"passing": "right", "target": 60}),
    ("cancellation", 9, {"passing": "none", "target": 60}),
]
PUBLIC = (CardPlayed, LotteryPassed, PlayerOut, DealEnded, GameEnded)
_KIERKI = {DealStarted, TrumpChosen, CardPlayed, TrickEnded, LotteryPassed, PlayerOut, DealEnded, GameEnded}
_HEARTS = {DealStarted, PassesExchanged, CardPlayed, TrickEnded, DealEnded, GameEnded}  # a moon: moon_game
KINDS: dict[str, set[type]] = {"kierki": _KIERKI, "kierki3": _KIERKI, "hearts": _HEARTS, "cancellation": _HEARTS}


@dataclass
class Table:
    """One game's truth, kept from its events, and what each seat may know of the current deal."""

    players: int
    deal: DealStarted | None = None
    hands: list[Counter[Card]] = field(default_factory=list)
    passed: tuple[tuple[Card, ...], ...] = ()
    pass_offset: int = 0
    may_know: list[set[Card]] = field(default_factory=list)
    hands_hidden: bool = False  # a Kierki trump deal before trump is named

    def apply(self, event: Event) -> None:
        if isinstance(event, DealStarted):
            self.deal = event
            self.hands = [Counter(hand) for hand in event.hands]
            self.passed, self.pass_offset = (), event.pass_offset
            self.hands_hidden = event.kind is DealKind.TRUMP
            self.may_know = [set() if self.hands_hidden else set(hand) for hand in event.hands]
        elif isinstance(event, TrumpChosen):
            assert self.deal is not None
            self.hands_hidden = False
            for seat, hand in enumerate(self.deal.hands):
                self.may_know[seat] |= set(hand)
        elif isinstance(event, PassesExchanged):
            self.passed = event.passed
            for giver, given in enumerate(event.passed):
                self.hands[giver] -= Counter(given)
                self.hands[(giver + event.pass_offset) % self.players] += Counter(given)
            for seat in range(self.players):
                self.may_know[seat] |= set(event.passed[seat]) | set(event.passed[self.giver(seat)])
        elif isinstance(event, CardPlayed):
            self.hands[event.seat][event.card] -= 1
            for known in self.may_know:
                known.add(event.card)

    def giver(self, seat: int) -> int:
        return (seat - self.pass_offset) % self.players

    def secret(self, seat: int, card: Card) -> str | None:
        """Why ``seat`` may not see ``card`` now; None when it may."""
        assert self.deal is not None
        if card in self.may_know[seat]:
            return None
        if card in self.deal.kitty:
            return "a kitty card"
        if any(card in sent for sender, sent in enumerate(self.passed) if sender not in (seat, self.giver(seat))):
            return "another seat's passed card"
        if any(hand[card] for other, hand in enumerate(self.hands) if other != seat):
            return "another seat's hand"
        return "a card it has not been shown"

    def check(self, event: Event, project: Projection = project) -> list[str]:
        """Apply ``event``; every way a seat's projection of it shows more than the seat may know."""
        self.apply(event)
        problems = []
        for seat in range(self.players):
            view = project(event, seat)
            if view is None:
                continue
            where = f"seat {seat}, {type(event).__name__} of deal {self.deal.deal if self.deal else 0}"
            if self.hands_hidden and isinstance(view, HandDealt | CardsPassed):
                problems.append(f"{where}: a hand before trump is named")
            for card in set(view_cards(view)):
                reason = self.secret(seat, card)
                if reason is not None:
                    problems.append(f"{where}: shows {card_name(card)}, {reason}")
            if isinstance(view, HandDealt) and self.deal and Counter(view.hand) != Counter(self.deal.hands[seat]):
                problems.append(f"{where}: the hand shown is not the seat's dealt hand")
            if isinstance(view, CardsPassed) and Counter(view.hand) != +self.hands[seat]:
                problems.append(f"{where}: the hand shown is not the seat's hand after the exchange")
        return problems


def play_game(config: Config, seed: int) -> list[Event]:
    """Every event of a whole game played with random legal choices."""
    game, players, options = config
    state = GameState(Ruleset.create(game, players, options), seed=seed)
    rng = random.Random(seed)
    events = list(state.events)
    while not state.is_over:
        events += state.apply(random_action(state, rng))
    return events


@functools.cache
def played(index: int) -> tuple[int, tuple[Event, ...]]:
    """The players and events of one game of ``GAMES[index]``, played once for the whole module."""
    game, players, options = GAMES[index]
    return Ruleset.create(game, players, options).players, tuple(play_game(GAMES[index], seed=index + 1))


def moon_game() -> tuple[int, list[Event]]:
    """A Hearts deal in which seat 0 holds the top clubs, diamonds and spades: it takes every trick, a moon."""
    top = cards("S:AKQ C:AKQJT D:AKQJT")
    rest = [c for c in range(52) if c not in top]
    state = new_state(
        "hearts", [names(top), *(names(rest[i : i + 13]) for i in (0, 13, 26))], dealer=3, options={"passing": "none"}
    )
    events = list(state.events)
    while not any(isinstance(e, DealEnded) for e in events):
        events += state.apply(state.fallback_action())
    return state.players, events


# --- every event of every game -------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(len(GAMES)), ids=lambda i: "-".join(map(str, GAMES[i][:2])))
def test_every_event_shows_each_seat_only_what_it_may_know(index: int) -> None:
    game, _, options = GAMES[index]
    players, events = played(index)
    expected = KINDS[game] - ({PassesExchanged} if options.get("passing") == "none" else set())
    assert expected <= {type(event) for event in events}, "the game no longer holds every kind of event"
    table = Table(players)
    assert [problem for event in events for problem in table.check(event)] == []


def test_the_games_hold_every_event_kind() -> None:
    kinds = {type(event) for index in range(len(GAMES)) for event in played(index)[1]}
    kinds |= {type(event) for event in moon_game()[1]}
    assert kinds == set(typing.get_args(Event))
    assert any(isinstance(e, DealStarted) and e.kitty for i in range(len(GAMES)) for e in played(i)[1])


def test_a_moon_is_told_with_the_deals_end_only() -> None:
    players, events = moon_game()
    table = Table(players)
    assert [problem for event in events for problem in table.check(event)] == []
    shot = next(e for e in events if isinstance(e, MoonShot))
    ended = next(e for e in events if isinstance(e, DealEnded))
    assert [project(shot, seat) for seat in range(players)] == [None] * players
    assert ended.moon == shot and all(project(ended, seat) is ended for seat in range(players))


def test_a_trump_deal_shows_no_hand_before_trump_is_named() -> None:
    for index in (0, 1, 2):
        players, events = played(index)
        trump_deals = [i for i, e in enumerate(events) if isinstance(e, DealStarted) and e.kind is DealKind.TRUMP]
        assert trump_deals
        for at in trump_deals:
            dealt = events[at]
            assert isinstance(dealt, DealStarted)
            assert [project(dealt, seat) for seat in range(players)] == [None] * players
            chosen = events[at + 1]  # naming trump is the deal's first decision
            assert isinstance(chosen, TrumpChosen)
            for seat in range(players):
                view = project(chosen, seat)
                assert isinstance(view, HandDealt)
                assert (view.hand, view.trump, view.deal) == (dealt.hands[seat], chosen.suit, dealt.deal)


def test_public_events_are_one_object_for_every_seat_and_private_ones_differ() -> None:
    players, events = played(3)  # hearts: passing
    for event in events:
        views = [project(event, seat) for seat in range(players)]
        if isinstance(event, PUBLIC):
            assert all(view is event for view in views)
        elif isinstance(event, TrickEnded):
            assert views == [TrickView(event.number, event.leader, event.plays, event.winner, event.deal)] * players
        elif isinstance(event, PassesExchanged | DealStarted):
            assert len(set(views)) == players


@pytest.mark.parametrize("index", range(len(GAMES)), ids=lambda i: "-".join(map(str, GAMES[i][:2])))
def test_is_public_holds_exactly_for_events_every_seat_sees_alike(index: int) -> None:
    # The referee encodes a public event's message once for every seat: is_public must never say so of an event
    # whose views differ, and it should say so of every event whose views never differ.
    for players, events in (played(index), moon_game()):
        check_public_flags(players, events)


def check_public_flags(players: int, events: Sequence[Event]) -> None:
    for event in events:
        views = [project(event, seat) for seat in range(players)]
        if is_public(event):
            assert views == [views[0]] * players, event
        elif isinstance(event, PassesExchanged | DealStarted | TrumpChosen):
            assert len(set(views)) == players or views == [None] * players


@settings(max_examples=examples(25), deadline=None)
@given(config=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_no_projection_shows_a_card_the_seat_may_not_know(config: Config, seed: int) -> None:
    game, players, options = config
    table = Table(Ruleset.create(game, players, options).players)
    assert [problem for event in play_game(config, seed) for problem in table.check(event)] == []


# --- the check finds leaks ---------------------------------------------------------------------------------


def leaky(change: Callable[[Event, int, SeatEvent | None], SeatEvent | None]) -> Projection:
    return lambda event, seat: change(event, seat, project(event, seat))


def problems_with(projection: Projection, index: int) -> list[str]:
    players, events = played(index)
    table = Table(players)
    return [problem for event in events for problem in table.check(event, projection)]


def test_the_check_finds_another_seats_hand() -> None:
    def next_seats_hand(event: Event, seat: int, view: SeatEvent | None) -> SeatEvent | None:
        if isinstance(view, HandDealt) and isinstance(event, DealStarted):
            return HandDealt(view.deal, view.kind, view.dealer, event.hands[(seat + 1) % 4], None, 0, 0)
        return view

    found = problems_with(leaky(next_seats_hand), 3)
    assert any("another seat's hand" in p for p in found), found
    assert any("is not the seat's dealt hand" in p for p in found), found


def test_the_check_finds_another_seats_passed_cards() -> None:
    def wrong_giver(event: Event, seat: int, view: SeatEvent | None) -> SeatEvent | None:
        if isinstance(view, CardsPassed) and isinstance(event, PassesExchanged):
            stranger = next(s for s in range(4) if s not in (seat, view.giver))
            return CardsPassed(view.deal, view.pass_offset, view.sent, event.passed[stranger], stranger, view.hand)
        return view

    found = problems_with(leaky(wrong_giver), 3)
    assert any("another seat's passed card" in p for p in found), found


def test_the_check_finds_the_kitty() -> None:
    index = next(i for i in range(len(GAMES)) if any(isinstance(e, DealStarted) and e.kitty for e in played(i)[1]))

    def with_kitty(event: Event, seat: int, view: SeatEvent | None) -> SeatEvent | None:
        if isinstance(view, HandDealt) and isinstance(event, DealStarted):
            return HandDealt(view.deal, view.kind, view.dealer, view.hand + event.kitty, None, 0, 0)
        return view

    found = problems_with(leaky(with_kitty), index)
    assert any("a kitty card" in p for p in found), found


def test_the_check_finds_a_hand_before_trump_is_named() -> None:
    def early(event: Event, seat: int, view: SeatEvent | None) -> SeatEvent | None:
        if isinstance(event, DealStarted) and event.kind is DealKind.TRUMP:
            return HandDealt(event.deal, event.kind, event.dealer, event.hands[seat], None, 0, 0)
        return view

    found = problems_with(leaky(early), 0)
    assert any("a hand before trump is named" in p for p in found), found
