"""The search library (referee/search): its worlds hold only cards the seat could know to be possible (a planted leak
makes the leak test fail), the same seed and playouts give the same evaluation, every decision of every game is
valued, and ``solve`` is exact max^n play of the deal's end."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest
from rules_helpers import random_action

import referee.rules as rules
from referee.search import (
    SOLVE_MAX_CARDS,
    Budget,
    Evaluation,
    SolveError,
    choices_of,
    evaluate,
    margin,
    solve,
)

GAMES = [("kierki", 4, {}), ("kierki3", 3, {}), ("hearts", 4, {"target": 40}), ("cancellation", 6, {"target": 30})]
IDS = [game for game, _, _ in GAMES]
SUIT_MASKS = tuple(sum(1 << (rank * 4 + suit) for rank in range(13)) for suit in range(4))
Sampler = Callable[[rules.Ruleset, rules.Observation, random.Random], rules.GameState]


def positions(game: str, players: int, options: dict[str, object], seed: int) -> list[rules.GameState]:
    """Copies of one game by random play at every decision of ``seed``'s game, every phase included."""
    state = rules.GameState(rules.Ruleset.create(game, players, options), seed=str(seed))
    rng = random.Random(seed)
    found = []
    while not state.is_over:
        found.append(state.copy())
        state.apply(random_action(state, rng))
    return found


def leaks(seen: rules.Observation, world: rules.GameState) -> list[str]:
    """What ``world`` holds that the seat of ``seen`` could not know to be possible (empty: nothing)."""
    found = []
    seat = seen.seat
    mine = world.observation(seat)
    for name in ("hand", "hand_sizes", "trick", "tricks", "deal_scores", "trump", "lottery_columns", "to_act"):
        if getattr(mine, name) != getattr(seen, name):
            found.append(f"the world's {name} is not the one the seat saw")
    # No card in another hand that the seat holds, saw played, or knows to be elsewhere, beyond the deck's copies.
    deck = Counter(card for hand in rules.GameState(world.ruleset, seed="deck").table.dealt for card in hand)
    deck.update(rules.GameState(world.ruleset, seed="deck").table.event.kitty)
    accounted = Counter(seen.hand) + Counter(card for t in seen.tricks for _, card in t.plays)
    accounted.update(card for _, card in seen.trick)
    held = Counter(card for s in range(seen.players) if s != seat for card in world.hand(s))
    if held - (deck - accounted):
        found.append(f"the others hold cards the seat has accounted for: {sorted(held - (deck - accounted))}")
    if seen.phase is rules.Phase.PLAY and seen.kind is not rules.DealKind.LOTTERY:
        for plays in [t.plays for t in seen.tricks] + [seen.trick]:
            for s, card in plays[1:]:
                led = plays[0][1] & 3
                if card & 3 != led and any(c & 3 == led for c in world.hand(s)):
                    found.append(f"seat {s} holds a suit it showed it had none of")
    if seen.phase is rules.Phase.PLAY and seen.pass_offset and seen.passed:
        receiver = (seat + seen.pass_offset) % seen.players
        played = Counter(c for t in seen.tricks for s, c in t.plays if s == receiver)
        played.update(c for s, c in seen.trick if s == receiver)
        if Counter(seen.passed) - played - Counter(world.hand(receiver)):
            found.append("the cards the seat passed left their receiver")
    return found


def recording(into: list[tuple[rules.Observation, rules.GameState]], sampler: Sampler) -> Sampler:
    def sample(ruleset: rules.Ruleset, seen: rules.Observation, rng: random.Random) -> rules.GameState:
        world = sampler(ruleset, seen, rng)
        into.append((seen, world))
        return world

    return sample


def decisions(state: rules.GameState) -> bool:
    return state.phase is not rules.Phase.PLAY or len(state.legal_plays()) > 1


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=IDS)
def test_every_decision_of_every_game_is_valued_from_worlds_the_seat_could_know(
    game: str, players: int, options: dict[str, object]
) -> None:
    """Every phase (pass, trump, each deal kind's play, the loteryjka, the moon where one is shot) is reached; each
    choice gets a value from the same worlds, and no world holds a card the seat could not know to be possible."""
    sampled: list[tuple[rules.Observation, rules.GameState]] = []
    kinds: Counter[tuple[str, str]] = Counter()
    for state in positions(game, players, options, 11)[::5]:
        if state.phase is rules.Phase.OVER or not decisions(state):
            continue
        seen = state.observation(state.to_act)
        found = evaluate(state.ruleset, seen, Budget(playouts=8), 3, sampler=recording(sampled, rules.sample_state))
        kinds[seen.phase.value, seen.kind.value] += 1
        assert [c.action for c in found.choices] == choices_of(state.ruleset, seen)
        assert found.worlds * len(found.choices) <= found.playouts <= 8
        assert all(c.samples == found.worlds for c in found.choices)
    for seen, world in sampled:
        assert leaks(seen, world) == []
    phases = {phase for phase, _ in kinds}
    assert "play" in phases and ("trump" in phases if game.startswith("kierki") else "pass" in phases)
    if game == "kierki":
        assert ("play", "lottery") in kinds and len({kind for _, kind in kinds}) == 9  # 7 penalty kinds, trump, lottery


def test_a_planted_leak_fails_the_leak_test() -> None:
    """A sampler that peeks at the real deal, or gives a card where the seat saw it could not be: both caught."""
    state = next(s for s in positions("hearts", 4, {}, 5) if s.phase is rules.Phase.PLAY and s.trick_number > 4)
    seen = state.observation(state.to_act)
    sampled: list[tuple[rules.Observation, rules.GameState]] = []
    evaluate(state.ruleset, seen, Budget(playouts=6), 1, sampler=recording(sampled, rules.sample_state))
    assert sampled and all(leaks(s, w) == [] for s, w in sampled)

    def impossible(ruleset: rules.Ruleset, seen: rules.Observation, rng: random.Random) -> rules.GameState:
        world = rules.sample_state(ruleset, seen, rng)
        table = world.table
        other = (seen.seat + 1) % 4
        played = seen.tricks[0].plays[0][1]
        held = next(c for c in range(52) if table.hands[other] >> c & 1)
        table.hands[other] ^= (1 << held) | (1 << played)  # a card the seat saw played, back in a hand
        return world

    planted: list[tuple[rules.Observation, rules.GameState]] = []
    evaluate(state.ruleset, seen, Budget(playouts=4), 1, sampler=recording(planted, impossible))
    assert planted and all(leaks(s, w) for s, w in planted)


def test_the_evaluation_depends_on_what_the_seat_knows_only() -> None:
    """Two deals the seat cannot tell apart get the same evaluation; a sampler that peeks at the real hands does not
    (a leak no single world shows: every world it makes is possible)."""
    state = next(s for s in positions("hearts", 4, {}, 8) if s.phase is rules.Phase.PLAY and s.trick_number == 3)
    seat = state.to_act
    seen = state.observation(seat)
    twin = rules.sample_state(state.ruleset, seen, random.Random(99))  # another deal, the same view
    assert twin.observation(seat) == seen
    assert [twin.hand(s) for s in range(4)] != [state.hand(s) for s in range(4)]

    def peeking(real: rules.GameState) -> Sampler:
        return lambda ruleset, seen, rng: real.copy()

    budget = Budget(playouts=40)
    clean = [evaluate(s.ruleset, s.observation(seat), budget, 4) for s in (state, twin)]
    assert clean[0] == clean[1]
    peeked = [evaluate(s.ruleset, s.observation(seat), budget, 4, sampler=peeking(s)) for s in (state, twin)]
    assert peeked[0] != peeked[1]


def test_the_same_seed_and_playouts_give_the_same_evaluation() -> None:
    state = next(s for s in positions("kierki", 4, {}, 2) if s.phase is rules.Phase.PLAY and decisions(s))
    seen = state.observation(state.to_act)
    runs: list[Evaluation] = [evaluate(state.ruleset, seen, Budget(playouts=30), 17) for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].playouts == 30


def test_a_budget_needs_playouts_or_cpu_time() -> None:
    with pytest.raises(ValueError, match="playout count or CPU"):
        Budget()
    with pytest.raises(ValueError, match="negative"):
        Budget(playouts=-1)
    state = next(s for s in positions("hearts", 4, {}, 2) if s.phase is rules.Phase.PLAY and decisions(s))
    assert evaluate(state.ruleset, state.observation(state.to_act), Budget(playouts=0), 1).worlds == 0


def test_the_moon_is_valued_by_its_outcomes() -> None:
    ruleset = rules.Ruleset.create("hearts", 4, {"target": 100})
    state = rules.GameState(ruleset, seed="moon")
    seen = state.observation(0)
    import dataclasses

    own, others = (10, 40, 40, 40), (36, 66, 66, 66)  # seat 0 shot the moon from (36, 40, 40, 40)
    moon = dataclasses.replace(
        seen,
        phase=rules.Phase.MOON,
        totals=(36, 40, 40, 40),
        moon_options={rules.MoonOption.SELF: own, rules.MoonOption.OTHERS: others},
    )
    found = evaluate(ruleset, moon, Budget(playouts=1), 0)
    assert [c.value for c in found.choices] == [26.0, 26.0]  # the same margin; the game goes on either way
    from referee.search import Objective

    ending = dataclasses.replace(
        moon,
        totals=(80, 80, 90, 90),
        moon_options={rules.MoonOption.SELF: (54, 80, 90, 90), rules.MoonOption.OTHERS: (80, 106, 116, 116)},
    )
    best = evaluate(ruleset, ending, Budget(playouts=1), 0, objective=Objective.MATCH).best()
    assert best.action == rules.ChooseMoon(rules.MoonOption.OTHERS)  # it ends the game with seat 0 first


def _maxn(state: rules.GameState) -> tuple[int, ...]:
    """max^n by plain recursion, no transposition table: the reference ``solve`` is checked against."""
    if state.is_over:
        return state.deal_results[-1].scores
    if state.phase is rules.Phase.MOON:
        state.apply(rules.ChooseMoon(rules.MoonOption.SELF))
        return _maxn(state)
    seat = state.to_act
    higher = state.ruleset.game.higher_is_better
    best: tuple[int, ...] | None = None
    for card in state.legal_plays():
        child = state.copy()
        child.apply(rules.PlayCard(card))
        scores = _maxn(child)
        if best is None or margin(scores, seat, higher) > margin(best, seat, higher):
            best = scores
    assert best is not None
    return best


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=IDS)
def test_solve_is_max_n_play_of_the_deal_s_end(game: str, players: int, options: dict[str, object]) -> None:
    checked = 0
    for state in positions(game, players, options, 21):
        if state.phase is not rules.Phase.PLAY or not decisions(state):
            continue
        left = sum(len(state.hand(s)) for s in range(players))
        if left > 2 * players:
            if left > SOLVE_MAX_CARDS and checked == 0:
                with pytest.raises(SolveError, match="cards are still to play"):
                    solve(state)
            continue
        values = solve(state)
        seat = state.to_act
        deal = rules.GameState.from_table(state.table.copy(), state.totals)
        for card in deal.legal_plays():
            child = deal.copy()
            child.apply(rules.PlayCard(card))
            assert values[rules.PlayCard(card)] == margin(_maxn(child), seat, state.ruleset.game.higher_is_better)
        checked += 1
        if checked == 3:
            break
    assert checked


def test_solve_refuses_what_it_cannot_solve() -> None:
    state = rules.GameState(rules.Ruleset.create("hearts", 4), seed="refuse")
    with pytest.raises(SolveError, match="not a pass decision"):
        solve(state)


@pytest.mark.parametrize("game", ["hearts", "kierki"])
def test_the_real_deal_of_seats_playing_like_the_model_weighs_one(game: str) -> None:
    """Inference replays the others' plays in a world; in the real deal of seats that play as the model does, every
    play is the model's, so nothing lowers its weight (a hand rebuilt wrongly would)."""
    from referee.search.inference import PlayModel
    from referee.search.rollout import Rollout

    ruleset = rules.Ruleset.create(game, 4)
    state = rules.GameState(ruleset, seed="model")
    rng = random.Random(2)
    weighed = 0
    while not state.is_over and state.deal_number < 3:
        if state.phase is rules.Phase.PLAY:
            model = Rollout(ruleset, state.kind, state.trump)
            seen = state.observation(state.to_act)
            if seen.tricks:
                real = rules.GameState.from_table(state.table.copy(), state.totals)
                assert PlayModel(ruleset, seen, model).weight(real) == 1.0
                weighed += 1
            state.apply(rules.PlayCard(model(state, state.legal_plays())))
        else:
            state.apply(random_action(state, rng))
    assert weighed > 20
