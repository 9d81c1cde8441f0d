"""Random legal games of every game, player count and several option variants, checked after every step.

A hypothesis `RuleBasedStateMachine` deals from a drawn seed and plays drawn legal choices; it may also
fast-forward with random legal play, try an illegal choice, or play on a copy. After every step the invariants
hold: cards are conserved, exactly one seat is to act, no observation shows another seat's unplayed cards, and
each finished deal scored what an independent recount of its tricks says. A finished match checks its totals
(4 players: exactly 0; 3 players: -255, or 0 with +25 a trump trick).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from hypothesis_profiles import examples
from rules_helpers import points, random_action, snapshot

from referee.rules import (
    CardPlayed,
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealKind,
    DealStarted,
    Event,
    GameEnded,
    GameState,
    IllegalActionError,
    LastCancelled,
    MoonOption,
    MoonShot,
    PassCards,
    PassesExchanged,
    Passing,
    Phase,
    PlayCard,
    PlayerOut,
    Ruleset,
    TrickEnded,
    TrumpChosen,
    card_name,
)
from referee.rules.dealing import deck_for

Config = tuple[str, int | None, Mapping[str, object]]

CONFIGS: list[Config] = [
    ("kierki", None, {}),
    ("kierki", None, {"rozbojnik": False, "lottery_start": "8", "play_out_all_tricks": True}),
    ("kierki", None, {"allow_no_trump": True, "kh_must_discard": True, "deal6_tricks": "3,8"}),
    ("kierki3", None, {}),
    ("kierki3", None, {"trump_trick_value_3p": 25, "lottery_missing_2c": "forbid_two"}),
    ("kierki3", None, {"deal6_tricks": "16,17", "lottery_start": "7"}),
    ("hearts", None, {}),
    ("hearts", None, {"qs_breaks_hearts": True, "first_trick_prefer_heart_over_qs": True, "moon_value": 52}),
    ("hearts", None, {"passing": "left", "first_trick_no_points": False, "moon_default": "safety", "target": 50}),
    *[("cancellation", n, {}) for n in range(6, 12)],
    ("cancellation", 7, {"last_cancelled": "leader", "passing": "right", "first_trick_no_points": True}),
    ("cancellation", 9, {"last_cancelled": "second_highest", "moon_value": 52, "qs_breaks_hearts": False}),
    ("cancellation", 8, {"passing": "none", "target": 60, "moon_default": "safety"}),
]

PENALTY_SUMS = {
    4: {
        DealKind.NO_TRICKS: -260,
        DealKind.NO_HEARTS: -260,
        DealKind.NO_QUEENS: -240,
        DealKind.NO_KINGS_JACKS: -240,
        DealKind.NO_KING_OF_HEARTS: -150,
        DealKind.NO_SEVENTH_LAST: -150,
        DealKind.ROBBER: -1300,
    },
    3: {
        DealKind.NO_TRICKS: -255,
        DealKind.NO_HEARTS: -260,
        DealKind.NO_QUEENS: -240,
        DealKind.NO_KINGS_JACKS: -240,
        DealKind.NO_KING_OF_HEARTS: -140,
        DealKind.NO_SEVENTH_LAST: -140,
        DealKind.ROBBER: -1275,
    },
}
# The cards whose capture ends deals 2-5 early: tested by card name, independently of the engine's masks.
LAST_PENALTY: dict[DealKind, Callable[[str], bool]] = {
    DealKind.NO_HEARTS: lambda name: name[1] == "H",
    DealKind.NO_QUEENS: lambda name: name[0] == "Q",
    DealKind.NO_KINGS_JACKS: lambda name: name[0] in "JK",
    DealKind.NO_KING_OF_HEARTS: lambda name: name == "KH",
}


def kierki_trick_value(kind: DealKind, trick: TrickEnded, ruleset: Ruleset) -> int:
    """The trick's penalty, recounted from RULES.md §2.1 rule 7 and §3.1 rule 3 by card names."""
    three = ruleset.players == 3
    names = [card_name(c) for _, c in trick.plays]
    parts = {
        DealKind.NO_TRICKS: -(15 if three else 20),
        DealKind.NO_HEARTS: -20 * sum(n[1] == "H" for n in names),
        DealKind.NO_QUEENS: -60 * sum(n[0] == "Q" for n in names),
        DealKind.NO_KINGS_JACKS: -30 * sum(n[0] in "JK" for n in names),
        DealKind.NO_KING_OF_HEARTS: -(140 if three else 150) * ("KH" in names),
        DealKind.NO_SEVENTH_LAST: -(70 if three else 75) * (trick.number in ruleset.deal6_tricks),
    }
    return sum(parts.values()) if kind is DealKind.ROBBER else parts[kind]


def match_sum(ruleset: Ruleset) -> int:
    """§2.3 and §3.2: what the totals of a finished Kierki match add up to."""
    if ruleset.players == 4:
        return 0 if ruleset.rozbojnik else 1300
    trumps = 3 * 17 * ruleset.trump_trick_value
    return -1275 - (1275 if ruleset.rozbojnik else 0) + trumps + 1275


class Checker:
    """Checks one game's state after every step; finished deals are checked once, from their events."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.ruleset = state.ruleset
        self.checked_events = 0
        self.deck = Counter(deck_for(state.ruleset))
        first = state.events[0]
        assert isinstance(first, DealStarted)
        self.first_dealer = first.dealer

    def check(self) -> None:
        self.check_turn()
        self.check_cards()
        self.check_observations()
        self.check_new_events()

    # --- every step ----------------------------------------------------------------------------------------

    def check_turn(self) -> None:
        state = self.state
        if state.phase is Phase.OVER:
            assert state.to_act == -1 and state.is_over
            assert state.legal_plays() == []
        else:
            assert 0 <= state.to_act < state.players
        if state.phase is Phase.PLAY:
            legal = state.legal_plays()
            assert legal, "the seat to play always has a legal card"
            assert set(legal) == expected_legal(state)

    def check_cards(self) -> None:
        state = self.state
        events = current_deal(state)
        started = events[0]
        assert isinstance(started, DealStarted) and started.deal == state.deal_number
        assert started.pass_offset == expected_pass_offset(self.ruleset, started.deal)
        assert started.dealer == (self.first_dealer + started.deal - 1) % state.players
        played = [e.card for e in events if isinstance(e, CardPlayed)]
        held = Counter(c for s in range(state.players) for c in state.hand(s))
        assert held + Counter(played) + Counter(started.kitty) == self.deck
        if state.kind is DealKind.LOTTERY:
            return
        observation = state.observation(0)
        collected = sum(len(e.collected) for e in events if isinstance(e, TrickEnded))
        assert len(played) + len(started.kitty) == (
            collected + observation.pending_cards + observation.kitty_size + len(observation.trick)
        )

    def check_observations(self) -> None:
        state = self.state
        events = current_deal(state)
        trick_events = [e for e in events if isinstance(e, TrickEnded)]
        exchanged = next((e for e in events if isinstance(e, PassesExchanged)), None)
        started = events[0]
        assert isinstance(started, DealStarted)
        single_deck = state.ruleset.game.value != "cancellation"
        hands = [set(state.hand(s)) for s in range(state.players)]
        for seat in range(state.players):
            observation = state.observation(seat)
            assert observation.seat == seat and observation.to_act == state.to_act
            if state.phase is Phase.TRUMP:
                first = started.hands[seat][: 5 if state.players == 4 else 6]
                assert observation.hand == (first if seat == state.dealer else ())
            else:
                assert observation.hand == tuple(state.hand(seat))
            acting = seat == state.to_act
            expected_legal = tuple(state.legal_plays()) if acting and state.phase is Phase.PLAY else ()
            assert observation.legal == expected_legal
            assert (observation.moon_options is not None) is (acting and state.phase is Phase.MOON)
            assert [(t.number, t.leader, t.plays, t.winner) for t in observation.tricks] == [
                (t.number, t.leader, t.plays, t.winner) for t in trick_events
            ]
            if exchanged is not None:
                assert observation.passed == exchanged.passed[seat]
                giver = (seat - exchanged.pass_offset) % state.players
                assert observation.received == exchanged.passed[giver]
            else:
                assert observation.received == ()
                assert Counter(observation.passed) <= Counter(started.hands[seat])
            if single_deck:
                seen = set(observation.hand) | set(observation.legal) | set(observation.received)
                seen |= {c for _, c in observation.trick}
                seen |= {c for t in observation.tricks for _, c in t.plays}
                others = set().union(*(hands[s] for s in range(state.players) if s != seat))
                # The only other seat's cards a seat may know are the ones it passed there itself.
                assert not (seen & others), "an observation shows another seat's cards"

    # --- finished deals ------------------------------------------------------------------------------------

    def check_new_events(self) -> None:
        state = self.state
        for index in range(self.checked_events, len(state.events)):
            event = state.events[index]
            if isinstance(event, DealEnded):
                self.check_deal(event, index)
            elif isinstance(event, GameEnded):
                self.check_game(event)
        self.checked_events = len(state.events)

    def check_deal(self, ended: DealEnded, index: int) -> None:
        events = deal_slice(self.state.events, index)
        started = events[0]
        assert isinstance(started, DealStarted) and started.deal == ended.deal
        previous = [e for e in self.state.events[:index] if isinstance(e, DealEnded)]
        before = previous[-1].totals if previous else (0,) * self.ruleset.players
        assert ended.totals == tuple(b + s for b, s in zip(before, ended.scores, strict=True))
        tricks = [e for e in events if isinstance(e, TrickEnded)]
        size = len(started.hands[0])
        if ended.kind is not DealKind.LOTTERY:
            self.check_tricks(started, events, tricks)
        if ended.kind is DealKind.LOTTERY:
            outs = [e for e in events if isinstance(e, PlayerOut)]
            bonuses = (800, 500) if self.ruleset.players == 4 else (790, 485)
            assert [(e.place, e.bonus) for e in outs] == list(zip((1, 2), bonuses, strict=True))
            assert isinstance(events[-2], PlayerOut)  # the deal ends at the second player out
            expected = [0] * self.ruleset.players
            for out in outs:
                expected[out.seat] = out.bonus
            assert ended.scores == tuple(expected) and ended.early
        elif ended.kind is DealKind.TRUMP:
            assert len(tricks) == size
            expected = [0] * self.ruleset.players
            for trick in tricks:
                assert trick.winner is not None
                expected[trick.winner] += self.ruleset.trump_trick_value
            assert ended.scores == tuple(expected)
        elif ended.kind in PENALTY_SUMS[4]:
            self.check_penalty_deal(ended, tricks, size)
        else:
            self.check_hearts_deal(ended, events, tricks, size)

    def check_tricks(self, started: DealStarted, events: list[Event], tricks: list[TrickEnded]) -> None:
        """Each trick's leader, winner and collected cards, recomputed (§0, §1.1 rules 9-12, §2.1 rules 4-5)."""
        n = self.ruleset.players
        trump = next((e.suit for e in events if isinstance(e, TrumpChosen)), None)
        size = len(started.hands[0])
        leader = (started.dealer + 1) % n
        if self.ruleset.game.value == "hearts":
            leader = tricks[0].plays[0][0]
            assert tricks[0].plays[0][1] == TWO_OF_CLUBS
        pending: list[int] = []
        for trick in tricks:
            assert trick.leader == leader
            assert [seat for seat, _ in trick.plays] == [(leader + k) % n for k in range(n)]
            cards = [c for _, c in trick.plays]
            led = cards[0] & 3
            if self.ruleset.game.value == "cancellation":
                live = [(c, s) for s, c in trick.plays if c & 3 == led and cards.count(c) == 1]
                winner = max(live)[1] if live else None
                if winner is None and trick.number == size and self.ruleset.last_cancelled is not LastCancelled.NOBODY:
                    top = max(c for c in cards if c & 3 == led)
                    copies = [s for s, c in trick.plays if c == top]
                    winner = leader if self.ruleset.last_cancelled is LastCancelled.LEADER else copies[-1]
            else:
                trumps = [(c, s) for s, c in trick.plays if c & 3 == trump]
                winner = max(trumps or [(c, s) for s, c in trick.plays if c & 3 == led])[1]
            assert trick.winner == winner
            pile = cards + pending + (list(started.kitty) if trick.number == 1 else [])
            if winner is None:
                assert trick.collected == ()
                pending = pile
            else:
                assert Counter(trick.collected) == Counter(pile)
                pending = []
                leader = winner

    def check_penalty_deal(self, ended: DealEnded, tricks: list[TrickEnded], size: int) -> None:
        expected = [0] * self.ruleset.players
        for trick in tricks:
            assert trick.winner is not None
            expected[trick.winner] += kierki_trick_value(ended.kind, trick, self.ruleset)
        assert ended.scores == tuple(expected)
        assert sum(ended.scores) == PENALTY_SUMS[self.ruleset.players][ended.kind]
        wanted = LAST_PENALTY.get(ended.kind)
        if wanted is None or self.ruleset.play_out_all_tricks:
            assert len(tricks) == size and not ended.early
            return
        total = sum(wanted(card_name(c)) for c in deck_for(self.ruleset))
        taken = [sum(wanted(card_name(c)) for _, c in t.plays) for t in tricks]
        assert sum(taken) == total and taken[-1] > 0  # ends exactly at the trick with the last one
        assert ended.early is (len(tricks) < size)

    def check_hearts_deal(self, ended: DealEnded, events: list[Event], tricks: list[TrickEnded], size: int) -> None:
        full = 52 if self.ruleset.game.value == "cancellation" else 26
        collected = [0] * self.ruleset.players
        for trick in tricks:
            if trick.winner is not None:
                collected[trick.winner] += points(trick.collected)
            else:
                assert trick.collected == ()
        assert len(tricks) == size
        assert sum(collected) <= full
        moons = [e for e in events if isinstance(e, MoonShot)]
        if moons:
            (moon,) = moons
            assert collected[moon.seat] == full
            value = self.ruleset.moon_value
            if moon.option is MoonOption.SELF:
                expected = [-value if s == moon.seat else 0 for s in range(self.ruleset.players)]
            else:
                expected = [0 if s == moon.seat else value for s in range(self.ruleset.players)]
            assert ended.scores == tuple(expected)
        else:
            assert full not in collected
            assert ended.scores == tuple(collected)
            if full == 26:
                assert sum(ended.scores) == 26

    def check_game(self, ended: GameEnded) -> None:
        state = self.state
        totals = ended.totals
        assert list(totals) == state.totals and state.final_places == ended.places
        kierki = self.ruleset.game.value in ("kierki", "kierki3")
        if kierki:
            assert sum(totals) == match_sum(self.ruleset)
            better = [sum(o > t for o in totals) for t in totals]
        else:
            assert max(totals) >= self.ruleset.target
            results = [e for e in state.events if isinstance(e, DealEnded)]
            assert all(max(r.totals) < self.ruleset.target for r in results[:-1])
            better = [sum(o < t for o in totals) for t in totals]
        assert ended.places == tuple(1 + b for b in better)


# --- an independent statement of the legal plays (RULES.md §1.1, §2.1, §3.1, §4.1) ---------------------------

HEART, QUEEN_OF_SPADES, KING_OF_HEARTS, TWO_OF_CLUBS = 2, 43, 46, 0


def expected_legal(state: GameState) -> set[int]:
    hand = set(state.hand(state.to_act))
    events = current_deal(state)
    played = [e.card for e in events if isinstance(e, CardPlayed)]
    if state.kind is DealKind.LOTTERY:
        return lottery_legal(state, hand, played)
    trick = state.observation(state.to_act).trick
    rules = state.ruleset
    if trick:
        led = trick[0][1] & 3
        follow = {c for c in hand if c & 3 == led}
        if follow:
            legal = follow
        elif state.trick_number == 1 and not state_is_kierki(state) and rules.first_trick_no_points:
            safe = {c for c in hand if c & 3 != HEART and c != QUEEN_OF_SPADES}
            hearts = {c for c in hand if c & 3 == HEART}
            legal = safe or (hearts if rules.first_trick_prefer_heart_over_qs and hearts else hand)
        else:
            legal = hand
        if rules.kh_must_discard and state.kind is DealKind.NO_KING_OF_HEARTS and KING_OF_HEARTS in legal:
            return {KING_OF_HEARTS}
        return legal
    non_hearts = {c for c in hand if c & 3 != HEART}
    if state_is_kierki(state):
        banned = state.kind in (DealKind.NO_HEARTS, DealKind.NO_KING_OF_HEARTS, DealKind.ROBBER)
        return non_hearts if banned and non_hearts else hand
    if state.trick_number == 1 and rules.game.value == "hearts":
        return {TWO_OF_CLUBS}
    if state.trick_number == 1:
        return {c for c in non_hearts if c != QUEEN_OF_SPADES} or hand
    finished = played[: len(played) - len(trick)]
    broken = any(c & 3 == HEART or (c == QUEEN_OF_SPADES and rules.qs_breaks_hearts) for c in finished)
    if broken or not (non_hearts - {QUEEN_OF_SPADES}):
        return hand
    return non_hearts


def state_is_kierki(state: GameState) -> bool:
    return state.ruleset.game.value in ("kierki", "kierki3")


def lottery_legal(state: GameState, hand: set[int], played: list[int]) -> set[int]:
    rules = state.ruleset
    start = None if rules.lottery_start == "dealer" else int(rules.lottery_start) - 2
    if start is None and not played:
        twos = {c for c in hand if c >> 2 == 0}
        forbid = rules.players == 3 and rules.lottery_missing_2c == "forbid_two"
        return (hand - twos) or hand if forbid else hand
    start = played[0] >> 2 if start is None else start
    columns: dict[int, list[int]] = {}
    if start == 0 and rules.players == 3 and rules.lottery_missing_2c == "virtual":
        columns[0] = [0, 0]
    for c in played:
        lo, hi = columns.get(c & 3, [c >> 2, c >> 2])
        columns[c & 3] = [min(lo, c >> 2), max(hi, c >> 2)]
    legal = set()
    for c in hand:
        column = columns.get(c & 3)
        if column is None:
            if c >> 2 == start:
                legal.add(c)
        elif c >> 2 in (column[0] - 1, column[1] + 1):
            legal.add(c)
    return legal


def expected_pass_offset(ruleset: Ruleset, deal: int) -> int:
    n = ruleset.players
    if ruleset.game.value in ("kierki", "kierki3") or ruleset.passing is Passing.NONE:
        return 0
    if ruleset.passing is Passing.CYCLE:
        return {1: 1, 2: 3, 3: 2, 0: 0}[deal % 4]
    if ruleset.passing is Passing.ALTERNATE:
        return 1 if deal % 2 == 1 else n - 1
    return 1 if ruleset.passing is Passing.LEFT else n - 1


def current_deal(state: GameState) -> list[Event]:
    events = state.events
    start = max(i for i, e in enumerate(events) if isinstance(e, DealStarted))
    return events[start:]


def deal_slice(events: list[Event], end: int) -> list[Event]:
    start = max(i for i in range(end) if isinstance(events[i], DealStarted))
    return events[start : end + 1]


def refuse(state: GameState, action: object, seat: int | None, rules: set[str]) -> None:
    before = snapshot(state)
    try:
        state.apply(action, seat)  # type: ignore[arg-type]
    except IllegalActionError as error:
        assert error.rule in rules, (error.rule, rules)
    else:
        raise AssertionError(f"{action!r} by seat {seat} was accepted")
    assert snapshot(state) == before


PLAY_RULES = {
    "follow-suit",
    "heart-lead-ban",
    "kh-must-discard",
    "first-trick-points",
    "two-of-clubs-leads",
    "first-lead",
    "hearts-not-broken",
    "lottery-column",
}


class RefereeMachine(RuleBasedStateMachine):
    state: GameState
    checker: Checker

    @initialize(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1))
    def deal(self, config: Config, seed: int) -> None:
        game, players, options = config
        self.state = GameState(Ruleset.create(game, players, options), seed=seed)
        self.checker = Checker(self.state)

    # Every rule stays enabled once the game is over (so hypothesis never has to filter): they then check that
    # a finished game refuses everything.

    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        state = self.state
        action: object
        if state.is_over:
            refuse(state, PlayCard(0), None, {"game-over"})
            with pytest.raises(IllegalActionError):
                state.fallback_action()
            return
        if state.phase is Phase.PLAY:
            action = PlayCard(data.draw(st.sampled_from(state.legal_plays())))
        elif state.phase is Phase.PASS:
            hand = state.hand(state.to_act)
            picks = data.draw(st.lists(st.sampled_from(range(len(hand))), min_size=3, max_size=3, unique=True))
            action = PassCards(tuple(hand[i] for i in picks))
        elif state.phase is Phase.TRUMP:
            action = ChooseTrump(data.draw(st.sampled_from(state.trump_choices())))
        else:
            action = ChooseMoon(data.draw(st.sampled_from([MoonOption.SELF, MoonOption.OTHERS])))
        state.apply(action, state.to_act)

    @rule(steps=st.integers(1, 500), seed=st.integers(0, 2**16))
    def fast_forward(self, steps: int, seed: int) -> None:
        """Random legal play for a while, checked after every step, to reach the ends of deals and games."""
        rng = random.Random(seed)
        for _ in range(steps):
            if self.state.is_over:
                break
            self.state.apply(random_action(self.state, rng))
            self.checker.check()

    @rule(data=st.data())
    def try_illegal_card_or_pass(self, data: st.DataObject) -> None:
        state = self.state
        if state.is_over:
            refuse(state, PassCards((0, 1, 2)), None, {"game-over"})
        elif state.phase is Phase.PLAY:
            legal = set(state.legal_plays())
            hand = set(state.hand(state.to_act))
            wrong = data.draw(st.sampled_from([c for c in range(52) if c not in legal]))
            refuse(state, PlayCard(wrong), state.to_act, PLAY_RULES if wrong in hand else {"own-card"})
        elif state.phase is Phase.PASS:
            held = state.hand(state.to_act)
            refuse(state, PassCards(tuple(held[:2])), None, {"pass-count"})
            missing = next(c for c in range(52) if c not in held)
            refuse(state, PassCards((*held[:2], missing)), None, {"pass-own-cards"})
        elif state.phase is Phase.TRUMP:
            if not state.ruleset.allow_no_trump:
                refuse(state, ChooseTrump(None), None, {"trump-suit"})
            refuse(state, ChooseTrump(7), None, {"trump-suit"})
        else:
            refuse(state, ChooseMoon("both"), None, {"moon-option"})  # type: ignore[arg-type]

    @rule(data=st.data())
    def try_wrong_seat_or_decision(self, data: st.DataObject) -> None:
        state = self.state
        if state.is_over:
            refuse(state, ChooseMoon(MoonOption.SELF), 0, {"game-over"})
            return
        action = random_action(state, random.Random(data.draw(st.integers(0, 99))))
        other = (state.to_act + data.draw(st.integers(1, state.players - 1))) % state.players
        refuse(state, action, other, {"turn"})
        wrong_type = {
            Phase.PLAY: ChooseMoon(MoonOption.SELF),
            Phase.PASS: PlayCard(0),
            Phase.TRUMP: PassCards((0, 1, 2)),
            Phase.MOON: ChooseTrump(0),
        }[state.phase]
        refuse(state, wrong_type, None, {"decision"})

    @rule(steps=st.integers(1, 60), seed=st.integers(0, 2**16))
    def copy_is_independent(self, steps: int, seed: int) -> None:
        before = snapshot(self.state)
        twin = self.state.copy()
        assert snapshot(twin) == before
        rng = random.Random(seed)
        replay = []
        for _ in range(steps):
            if twin.is_over:
                break
            action = random_action(twin, rng)
            replay.append(action)
            twin.apply(action)
        assert snapshot(self.state) == before
        # The original, given the same choices, arrives at the same place (including the next deals' cards).
        for action in replay:
            self.state.apply(action)
            self.checker.check()
        assert snapshot(self.state) == snapshot(twin)
        assert self.state.events == twin.events

    @invariant()
    def invariants_hold(self) -> None:
        self.checker.check()
        if self.state.is_over:
            event(f"over: {self.state.ruleset.game.value}")


RefereeMachine.TestCase.settings = settings(
    max_examples=examples(45),
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestRefereeMachine = RefereeMachine.TestCase


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}{c[1] or ''}-{len(c[2])}opts")
@settings(max_examples=examples(2), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_games_to_the_end(config: Config, seed: int) -> None:
    """Every configuration at least twice to its end, with random legal play, checked after every step."""
    game, players, options = config
    state = GameState(Ruleset.create(game, players, options), seed=seed)
    checker = Checker(state)
    rng = random.Random(seed)
    checker.check()
    while not state.is_over:
        state.apply(random_action(state, rng))
        checker.check()
    assert isinstance(state.events[-1], GameEnded)


def test_checker_catches_a_wrong_score() -> None:
    """The checker itself can fail: a deal whose recorded score disagrees with its tricks is caught."""
    state = GameState(Ruleset.create("kierki"), seed=1)
    while state.deal_number == 1:
        state.apply(state.fallback_action())
    index = next(i for i, e in enumerate(state.events) if isinstance(e, DealEnded))
    ended = state.events[index]
    assert isinstance(ended, DealEnded)
    forged: Any = DealEnded(ended.deal, ended.kind, (ended.scores[0] - 20, *ended.scores[1:]), ended.totals, False)
    state.events[index] = forged
    with pytest.raises(AssertionError):
        Checker(state).check_new_events()
