"""The batched environment (referee/learning/vector.py): N tables in one call give, table for table, what
`SingleSeatEnv` gives with the same seeds and decisions, start their next game on the step after one ends
(Gymnasium's NEXT_STEP autoreset), and make a valid Gymnasium vector environment."""

from __future__ import annotations

import numpy as np
import pytest

from referee.learning import SingleSeatEnv
from referee.learning.vector import BatchedEnv


@pytest.mark.parametrize(("game", "players", "options"), [("kierki3", None, {}), ("hearts", None, {"target": 30})])
def test_each_table_steps_as_the_single_seat_environment_does(
    game: str, players: int | None, options: dict[str, object]
) -> None:
    """Heuristic opponents (no random draws): same seeds and same learner decisions, same arrays and rewards."""
    count = 3
    batched = BatchedEnv(game, players, options, num_envs=count, seat=1, opponents="heuristic")
    singles = [SingleSeatEnv(game, players, options, seat=1, opponents="heuristic") for _ in range(count)]
    observations, _ = batched.reset(seed=20)
    theirs = [env.reset(seed=20 + i)[0] for i, env in enumerate(singles)]
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        for i in range(count):
            assert np.array_equal(observations["observation"][i], theirs[i]["observation"])
            assert np.array_equal(observations["action_mask"][i], theirs[i]["action_mask"])
        # a random legal action, and now and then an illegal one (both play the lowest legal instead)
        scores = observations["action_mask"] * rng.random(observations["action_mask"].shape)
        actions = np.where(rng.random(count) < 0.05, 58, np.argmax(scores, axis=1))
        restarting = [batched._autoreset[i] for i in range(count)]
        observations, rewards, terminations, truncations, _ = batched.step(actions)
        assert not truncations.any()
        for i, env in enumerate(singles):
            if restarting[i]:
                theirs[i] = env.reset()[0]
                assert rewards[i] == 0 and not terminations[i]
                continue
            theirs[i], reward, terminated, _, _ = env.step(int(actions[i]))
            assert (rewards[i], terminations[i]) == (reward, terminated)
            ended += terminated
    assert ended >= 1 and batched.illegal_actions > 0
    assert [state.game for state in batched.games()] == [env.aec.game_number for env in singles]


def test_random_opponents_play_legal_whole_games_and_the_rewards_add_up_to_the_totals() -> None:
    envs = BatchedEnv("hearts", options={"target": 40}, num_envs=8, seat=2)
    observations, _ = envs.reset(seed=3)
    assert envs.observation_space.contains(observations)
    returns = np.zeros(8)
    finished: list[tuple[float, int]] = []
    while len(finished) < 8:
        games = envs.games()
        actions = np.argmax(observations["action_mask"], axis=1)
        observations, rewards, terminations, _, _ = envs.step(actions)
        returns += rewards
        for i in np.flatnonzero(terminations):
            finished.append((returns[i], games[i].totals[2]))
            returns[i] = 0
    assert envs.illegal_actions == 0
    assert all(total == -points for total, points in finished)


def test_bad_arguments_are_refused_with_what_to_give() -> None:
    with pytest.raises(ValueError, match="num_envs must be at least 1"):
        BatchedEnv("hearts", num_envs=0)
    with pytest.raises(ValueError, match="opponents must be 'random' or 'heuristic'"):
        BatchedEnv("hearts", opponents="strong")  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="reset"):
        BatchedEnv("hearts", num_envs=2).step(np.zeros(2, dtype=np.int64))
