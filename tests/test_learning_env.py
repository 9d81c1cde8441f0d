"""referee.learning: the PettingZoo environment passes PettingZoo's own api_test in every game, the Gymnasium wrapper
passes Gymnasium's check_env, a seeded reset deals what a match with that seed deals, and no observation of any
seat at any step holds a card that seat may not know."""

from __future__ import annotations

import random
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from fake_transport import ScriptedBot
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from pettingzoo.test.api_test import api_test

from protocol import messages as m
from referee.learning import IllegalAction, KierkiEnv, SingleSeatEnv, encode
from referee.match import Match
from referee.match_config import BotSpec, MatchConfig, MatchSpec, RulesetSpec
from referee.rules import CardPlayed, DealStarted, GameState, PassesExchanged, Phase, Ruleset, RulesetError, parse_card
from referee.rules.features import MOON_OTHERS_ACTION, N_CARDS

GAMES = [
    ("kierki", None, {}),
    ("kierki3", None, {}),
    ("hearts", None, {}),
    ("cancellation", 6, {}),
    ("cancellation", 11, {}),
    ("kierki", None, {"allow_no_trump": "true", "lottery_start": "7", "rozbojnik": "false", "kh_must_discard": True}),
    ("kierki3", None, {"lottery_missing_2c": "forbid_two", "trump_trick_value_3p": 25}),
    ("hearts", None, {"passing": "left", "target": 40, "moon_value": 52, "qs_breaks_hearts": True}),
    ("cancellation", 8, {"last_cancelled": "leader", "passing": "right", "target": 60}),
]
# With a Dict observation (the observation and its action mask, PettingZoo's convention for classic games)
# api_test always warns these two, unless the environment is one of PettingZoo's own: any other warning fails.
DICT_OBSERVATION_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent probably should")


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=lambda v: str(v))
def test_pettingzoo_api_test_passes_for_every_game(game: str, players: int | None, options: dict[str, object]) -> None:
    env = KierkiEnv(game, players, options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=3000)  # type: ignore[no-untyped-call]  # whole games: the play test stops when every agent is done
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)]
    assert unexpected == []


@pytest.mark.parametrize(
    ("game", "players", "opponents"), [("kierki", None, "heuristic"), ("cancellation", 7, "random")]
)
def test_the_gymnasium_wrapper_passes_check_env(game: str, players: int | None, opponents: str) -> None:
    env = SingleSeatEnv(game, players, seat=1, opponents=opponents)  # type: ignore[arg-type]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    assert [str(w.message) for w in caught] == []


def test_the_wrapper_plays_a_whole_game_and_its_rewards_add_up_to_the_final_total() -> None:
    env = SingleSeatEnv("hearts", seat=2, opponents=["heuristic", "random", "heuristic"])
    observation, _ = env.reset(seed=11)
    total, terminated = 0.0, False
    while not terminated:
        legal = np.flatnonzero(observation["action_mask"])
        observation, reward, terminated, truncated, info = env.step(int(legal[-1]))
        assert not truncated and not info["illegal_action"]
        total += reward
    state = env.aec.game_state
    assert state is not None and state.is_over
    assert total == -state.totals[2]  # Hearts: points are bad, so the rewards are their negation


def test_an_illegal_action_is_replaced_by_the_lowest_legal_one_or_raises() -> None:
    env = SingleSeatEnv("kierki", seat=0, opponents="heuristic", illegal_penalty=-5)
    observation, _ = env.reset(seed=3)
    mask = observation["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    lowest = int(np.flatnonzero(mask)[0])
    twin = SingleSeatEnv("kierki", seat=0, opponents="heuristic")
    twin.reset(seed=3)
    expected = twin.step(lowest)
    got = env.step(illegal)
    assert got[4]["illegal_action"] and not expected[4]["illegal_action"]
    assert np.array_equal(got[0]["observation"], expected[0]["observation"]) and got[1] == expected[1] - 5
    strict = SingleSeatEnv("kierki", seat=0, opponents="heuristic", illegal="raise")
    strict.reset(seed=3)
    with pytest.raises(IllegalAction, match="legal: "):
        strict.step(illegal)


def test_bad_rule_options_are_refused_by_the_rulesets_own_parsing() -> None:
    with pytest.raises(RulesetError, match="target"):
        KierkiEnv("hearts", options={"target": "lots"})
    with pytest.raises(RulesetError, match="no option"):
        KierkiEnv("kierki", options={"target": 50})
    with pytest.raises(RulesetError, match="6 to 11"):
        KierkiEnv("cancellation", 5)


def test_place_rewards_come_only_at_the_end_from_the_places() -> None:
    env = KierkiEnv("kierki3", reward="place")
    env.reset(seed=5)
    seen: list[float] = []
    for _agent in env.agent_iter():
        observation, reward, terminated, _, _ = env.last()
        assert observation is not None
        seen.append(reward)
        env.step(None if terminated else int(np.flatnonzero(observation["action_mask"])[0]))
    state = env.game_state
    assert state is not None and state.final_places is not None
    assert all(r == 0 for r in seen[:-3]) and sorted(seen[-3:]) == sorted(
        (4 - 2 * place) / 2 for place in state.final_places
    )


# --- seeding: a seeded reset deals what the referee deals for that seed ------------------------------------------


def _match_deals(
    out: Path, game: str, players: int | None, seed: str, games: int
) -> list[list[tuple[int, tuple[int, ...]]]]:
    """Each game's deals as the referee's match sends them to its seats: (dealer, seat 0's hand) per deal."""
    ruleset = Ruleset.create(game, players, {"target": 30} if game in ("hearts", "cancellation") else {})
    bots = [ScriptedBot() for _ in range(ruleset.players)]
    config = MatchConfig.from_spec(
        MatchSpec(
            rules=RulesetSpec.of(ruleset), bots=tuple(BotSpec(("scripted",)) for _ in bots), seed=seed, games=games
        ),
        out,
    )
    Match(config, transport_factory=lambda seat, spec: bots[seat]).run()
    per_game: list[list[tuple[int, tuple[int, ...]]]] = []
    for message in bots[0].received:
        if isinstance(message, m.GameStartEvent):
            per_game.append([])
        elif isinstance(message, m.DealEvent):
            per_game[-1].append((message.dealer, tuple(sorted(parse_card(c) for c in message.hand))))
    return per_game


def _first_legal(mask: np.ndarray) -> int:
    """The fake bot's choices (tests/fake_transport.py first_legal) as actions: the first card in the wire's order
    (by suit, then rank), the first trump choice, the moon's "others"."""
    legal = [int(a) for a in np.flatnonzero(mask)]
    cards = [a for a in legal if a < N_CARDS]
    if cards:
        return min(cards, key=lambda c: (c & 3, c >> 2))
    return legal[-1] if legal[-1] == MOON_OTHERS_ACTION else legal[0]


@pytest.mark.parametrize(("game", "players"), [("kierki", None), ("cancellation", 7)])
def test_a_seeded_reset_deals_what_a_match_with_that_seed_deals(tmp_path: Path, game: str, players: int | None) -> None:
    options = {"target": 30} if game == "cancellation" else {}
    env = KierkiEnv(game, players, options)
    dealt: list[list[tuple[int, tuple[int, ...]]]] = []
    for index in range(2):
        env.reset(seed=42) if index == 0 else env.reset()  # then the match's second game
        state = env.game_state
        assert state is not None
        for _ in env.agent_iter():
            observation, _, terminated, _, _ = env.last()
            assert observation is not None
            env.step(None if terminated else _first_legal(observation["action_mask"]))
        deals = [(e.dealer, tuple(sorted(e.hands[0]))) for e in state.events if isinstance(e, DealStarted)]
        dealt.append(deals)
    assert dealt == _match_deals(tmp_path, game, players, "42", 2)


# --- information hiding: no observation of any seat holds a card that seat may not know ------------------------


def _known(state: GameState, seat: int) -> Counter[int]:
    """Every card ``seat`` may know in the current deal, from the true events (not from any observation): the
    cards dealt to it (while trump is named, the dealer's first 5 or 6 only), those passed to it, those played."""
    start = max(i for i, e in enumerate(state.events) if isinstance(e, DealStarted))
    dealt = state.events[start]
    assert isinstance(dealt, DealStarted)
    known: Counter[int] = Counter()
    if state.phase is Phase.TRUMP:
        if seat == dealt.dealer:
            known.update(dealt.hands[seat][: 5 if state.players == 4 else 6])
    else:
        known.update(dealt.hands[seat])
    for event in state.events[start:]:
        if isinstance(event, PassesExchanged):
            known.update(event.passed[(seat - event.pass_offset) % state.players])
        elif isinstance(event, CardPlayed):
            known[event.card] += 1
    return known


CARD_SECTIONS = ("hand", "pass_selected", "passed", "received", "trick", "played", "table")


def _check_seat(env: KierkiEnv, agent: str) -> None:
    state = env.game_state
    assert state is not None
    seat = env.possible_agents.index(agent)
    vector = env.observe(agent)["observation"]
    known = _known(state, seat)
    in_deck = set(range(N_CARDS)) if env.ruleset.game != "kierki3" else set(range(1, N_CARDS))
    for name in CARD_SECTIONS:
        block = vector[env.layout.slices[name]]
        for index in np.flatnonzero(block):
            card = int(index) % N_CARDS
            # a card outside the deck (the "virtual" 2♣ opening clubs in Kierki for 3) is no secret
            assert card in known or card not in in_deck, f"{agent} sees {card} in {name}: it may not know it"
            assert block[index] <= known[card] or card not in in_deck, f"{agent}: {name} holds {card} too often"
    hand = vector[env.layout.slices["hand"]]
    if state.phase is not Phase.TRUMP:
        assert Counter({c: int(hand[c]) for c in np.flatnonzero(hand)}) == Counter(state.hand(seat))
    if env.selected(agent) == ():
        assert not vector[env.layout.slices["pass_selected"]].any(), f"{agent} sees another seat's pass"


@settings(max_examples=examples(25))
@given(
    config=st.sampled_from(GAMES),
    seed=st.integers(0, 10**6),
    skip=st.integers(0, 2500),
    rng=st.randoms(use_true_random=False),
)
def test_no_observation_of_any_seat_holds_a_card_it_may_not_know(
    config: tuple[str, int | None, dict[str, object]], seed: int, skip: int, rng: random.Random
) -> None:
    game, players, options = config
    env = KierkiEnv(game, players, options)
    env.reset(seed=seed)
    for step, _agent in enumerate(env.agent_iter(skip + 150)):
        observation, _, terminated, _, _ = env.last()
        assert observation is not None
        if step >= skip and not terminated:
            for other in env.agents:
                _check_seat(env, other)
        if terminated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))


def test_the_hiding_check_catches_a_leak() -> None:
    """The check above fails on an observation that shows a card of another seat's hand."""
    env = KierkiEnv("hearts")
    env.reset(seed=1)
    state = env.game_state
    assert state is not None
    seen = state.observation(0)
    theirs = state.hand(1)[0]
    leaky = type(seen)(**{**{f: getattr(seen, f) for f in seen.__dataclass_fields__}, "received": (theirs,)})
    original = env.observe
    env.observe = lambda agent: encode(env.layout, leaky) if agent == "player_0" else original(agent)  # type: ignore[method-assign]
    with pytest.raises(AssertionError, match="may not know"):
        _check_seat(env, "player_0")
    assert encode(env.layout, leaky)["observation"][env.layout.slices["received"]][theirs] == 1
