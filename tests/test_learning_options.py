"""The options learners expect of the one-seat environment: the learning seat drawn per episode, one-deal episodes
that play on through the game, self-play against snapshots of the learner's own policy, and ``action_masks()``
giving the mask of the observation last returned."""

from __future__ import annotations

import numpy as np
import pytest

from referee.learning import SingleSeatEnv, SnapshotPool
from referee.learning.encoding import Encoded


def _lowest(observation: Encoded) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


def test_the_learning_seat_is_drawn_per_episode_and_reported() -> None:
    env = SingleSeatEnv("hearts", seat=None, options={"target": 20})
    seats = set()
    _, info = env.reset(seed=1)
    for _ in range(12):
        seats.add(info["seat"])
        assert env.agent == env.aec.possible_agents[info["seat"]] == env.aec.agent_selection
        terminated = False
        observation = env.aec.observe(env.agent)
        while not terminated:
            observation, _, terminated, _, _ = env.step(_lowest(observation))
        _, info = env.reset()
    assert len(seats) >= 3


def test_one_deal_episodes_play_the_deals_of_one_game_in_turn_and_reward_each() -> None:
    env = SingleSeatEnv("kierki", seat=2, episode="deal", opponents="heuristic")
    observation, _ = env.reset(seed=4)
    state = env.aec.game_state
    assert state is not None
    kinds, rewards = [], []
    while not state.is_over:
        kind = observation["observation"][env.aec.layout.slices["kind"]].argmax()
        total = 0.0
        terminated = False
        while not terminated:
            observation, reward, terminated, _, _ = env.step(_lowest(observation))
            total += reward
        assert env.action_masks().sum() == 0
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)
        kinds.append(kind)
        rewards.append(total)
        assert len(state.deal_results) == len(rewards) and total == state.deal_results[-1].scores[2]
        if not state.is_over:
            observation, _ = env.reset()
            assert env.aec.game_state is state  # the same game, its next deal
    assert len(set(kinds)) > 5 and sum(rewards) == state.totals[2]
    env.reset()
    assert env.aec.game_state is not state and env.aec.game_number == 2


def test_self_play_draws_each_opponent_from_the_snapshots_of_the_policy() -> None:
    used: list[str] = []

    def snapshot(name: str) -> object:
        def policy(observation: Encoded) -> int:
            used.append(name)
            return _lowest(observation)

        return policy

    pool = SnapshotPool(keep=2)
    with pytest.raises(ValueError, match="empty"):
        SingleSeatEnv("hearts", opponents=pool).reset(seed=1)
    for name in ("old", "middle", "new"):
        pool.add(snapshot(name))  # type: ignore[arg-type]
    env = SingleSeatEnv("hearts", opponents=pool, options={"target": 10})
    env.reset(seed=2)
    for _ in range(10):
        env.reset()
    assert set(used) == {"middle", "new"}  # the oldest fell out of the pool


def test_action_masks_is_the_mask_of_the_last_observation() -> None:
    env = SingleSeatEnv("kierki3", opponents="heuristic")
    observation, _ = env.reset(seed=6)
    for _ in range(40):
        mask = env.action_masks()
        assert mask is observation["action_mask"] or np.array_equal(mask, observation["action_mask"])
        observation, _, terminated, _, _ = env.step(_lowest(observation))
        assert not terminated
