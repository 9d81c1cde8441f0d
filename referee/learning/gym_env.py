"""One seat learns, the others play given policies: the AEC environment as a single-agent Gymnasium ``Env``.

    from referee.learning import SingleSeatEnv
    env = SingleSeatEnv("kierki", seat=0, opponents="heuristic")
    observation, info = env.reset(seed=7)
    observation, reward, terminated, truncated, info = env.step(action)

Observations, actions and rewards are the AEC environment's (`referee.learning.env`), for the learning seat: a
step takes its action, then plays the other seats until it is the learner's turn again or the game is over, and
the reward is everything the learner was rewarded in between (with the default ``reward="points"``, its points of
each deal that ended, signed so that higher is better). ``opponents`` gives the other seats' policies: one for
all or one per other seat in seat order, each ``"random"`` (uniform over the mask, drawn from the environment's
``np_random``, so a seeded reset replays exactly), ``"heuristic"`` (the heuristic sample bot's logic,
`policies.heuristic_action`) or any callable from an observation ``dict`` to an action (a trained policy, for
self-play).

An unmasked learner (or Gymnasium's own ``check_env``) sends illegal actions. With ``illegal="fallback"`` (the
default) the lowest legal action is played instead, as the referee plays the lowest legal card for a bot's illegal
answer; ``info["illegal_action"]`` is then true and ``illegal_penalty`` is added to the reward. With
``illegal="raise"`` an illegal action raises `IllegalAction`. ``action_masks()`` gives the mask for libraries that
ask for it that way (sb3-contrib's ``MaskablePPO``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import gymnasium
import numpy as np

from referee.learning.encoding import Encoded, MaskArray, legal_mask
from referee.learning.env import KierkiEnv, RewardKind
from referee.learning.policies import Policy, heuristic_action, random_policy
from referee.rules import Game

Opponent = Literal["random", "heuristic"] | Policy


class SingleSeatEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """A game in which ``seat`` is the agent and every other seat plays its opponent policy."""

    def __init__(
        self,
        game: Game | str = "kierki",
        players: int | None = None,
        options: Mapping[str, object] | None = None,
        *,
        seat: int = 0,
        opponents: Opponent | Sequence[Opponent] = "random",
        reward: RewardKind = "points",
        illegal: Literal["fallback", "raise"] = "fallback",
        illegal_penalty: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        self.aec = KierkiEnv(game, players, options, reward=reward, render_mode=render_mode)
        n = self.aec.ruleset.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be a seat of the game, 0 to {n - 1}, not {seat}")
        if illegal not in ("fallback", "raise"):
            raise ValueError(f"illegal must be 'fallback' or 'raise', not {illegal!r}")
        given = [opponents] * (n - 1) if isinstance(opponents, str) or callable(opponents) else list(opponents)
        if len(given) != n - 1:
            raise ValueError(f"give one opponent for all, or one per other seat ({n - 1}), not {len(given)}")
        for opponent in given:
            if not callable(opponent) and opponent not in ("random", "heuristic"):
                raise ValueError(f"an opponent is 'random', 'heuristic' or a callable, not {opponent!r}")
        others = [s for s in range(n) if s != seat]
        self._opponents = dict(zip(others, given, strict=True))
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.metadata = {"render_modes": self.aec.metadata["render_modes"], "name": self.aec.metadata["name"]}
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Encoded, dict[str, Any]]:
        """A new game: with ``seed``, game 1 of that match seed (as ``kierki match --seed``); without, the next."""
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        self._play_others()  # (no deal ends before a seat's first turn: nothing is rewarded yet)
        return self.aec.observe(self.agent), {}

    def step(self, action: int | np.integer[Any]) -> tuple[Encoded, float, bool, bool, dict[str, Any]]:
        if self.aec.terminations.get(self.agent, True):
            raise RuntimeError("the game is over: call reset() to start the next one")
        mask = self.action_masks()
        info: dict[str, Any] = {"illegal_action": False}
        penalty = 0.0
        chosen = int(action) if isinstance(action, int | np.integer) else -1
        if not 0 <= chosen < len(mask) or not mask[chosen]:
            if self.illegal == "raise":
                self.aec.step(action)  # raises IllegalAction, naming the legal actions
            chosen = int(np.flatnonzero(mask)[0])
            info["illegal_action"] = True
            penalty = self.illegal_penalty
        self.aec.step(chosen)
        reward = self._play_others() + penalty
        terminated = self.aec.terminations[self.agent]
        return self.aec.observe(self.agent), reward, terminated, False, info

    def action_masks(self) -> MaskArray:
        """The learner's legal actions now, 1 where legal (``observation["action_mask"]``)."""
        return legal_mask(self.aec.layout, self.aec.seat_observation(self.agent), self.aec.selected(self.agent))

    def render(self) -> str | None:
        return self.aec.render()

    def _play_others(self) -> float:
        """Play the other seats until the learner is to act or the game is over; the learner's reward meanwhile."""
        aec = self.aec
        while aec.agent_selection != self.agent and not aec.terminations[self.agent]:
            seat = aec.possible_agents.index(aec.agent_selection)
            opponent = self._opponents[seat]
            if opponent == "heuristic":
                agent = aec.agent_selection
                action = heuristic_action(aec.ruleset, aec.seat_observation(agent), aec.selected(agent))
            elif opponent == "random":
                action = random_policy(self.np_random)(aec.observe(aec.agent_selection))
            else:
                assert callable(opponent)
                action = opponent(aec.observe(aec.agent_selection))
            aec.step(action)
        return float(aec._cumulative_rewards[self.agent])
