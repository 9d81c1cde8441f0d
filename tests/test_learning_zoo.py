"""The libraries' own tests, run as their authors run them: PettingZoo's api, seed, render, state and Parallel API
tests on `referee.learning.zoo`'s environments of the four games, and Gymnasium's registry and ``check_env`` on the
registered ids, in a fresh interpreter; and the global state, which is every hand and never any observation."""

from __future__ import annotations

import functools
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test.api_test import api_test
from pettingzoo.test.parallel_test import parallel_api_test
from pettingzoo.test.render_test import render_test
from pettingzoo.test.seed_test import parallel_seed_test, seed_test
from pettingzoo.test.state_test import state_test

from referee.learning import GYMNASIUM_IDS, KierkiEnv, SingleSeatEnv, zoo
from referee.rules.features import N_CARDS

ROOT = Path(__file__).resolve().parents[1]
GAMES = [("kierki", None), ("kierki3", None), ("hearts", None), ("cancellation", 7)]
# With a Dict observation (the observation and its action mask, PettingZoo's convention for classic games)
# api_test always warns these two, unless the environment is one of PettingZoo's own: any other warning fails.
DICT_OBSERVATION_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent probably should")


@pytest.fixture
def only_expected_warnings() -> Iterator[None]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    assert [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)] == []


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_pettingzoos_own_tests_pass(
    game: str, players: int | None, only_expected_warnings: None, capsys: pytest.CaptureFixture[str]
) -> None:
    make = functools.partial(zoo.env, game, players)
    api_test(make(), num_cycles=200)  # type: ignore[no-untyped-call]
    seed_test(make, num_cycles=200)  # type: ignore[no-untyped-call]
    render_test(make)  # type: ignore[arg-type]
    state_test(make(), zoo.parallel_env(game, players))  # type: ignore[no-untyped-call]
    parallel_api_test(zoo.parallel_env(game, players), num_cycles=200)
    parallel_seed_test(functools.partial(zoo.parallel_env, game, players))  # type: ignore[no-untyped-call]
    assert "seat 0: total" in capsys.readouterr().out  # render_mode="human" printed the table


def test_render_modes_human_prints_and_returns_none_ansi_returns_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    ansi, human = KierkiEnv("hearts", render_mode="ansi"), KierkiEnv("hearts", render_mode="human")
    ansi.reset(seed=3)
    human.reset(seed=3)
    capsys.readouterr()
    text = ansi.render()
    assert human.render() is None
    assert isinstance(text, str) and text.startswith("hearts") and capsys.readouterr().out == text + "\n"
    assert KierkiEnv.metadata == {"render_modes": ["ansi", "human"], "name": "kierki_v0", "is_parallelizable": False}


def test_the_gymnasium_ids_make_in_a_fresh_interpreter_and_pass_check_env() -> None:
    script = (
        "import warnings, gymnasium\n"
        "from gymnasium.utils.env_checker import check_env\n"
        "warnings.simplefilter('error')\n"
        "env = gymnasium.make('referee.learning:kierki/Hearts-v0', opponents='heuristic', options={'target': 30})\n"
        "check_env(env.unwrapped)\n"
        "print(env.spec.id, env.unwrapped.aec.ruleset.describe())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("kierki/Hearts-v0 hearts")


@pytest.mark.parametrize("env_id", list(GYMNASIUM_IDS))
def test_every_id_passes_check_env_with_no_warning(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    players = {"players": 6} if env_id == "kierki/Cancellation-v0" else {}
    env = gymnasium.make(env_id, seat=None, episode="deal", **players)  # type: ignore[arg-type]
    assert isinstance(env.unwrapped, SingleSeatEnv) and env.unwrapped.aec.ruleset.game.value == GYMNASIUM_IDS[env_id]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


# --- the global state: for training only ---------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_the_state_holds_every_hand_and_the_kitty_within_its_space(game: str, players: int | None) -> None:
    env = KierkiEnv(game, players)
    env.reset(seed=9)
    n = env.ruleset.players
    for step, agent in enumerate(env.agent_iter(400)):
        observation, _, terminated, _, _ = env.last()
        state, table = env.state(), env.game_state
        assert table is not None and env.state_space.contains(state)
        for seat in range(n):
            hand = state[seat * N_CARDS : (seat + 1) * N_CARDS]
            assert sorted(np.repeat(np.arange(N_CARDS), hand.astype(int))) == sorted(table.hand(seat)), step
        kitty = state[n * N_CARDS : (n + 1) * N_CARDS]
        assert sorted(np.repeat(np.arange(N_CARDS), kitty.astype(int))) == sorted(table.table.kitty)
        seat_of = env.possible_agents.index(agent)
        size = env.layout.size
        own = state[(n + 1) * N_CARDS + seat_of * size : (n + 1) * N_CARDS + (seat_of + 1) * size]
        assert observation is not None and np.array_equal(own, observation["observation"])
        env.step(None if terminated else int(np.flatnonzero(observation["action_mask"])[-1]))


def test_no_observation_is_made_from_the_state(monkeypatch: pytest.MonkeyPatch, only_expected_warnings: None) -> None:
    """``state()`` is never called to make an observation: with it broken, every API still plays whole games."""

    def broken(self: KierkiEnv) -> None:
        raise AssertionError("state() reached an observation")

    monkeypatch.setattr(KierkiEnv, "state", broken)
    env = zoo.env("kierki3")
    api_test(env, num_cycles=50)  # type: ignore[no-untyped-call]
    single = SingleSeatEnv("hearts", seat=None, opponents="heuristic", options={"target": 30})
    single.reset(seed=2)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = single.step(int(np.flatnonzero(single.action_masks())[0]))
    with pytest.raises(AssertionError, match="reached"):
        single.aec.state()
