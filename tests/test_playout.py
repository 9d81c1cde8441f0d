"""Playouts and sampled worlds (referee/rules/playout.py).

A random playout must be the very game that the public ``apply`` would play with the same random draws, so a
reference driver here makes those draws through the public API and must reach the same scores. Sampled worlds
must agree with everything the observing seat knows: the seat's own observation of the world equals the one it
was sampled from, and the voids, passes and hand sizes hold.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from rules_helpers import random_action

from referee.rules import (
    ChooseMoon,
    ChooseTrump,
    DealEnded,
    DealSpec,
    GameState,
    MoonOption,
    Observation,
    PassCards,
    Phase,
    PlayCard,
    Ruleset,
    SampleError,
    playout,
    sample_state,
)
from referee.rules.cards import FULL_DECK, Card
from referee.rules.dealing import deck_for
from referee.rules.table import TABLE_FIELDS

GAMES = [("hearts", 4), ("kierki", 4), ("kierki3", 3), ("cancellation", 6)]
ONE_DECK = [("hearts", 4), ("kierki", 4), ("kierki3", 3)]


def reference_playout(state: GameState, rng: random.Random, moon: MoonOption = MoonOption.OTHERS) -> tuple[int, ...]:
    """The playout's random draws made through the public API on a copy: the scores a playout must return."""
    twin = state.copy()
    deal = twin.deal_number
    rand = rng.random
    while len(twin.deal_results) == len(state.deal_results):
        if twin.phase is Phase.PLAY:
            legal = twin.legal_plays()  # a forced card takes no draw
            twin.apply(PlayCard(legal[int(rand() * len(legal))] if len(legal) > 1 else legal[0]))
        elif twin.phase is Phase.PASS:
            hand = twin.hand(twin.to_act)
            twin.apply(PassCards(tuple(hand.pop(int(rand() * len(hand))) for _ in range(3))))
        elif twin.phase is Phase.TRUMP:
            choices = twin.trump_choices()
            twin.apply(ChooseTrump(choices[int(rand() * len(choices))]))
        else:
            twin.apply(ChooseMoon(moon))
    ended = twin.deal_results[-1]
    assert ended.deal == deal
    return ended.scores


def positions(game: str, players: int, seed: int, every: int = 7) -> Iterator[GameState]:
    """States along one game played with the referee's fallback choices and some random ones."""
    state = GameState(Ruleset.create(game, players), seed=seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % every == 0:
            yield state
        if state.phase is Phase.PLAY and rng.random() < 0.7:
            state.apply(PlayCard(rng.choice(state.legal_plays())))
        else:
            state.apply(state.fallback_action())
        step += 1


def deal_total(ruleset: Ruleset, deal: int) -> int | None:
    """The fixed sum of a Kierki deal's scores, read from a whole game played by the engine (None: Hearts)."""
    if ruleset.game not in ("kierki", "kierki3"):
        return None
    state = GameState(ruleset, seed=1)
    while not state.is_over:
        state.apply(state.fallback_action())
    return sum(state.deal_results[deal - 1].scores)


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_random_playout_is_the_game_apply_plays(game: str, players: int) -> None:
    ruleset = Ruleset.create(game, players)
    checked = 0
    for seed in range(3):
        for state in positions(game, players, seed, every=23):
            events = list(state.events)
            ours = playout(state, random.Random(seed * 1000 + checked))
            assert ours == reference_playout(state, random.Random(seed * 1000 + checked))
            assert state.events == events, "a playout changed the state it started from"
            total = deal_total(ruleset, state.deal_number)
            if total is not None:
                assert sum(ours) == total
            elif game == "hearts":
                assert sum(ours) in (26, 78, -26)
            checked += 1
    assert checked > 10


def test_hearts_playout_scores_are_26_or_a_moon() -> None:
    state = GameState(Ruleset.create("hearts"), seed=5)
    rng = random.Random(3)
    sums = {sum(playout(state, rng)) for _ in range(300)}
    assert sums <= {26, 78}
    assert sum(playout(state, random.Random(0), moon=MoonOption.SELF)) in (26, -26)


def test_same_seed_same_result_and_a_given_policy() -> None:
    state = GameState(Ruleset.create("kierki"), seed=11)
    assert playout(state, random.Random(4)) == playout(state, random.Random(4))
    seen: list[tuple[int, list[Card]]] = []

    def lowest(world: GameState, legal: list[Card]) -> Card:
        seen.append((world.to_act, legal))
        assert world.observation(world.to_act).legal == tuple(legal)
        return legal[0]

    scores = playout(state, random.Random(0), lowest)
    assert len(seen) == 52
    # The same choices through apply give the same scores.
    twin = state.copy()
    while not twin.deal_results:
        twin.apply(PlayCard(twin.legal_plays()[0]) if twin.phase is Phase.PLAY else twin.fallback_action())
    assert scores == twin.deal_results[0].scores


def test_a_policy_choosing_an_illegal_card_is_refused() -> None:
    state = GameState(Ruleset.create("hearts", 4, {"passing": "none"}), seed=2)
    with pytest.raises(ValueError, match=r"2♣ must open|not in your hand"):
        playout(state, random.Random(0), lambda world, legal: 51 if 51 not in legal else 50)


def test_playout_of_a_finished_game_is_refused() -> None:
    state = GameState(Ruleset.create("hearts", 4, {"target": 1}), seed=2)
    while not state.is_over:
        state.apply(state.fallback_action())
    with pytest.raises(ValueError, match="game is over"):
        playout(state, random.Random(0))


def voids(seen: Observation) -> dict[int, set[int]]:
    """The suits each seat showed it lacks, by not following the led suit."""
    found: dict[int, set[int]] = {s: set() for s in range(seen.players)}
    if seen.kind == "lottery":
        return found
    for plays in [t.plays for t in seen.tricks] + [seen.trick]:
        for seat, card in plays[1:]:
            if card & 3 != plays[0][1] & 3:
                found[seat].add(plays[0][1] & 3)
    return found


def played(seen: Observation) -> Counter[Card]:
    """Every card on the table: in finished tricks, the trick being played, and the loteryjka's columns."""
    cards = Counter(c for t in seen.tricks for _, c in t.plays) + Counter(c for _, c in seen.trick)
    for suit, column in enumerate(seen.lottery_columns):
        if column is not None:
            cards += Counter(r * 4 + suit for r in range(column[0], column[1] + 1))
    return cards


def off_table(state: GameState, seen: Observation) -> Counter[Card]:
    """The deck's cards in no hand, not played, not in the kitty and not waiting with the cancelled tricks' cards:
    Cancellation Hearts' kitty once a trick with a winner took it. Fails when the state holds a card twice over."""
    deck = Counter(deck_for(state.ruleset))
    won = [i for i, t in enumerate(seen.tricks) if t.winner is not None]
    cancelled = Counter(c for t in seen.tricks[won[-1] + 1 if won else 0 :] for _, c in t.plays)
    held = Counter(c for s in range(state.players) for c in state.hand(s)) + Counter(state.table.kitty)
    held += Counter(state.table.pending) - cancelled
    accounted = held + (played(seen) & deck)
    assert all(accounted[card] <= deck[card] for card in accounted), "a card is in the world more often than the deck"
    return deck - accounted


def points(cards: Counter[Card]) -> int:
    return sum(count * (1 if card & 3 == 2 else 13 if card == 43 else 0) for card, count in cards.items())


def check_world(state: GameState, seat: int, world: GameState) -> None:
    """``world``, sampled from ``seat``'s observation of ``state``, contradicts nothing the seat saw."""
    seen = state.observation(seat)
    assert world.observation(seat) == seen
    if seen.phase is Phase.TRUMP:  # the dealer sees its first cards, in dealing order; the others see none
        if seat == seen.dealer:
            assert world.trump_cards_seen() == state.trump_cards_seen()
    else:
        assert world.hand(seat) == state.hand(seat)
    assert [len(world.hand(s)) for s in range(state.players)] == [len(state.hand(s)) for s in range(state.players)]
    gone = off_table(world, seen)
    assert sum(gone.values()) == sum(off_table(state, seen).values())
    assert points(gone) == points(off_table(state, seen)), "a taken kitty of other points than the scores say"
    for s, suits in voids(seen).items():
        for suit in suits:
            assert not any(c & 3 == suit for c in world.hand(s)), f"seat {s} showed a void in suit {suit}"
    if seen.pass_offset and seen.passed and seen.phase is Phase.PLAY:
        receiver = (seat + seen.pass_offset) % state.players
        kept = Counter(seen.passed) - Counter(c for t in seen.tricks for s, c in t.plays if s == receiver)
        kept -= Counter(c for s, c in seen.trick if s == receiver)
        assert not kept - Counter(world.hand(receiver)), "the receiver lost a card the seat passed it"
    if seen.phase is Phase.PASS:
        for step in range((seen.to_act - seen.dealer - 1) % state.players):
            passer = (seen.dealer + 1 + step) % state.players
            passed = world.table.passes[passer]
            assert passed is not None and not Counter(passed) - Counter(world.hand(passer))
    assert len(playout(world, random.Random(0))) == state.players


SAMPLED_PHASES = (Phase.PLAY, Phase.PASS, Phase.TRUMP)
ALL_GAMES = [*GAMES, ("cancellation", 7), ("cancellation", 8)]  # kitties of 2, 6 and none


@pytest.mark.parametrize(("game", "players"), ALL_GAMES)
def test_sampled_worlds_agree_with_what_the_seat_knows(game: str, players: int) -> None:
    ruleset = Ruleset.create(game, players)
    rng = random.Random(7)
    sampled: Counter[Phase] = Counter()
    for seed in range(3):
        for state in positions(game, players, seed, every=3):
            if state.deal_number > (12 if game.startswith("kierki") else 2):  # Kierki: to its trump deals
                break
            if state.phase not in SAMPLED_PHASES:
                continue
            for seat in (state.to_act, (state.to_act + 1) % players):
                check_world(state, seat, sample_state(ruleset, state.observation(seat), rng))
                sampled[state.phase] += 1
    assert sampled[Phase.PLAY] > 50
    if game != "kierki" and game != "kierki3":
        assert sampled[Phase.PASS] > 2
    else:
        assert sampled[Phase.TRUMP] > 2


@settings(max_examples=examples(60), deadline=None)
@given(
    index=st.integers(0, len(ALL_GAMES) - 1),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 300),
    seat=st.integers(0, 10),
)
def test_a_sampled_world_never_contradicts_the_observation(index: int, seed: int, steps: int, seat: int) -> None:
    game, players = ALL_GAMES[index]
    ruleset = Ruleset.create(game, players)
    state = GameState(ruleset, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over:
            return
        state.apply(random_action(state, rng))
    if state.phase in SAMPLED_PHASES:
        check_world(state, seat % players, sample_state(ruleset, state.observation(seat % players), rng))


def kitty_states() -> Iterator[tuple[str, GameState]]:
    """Cancellation Hearts states (7 players, a kitty of 6) with the kitty on the table, waiting with a cancelled
    first trick's cards, and taken by a trick's winner."""
    ruleset = Ruleset.create("cancellation", 7, {"passing": "none"})
    state = GameState(ruleset, seed=1)
    yield "table", state
    # Seats 0 and 1 hold both decks' clubs, so the A♣ led and the A♣ that follows cancel, and nobody wins trick 1.
    clubs = [card for card in range(52) if card & 3 == 0]
    others = [card for card in range(52) for _ in range(2) if card & 3 != 0]
    others.remove(1)  # the 2♦s, one for each of seats 0 and 1
    others.remove(1)
    hands = (tuple([*clubs, 1]), tuple([*clubs, 1]), *(tuple(others[14 * i : 14 * i + 14]) for i in range(5)))
    state = GameState(ruleset, deals=[DealSpec(hands, tuple(others[70:]), dealer=6)])
    state.apply(PlayCard(48))
    state.apply(PlayCard(48))
    while state.trick_number == 1:
        state.apply(state.fallback_action())
    assert state.observation(0).pending_cards == 13
    yield "pending", state
    state = GameState(ruleset, seed=1)
    while not points(off_table(state, state.observation(0))):  # until a winner took a kitty with points
        state = GameState(ruleset, seed=state.seed + "1")
        while state.trick_number == 1:
            state.apply(state.fallback_action())
    yield "taken", state


def test_the_kitty_is_sampled_where_every_seat_knows_it_is() -> None:
    for where, state in kitty_states():
        seen = state.observation(state.to_act)
        worlds = [sample_state(state.ruleset, seen, random.Random(i)) for i in range(30)]
        for world in worlds:
            check_world(state, state.to_act, world)
        kitties = {w.table.event.kitty for w in worlds}  # the kitty each world dealt
        assert len(kitties) > 1, f"the kitty ({where}) is dealt at random, not copied"


def test_the_pass_and_trump_phases_are_sampled_from_the_seats_own_cards() -> None:
    hearts = Ruleset.create("hearts")
    passing = GameState(hearts, seed=1)
    assert passing.phase is Phase.PASS
    seen = passing.observation(2)
    world = sample_state(hearts, seen, random.Random(0))
    assert world.phase is Phase.PASS and world.hand(2) == passing.hand(2)
    assert world.hand(3) != passing.hand(3)  # 39 unseen cards: the same 13 is all but impossible
    world.apply(PassCards(tuple(world.hand(world.to_act)[:3])))  # a bot tries a pass, then plays the deal out
    assert len(playout(world, random.Random(0))) == 4
    kierki = Ruleset.create("kierki")
    trump = GameState(kierki, seed=1)
    while trump.phase is not Phase.TRUMP:
        trump.apply(trump.fallback_action())
    dealer = trump.observation(trump.to_act)
    world = sample_state(kierki, dealer, random.Random(0))
    assert world.phase is Phase.TRUMP and world.trump_cards_seen() == dealer.hand
    world.apply(ChooseTrump(0))  # a bot tries a trump, then plays the deal out
    assert world.trump == 0 and len(playout(world, random.Random(0))) == 4


def test_samples_vary_and_cover_the_unseen_cards() -> None:
    ruleset = Ruleset.create("hearts", 4, {"passing": "none"})
    state = GameState(ruleset, seed=3)
    for _ in range(6):
        state.apply(state.fallback_action())
    seen = state.observation(state.to_act)
    rng = random.Random(1)
    holders: dict[int, set[int]] = {}
    for _ in range(200):
        world = sample_state(ruleset, seen, rng)
        for s in range(4):
            if s != seen.seat:
                for card in world.hand(s):
                    holders.setdefault(card, set()).add(s)
    unseen = FULL_DECK.bit_count() - len(seen.hand) - 6
    assert len(holders) == unseen
    # A card of a suit nobody has shown a void in lands with every other seat sometimes.
    assert sum(1 for seats in holders.values() if len(seats) == 3) > unseen // 2


def test_sampling_is_refused_where_it_cannot_work() -> None:
    hearts = Ruleset.create("hearts", 4, {"target": 1})
    state = GameState(hearts, seed=1)
    with pytest.raises(SampleError, match="cannot sample"):
        sample_state(Ruleset.create("kierki"), state.observation(0), random.Random(0))
    with pytest.raises(SampleError, match="cannot sample"):
        sample_state(Ruleset.create("cancellation", 7), state.observation(0), random.Random(0))
    while not state.is_over:
        state.apply(state.fallback_action())
    with pytest.raises(SampleError, match="not the over phase"):
        sample_state(hearts, state.observation(0), random.Random(0))


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_a_table_copy_holds_every_field_and_shares_no_list(game: str, players: int) -> None:
    """``Table.copy`` gives every field of the table its value, and copies each list (the compiled build has no
    ``__dict__`` and no ``__slots__`` attribute: the fields are ``TABLE_FIELDS``, which the class's slots are)."""
    for state in positions(game, players, 3, every=11):
        table = state.table
        twin = table.copy()
        for name in TABLE_FIELDS:
            ours, theirs = getattr(table, name), getattr(twin, name)
            assert ours == theirs, name
            if isinstance(ours, list):
                assert ours is not theirs, f"the copy shares the list {name}"


def test_copies_and_worlds_set_every_attribute_of_the_state() -> None:
    """`GameState.copy` and a sampled world (`GameState.from_table`) set what the constructor sets."""
    state = GameState(Ruleset.create("hearts", 4, {"passing": "none"}), seed=1)
    if not hasattr(state, "__dict__"):
        pytest.skip("the compiled build: attributes are declared, and this is checked on the pure build")
    for _ in range(9):
        state.apply(state.fallback_action())
    names = set(vars(state))
    assert set(vars(state.copy())) == names
    world = sample_state(state.ruleset, state.observation(state.to_act), random.Random(0))
    assert set(vars(world)) == names
    twin = state.copy()
    for name, value in vars(state).items():
        if isinstance(value, list):
            assert getattr(twin, name) is not value, f"copy shares the list {name}"


def test_a_playout_reports_one_score_per_seat_and_leaves_no_trace() -> None:
    state = GameState(Ruleset.create("kierki3"), seed=8)
    scores = playout(state, random.Random(2))
    assert isinstance(scores, tuple) and len(scores) == 3
    assert not any(isinstance(e, DealEnded) for e in state.events) and state.deal_results == []


def test_the_monte_carlo_page_example_runs() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "bots" / "montecarlo.md").read_text()
    code = page.split("```python", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/bots/montecarlo.md", "exec"), namespace)
    ruleset = Ruleset.create("kierki")
    state = GameState(ruleset, seed=1)
    seen = state.observation(state.to_act)
    assert namespace["choose_card"](ruleset, seen, random.Random(0), worlds=20) in seen.legal
