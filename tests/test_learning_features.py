"""The rules core's `features` writes, at every step, exactly ``encode`` of the rules core's own `Observation`: the
environment's observation and action mask for every seat, in every game and rule option of the environment tests,
over whole random games (so what a seat may know is still decided by ``observe`` alone)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_learning_env import GAMES

from referee.learning import KierkiEnv, encode


def _walk(env: KierkiEnv, rng: random.Random, steps: int) -> int:
    """Random legal steps, comparing every seat's observation with the encoding of its `Observation` before each;
    returns the number of comparisons."""
    state = env.game_state
    assert state is not None
    compared = 0
    for _ in range(steps):
        if state.is_over:
            break
        for agent in env.agents:
            seat = env.possible_agents.index(agent)
            fast = env.observe(agent)
            full = encode(env.layout, state.observation(seat), env.selected(agent))
            where = f"{agent} at deal {state.deal_number}, {state.phase.value}, trick {state.trick_number}"
            assert fast["observation"].dtype == full["observation"].dtype, where
            assert np.array_equal(fast["observation"], full["observation"]), where
            assert np.array_equal(fast["action_mask"], full["action_mask"]), where
            compared += 1
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.randrange(len(legal))]))
    return compared


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=lambda v: str(v))
def test_the_features_are_the_encoding_of_the_observation_at_every_step(
    game: str, players: int | None, options: dict[str, object]
) -> None:
    rng = random.Random(f"{game}{players}{options}")
    env = KierkiEnv(game, players, options)
    env.reset(seed=1)
    compared = _walk(env, rng, 700)  # Kierki's whole game (every deal kind), several deals of the Hearts games
    state = env.game_state
    assert state is not None and (state.is_over or game != "kierki")
    assert compared > 400


def test_the_comparison_catches_a_difference() -> None:
    """The check above fails when one element of one seat's vector differs."""
    env = KierkiEnv("hearts")
    env.reset(seed=3)
    original = env.observe

    def off_by_one(agent: str) -> dict[str, np.typing.NDArray[np.generic]]:
        seen = original(agent)
        seen["observation"][-1] += 1
        return seen

    env.observe = off_by_one  # type: ignore[method-assign]
    with pytest.raises(AssertionError, match="player_"):
        _walk(env, random.Random(1), 3)
