"""The heuristic opponent of the environments (referee/learning/heuristic.py) decides as the heuristic sample bot
(sample_bots/heuristic_bot.py, a standalone program) does, at every decision of whole games of every game: the
two are separate copies of one set of rules (the referee imports nothing of the sample bots), kept equal here."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from referee.learning import KierkiEnv, heuristic, policies
from referee.learning.policies import heuristic_action

SAMPLE = Path(__file__).resolve().parents[1] / "sample_bots" / "heuristic_bot.py"


def _sample_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("heuristic_sample_bot", SAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _AsSampleBot:
    """`referee.learning.heuristic`'s functions, answered by the sample bot's own, from the requests it is sent."""

    def __init__(self, bot: ModuleType, game: str, options: Mapping[str, object]) -> None:
        self.bot, self.game, self.options = bot, game, options

    def choose_play(self, request: Mapping[str, Any]) -> str:
        return str(self.bot.choose_play(request))

    def choose_pass(self, hand: Sequence[str], count: int = 3) -> list[str]:
        return list(self.bot.choose_pass({"hand": list(hand), "count": count}))

    def choose_trump(self, cards: Sequence[str], choices: Sequence[str]) -> str:
        return str(self.bot.choose_trump({"cards": list(cards), "choices": list(choices)}))

    def choose_moon(self, options: Mapping[str, Sequence[int]], seat: int, target: int) -> str:
        self.bot.ME.update(seat=seat, game=self.game, options=self.options)
        return str(self.bot.choose_moon({"options": options}))


GAMES = [
    ("kierki", None, {}),
    ("kierki3", None, {}),
    ("kierki", None, {"allow_no_trump": "true", "lottery_start": "7"}),
    ("hearts", None, {"target": 60}),
    ("hearts", None, {"moon_value": 52, "passing": "left", "target": 40}),
    ("cancellation", 7, {"target": 60}),
]


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=lambda v: str(v))
def test_the_heuristic_opponent_decides_as_the_sample_bot(
    monkeypatch: pytest.MonkeyPatch, game: str, players: int | None, options: dict[str, object]
) -> None:
    env = KierkiEnv(game, players, options)
    sample = _AsSampleBot(_sample_bot(), game, env.ruleset.options())
    ours = heuristic
    env.reset(seed=4)
    decisions = 0
    for agent in env.agent_iter():
        observation, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        seen, selected = env.seat_observation(agent), env.selected(agent)
        action = heuristic_action(env.ruleset, seen, selected)
        monkeypatch.setattr(policies, "heuristic", sample)
        assert heuristic_action(env.ruleset, seen, selected) == action, f"{agent}, {seen.phase.value}, deal {seen.deal}"
        monkeypatch.setattr(policies, "heuristic", ours)
        assert observation is not None and observation["action_mask"][action] == 1
        decisions += 1
        env.step(int(np.int64(action)))
    assert decisions > 100
