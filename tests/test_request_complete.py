"""Every request is complete (PROTOCOL.md section 8): whatever a seat's messages revealed during the game, and that
bears on the rest of it, can be derived from its current request alone, so a bot need remember nothing.

Whole games of every game are walked through ``referee.wire`` as a match sends them. Each seat keeps what a bot that
remembers everything would know (its ``hello``, ``game_start`` and every event message since), and at each of its
requests the facts that memory holds are compared with the same facts derived from the request alone (with the
rules of PROTOCOL.md section 10 where a fact is a rule's consequence: the first dealer from the rotation, the
dealt hand from what was played and passed). Left out, as section 8 says: earlier deals' cards and scores (their
sum is the totals), error notices, and the match's clock and length.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from rules_helpers import cards, names, new_state, random_action

from protocol import messages as m
from referee import wire
from referee.rules import GameState, Ruleset
from referee.rules.cards import parse_card, sort_for_display
from referee.rules.points import point_values

Facts = dict[str, Any]


def in_order(cards: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Cards as a hand lists them (by suit, low to high), repeats kept."""
    return tuple(names(sort_for_display([parse_card(c) for c in cards])).split()) if cards else ()


class Memory:
    """What one seat has been told in this game, message by message."""

    def __init__(self, hello: m.HelloRequest) -> None:
        self.hello = hello
        self.start: m.GameStartEvent | None = None
        self.totals: tuple[int, ...] | None = None
        self.deal: m.DealEvent | None = None
        self.passed: m.PassedEvent | None = None
        self.plays: list[tuple[int, str | None]] = []  # this deal: each card played, a loteryjka pass as None
        self.tricks: list[m.TrickEvent] = []

    def hear(self, message: m.Event) -> None:
        if isinstance(message, m.GameStartEvent):
            self.start = message
            self.totals = (0,) * message.players
        elif isinstance(message, m.DealEvent):
            self.deal, self.passed, self.plays, self.tricks = message, None, [], []
        elif isinstance(message, m.PassedEvent):
            self.passed = message
        elif isinstance(message, m.PlayedEvent):
            self.plays.append((message.seat, message.card))
        elif isinstance(message, m.LotteryPassEvent):
            self.plays.append((message.seat, None))
        elif isinstance(message, m.TrickEvent):
            self.tricks.append(message)
        elif isinstance(message, m.DealEndEvent):
            self.totals = message.totals

    def game_facts(self) -> Facts:
        assert self.start is not None and self.totals is not None
        return {
            "seat": self.start.seat,
            "game": self.hello.game,
            "players": self.start.players,
            "rules": self.hello.options,
            "scoring": self.start.scoring,
            "first_dealer": self.start.dealer,
            "totals": self.totals,
        }

    def deal_facts(self) -> Facts:
        deal = self.deal
        assert deal is not None
        facts: Facts = {
            "deal": deal.deal,
            "kind": deal.kind,
            "dealer": deal.dealer,
            "trump": deal.trump,
            "pass_direction": deal.pass_direction,
            "kitty_size": deal.kitty_size,
            "dealt": deal.hand,
        }
        if self.passed is not None:
            passed = self.passed
            facts["passed"] = (passed.sent, passed.received, passed.from_, passed.hand)
        return facts

    def play_facts(self) -> Facts:
        tricks = [(t.number, t.leader, tuple((c.seat, c.card) for c in t.cards), t.winner) for t in self.tricks]
        return {"plays": tuple(self.plays), "tricks": tuple(tricks)}


def scoring_of(game: str, players: int, rules: dict[str, m.OptionValue]) -> m.Scoring:
    """game_start.scoring from a request's game and rules: the values section 10 tabulates."""
    values = point_values(Ruleset.create(game, players, rules))
    return m.Scoring(**dataclasses.asdict(values))


def game_facts(request: m.PassRequest | m.TrumpRequest | m.PlayRequest, totals: tuple[int, ...]) -> Facts:
    assert request.seat is not None and request.game is not None
    players = len(totals)
    dealer = request.seat if isinstance(request, m.TrumpRequest) else request.dealer  # the dealer names trump
    assert dealer is not None
    return {
        "seat": request.seat,
        "game": request.game,
        "players": players,
        "rules": request.rules,
        "scoring": scoring_of(request.game, players, request.rules),
        "first_dealer": (dealer - request.deal + 1) % players,  # the deal passes to the left each deal
        "totals": totals,
    }


def kitty_size(game: str, players: int) -> int:
    return 104 % players if game == "cancellation" else 0


def pass_facts(request: m.PassRequest) -> Facts:
    assert request.game is not None
    return {
        "deal": request.deal,
        "kind": request.game,  # the one kind of deal of a Hearts game
        "dealer": request.dealer,
        "trump": None,
        "pass_direction": request.direction,
        "kitty_size": kitty_size(request.game, len(request.totals)),
        "dealt": request.hand,
    }


def play_facts(request: m.PlayRequest) -> tuple[Facts, Facts]:
    """The deal's facts and its plays, from a play request alone."""
    assert request.game is not None and request.seat is not None
    players = len(request.scores.totals)
    if request.lottery is not None:
        plays = tuple((move.seat, move.card) for move in request.lottery.moves)
    else:
        assert request.trick is not None
        plays = tuple((c.seat, c.card) for t in request.tricks for c in t.cards)
        plays += tuple((c.seat, c.card) for c in request.trick.cards)
    mine = [card for seat, card in plays if seat == request.seat and card is not None]
    hand = Counter(request.hand) + Counter(mine)  # the hand before this deal's first card
    facts: Facts = {
        "deal": request.deal,
        "kind": request.kind,
        "dealer": request.dealer,
        "trump": request.trump,
        "pass_direction": "none" if request.pass_ is None else request.pass_.direction,
        "kitty_size": kitty_size(request.game, players),
    }
    if request.pass_ is not None:
        exchange = request.pass_
        after = in_order(list(hand.elements()))
        facts["passed"] = (exchange.sent, exchange.received, exchange.from_, after)
        hand = hand - Counter(exchange.received) + Counter(exchange.sent)
    facts["dealt"] = in_order(list(hand.elements()))
    tricks = tuple((t.number, t.leader, tuple((c.seat, c.card) for c in t.cards), t.winner) for t in request.tricks)
    return facts, {"plays": plays, "tricks": tricks}


def check(memory: Memory, request: m.Request) -> str:
    """Compare what the memory holds with what the request alone says; the request's type, for counting."""
    if isinstance(request, m.PlayRequest):
        assert memory.game_facts() == game_facts(request, request.scores.totals)
        deal, plays = play_facts(request)
        remembered = memory.deal_facts()
        remembered["dealt"] = in_order(remembered["dealt"])  # a deal event lists the hand in dealing order
        if "passed" in remembered:
            sent, received, giver, hand = remembered["passed"]
            # the hand after the exchange, less nothing: compare it as the request derives it (before any play)
            remembered["passed"] = (sent, received, giver, in_order(hand))
        assert remembered == deal
        assert memory.play_facts() == plays
    elif isinstance(request, m.PassRequest):
        assert memory.game_facts() == game_facts(request, request.totals)
        remembered = memory.deal_facts()
        remembered["dealt"] = in_order(remembered["dealt"])
        assert remembered == pass_facts(request)
        assert memory.plays == [] and memory.tricks == []
    elif isinstance(request, m.TrumpRequest):
        assert memory.game_facts() == game_facts(request, request.totals)
        assert memory.deal is None or memory.deal.deal == request.deal - 1  # its own deal is told after it
    elif isinstance(request, m.MoonRequest):
        assert request.seat is not None and memory.start is not None and memory.deal is not None
        before = list(request.options.self_)  # the totals before the moon: the others' are unchanged by "self"
        before[request.seat] = request.options.others[request.seat]  # and the shooter's by "others"
        assert memory.game_facts()["totals"] == tuple(before)
        assert (request.seat, request.game, request.rules, request.deal) == (
            memory.start.seat,
            memory.hello.game,
            memory.hello.options,
            memory.deal.deal,
        )
    return type(request).__name__


def walk(state: GameState, choose: Callable[[GameState], Any]) -> Counter[str]:
    """Play ``state`` out, checking every request against its seat's memory; the requests checked, by type."""
    ruleset = state.ruleset
    hello = m.HelloRequest(
        id=1,
        protocol=1,
        game=ruleset.game.value,
        players=ruleset.players,
        seat=0,
        options=ruleset.options(),  # as the match's handshake sends them
        time=m.TimeControl(move_ms=1000, startup_ms=1000, bank_ms=0, increment_ms=0),
        games=1,
    )
    memories = [Memory(hello) for _ in range(ruleset.players)]
    for seat, memory in enumerate(memories):
        memory.hear(wire.game_start(state, seat, 1))
    checked: Counter[str] = Counter()
    pending = list(state.events)
    while not state.is_over:
        for memory, messages in zip(memories, wire.messages_for(pending, ruleset.players, 1), strict=True):
            for message in messages:
                memory.hear(message)
        checked[check(memories[state.to_act], wire.request_for(state, 2, 1, 1000))] += 1
        pending = state.apply(choose(state))
    return checked


def randomly(seed: int) -> Callable[[GameState], Any]:
    rng = random.Random(seed)
    return lambda state: random_action(state, rng)


GAMES = [
    ("kierki", None, {}),
    ("kierki3", None, {"lottery_start": "8"}),
    ("kierki3", None, {"allow_no_trump": True}),
    ("hearts", None, {"target": 60}),
    ("cancellation", 7, {"target": 40}),
]


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[f"{g}-{o}" for g, _, o in GAMES])
def test_every_request_of_a_game_holds_what_its_seat_was_told(
    game: str, players: int | None, options: dict[str, object]
) -> None:
    ruleset = Ruleset.create(game, players, options)
    checked = walk(GameState(ruleset, seed=9), randomly(9))
    assert checked["PlayRequest"] > 100
    if game.startswith("kierki"):
        assert checked["TrumpRequest"] == ruleset.players  # each player names trump once
    else:
        assert checked["PassRequest"] >= ruleset.players


def test_the_moon_request_holds_what_its_seat_was_told() -> None:
    top = cards("S:AKQ C:AKQJT D:AKQJT")  # with these, seat 0 takes every trick when the fallback plays: a moon
    rest = [c for c in range(52) if c not in top]
    hands = [names(top), *(names(rest[i : i + 13]) for i in (0, 13, 26))]
    state = new_state("hearts", hands, options={"passing": "none", "target": 30})
    checked = walk(state, lambda s: s.fallback_action())
    assert checked["MoonRequest"] >= 1
