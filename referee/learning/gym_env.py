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
ask for it that way (sb3-contrib's ``MaskablePPO``): the mask of the observation the last ``reset`` or ``step``
returned.

Options learners expect: ``seat=None`` draws the learning seat anew at every reset (from ``np_random``);
``episode="deal"`` ends an episode with each deal (``terminated`` when the deal's result is in) and the next
``reset()`` plays on to the next deal of the same game (a new game once one ends; ``reset(seed=S)`` starts match
``S`` afresh), the deal's kind being in the observation; and a `SnapshotPool` as an opponent plays, each episode,
a snapshot of the learner's own policy drawn from the pool (self-play).

Registered with Gymnasium when ``referee.learning`` is imported: ``gymnasium.make("referee.learning:kierki/Hearts-v0",
opponents="heuristic")`` (ids ``kierki/Kierki-v0``, ``kierki/Kierki3-v0``, ``kierki/Hearts-v0``,
``kierki/Cancellation-v0``; every keyword argument is this class's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import gymnasium
import numpy as np

from referee.learning.encoding import Encoded, MaskArray
from referee.learning.env import RENDER_MODES, KierkiEnv, RewardKind
from referee.learning.policies import Policy, heuristic_action, random_policy
from referee.rules import Game
from referee.rules.features import N_ACTIONS

__all__ = ["Opponent", "SingleSeatEnv", "SnapshotPool"]


class SnapshotPool:
    """Self-play: snapshots of the learner's own policy, of which each opponent seat plays one drawn per episode.

    ``pool.add(policy)`` after each round of training (a frozen copy: a callable that does not change as the
    learner trains on); the pool keeps the latest ``keep`` and draws among them uniformly."""

    def __init__(self, snapshots: Sequence[Policy] = (), *, keep: int = 10) -> None:
        if keep < 1:
            raise ValueError(f"keep must be at least 1, not {keep}")
        self.keep = keep
        self.snapshots: list[Policy] = list(snapshots)[-keep:]

    def add(self, policy: Policy) -> None:
        self.snapshots.append(policy)
        del self.snapshots[: -self.keep]

    def draw(self, rng: np.random.Generator) -> Policy:
        if not self.snapshots:
            raise ValueError("the snapshot pool is empty: add() a snapshot of the policy before the first reset")
        return self.snapshots[int(rng.integers(len(self.snapshots)))]


Opponent = Literal["random", "heuristic"] | Policy | SnapshotPool


class SingleSeatEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """A game in which ``seat`` is the agent and every other seat plays its opponent policy."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game: Game | str = "kierki",
        players: int | None = None,
        options: Mapping[str, object] | None = None,
        *,
        seat: int | None = 0,
        opponents: Opponent | Sequence[Opponent] = "random",
        reward: RewardKind = "points",
        episode: Literal["game", "deal"] = "game",
        illegal: Literal["fallback", "raise"] = "fallback",
        illegal_penalty: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        self.aec = KierkiEnv(game, players, options, reward=reward, render_mode=render_mode)
        n = self.aec.ruleset.players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be a seat of the game, 0 to {n - 1}, or None (drawn per episode), not {seat}")
        if illegal not in ("fallback", "raise"):
            raise ValueError(f"illegal must be 'fallback' or 'raise', not {illegal!r}")
        if episode not in ("game", "deal"):
            raise ValueError(f"episode must be 'game' or 'deal', not {episode!r}")
        single = isinstance(opponents, str | SnapshotPool) or callable(opponents)
        given: list[Opponent] = [opponents] * (n - 1) if single else list(opponents)  # type: ignore[list-item, arg-type]
        if len(given) != n - 1:
            raise ValueError(f"give one opponent for all, or one per other seat ({n - 1}), not {len(given)}")
        for opponent in given:
            if (
                not callable(opponent)
                and not isinstance(opponent, SnapshotPool)
                and opponent not in ("random", "heuristic")
            ):
                raise ValueError(
                    f"an opponent is 'random', 'heuristic', a callable or a SnapshotPool, not {opponent!r}"
                )
        self._given = given
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.agent = self.aec.possible_agents[self.seat]
        self._opponents: dict[int, Opponent] = {}
        self.episode = episode
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self._mask: MaskArray | None = None
        self._deals_before = 0  # deal results before this episode (episode="deal")

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Encoded, dict[str, Any]]:
        """A new game: with ``seed``, game 1 of that match seed (as ``kierki match --seed``); without, the next
        (with ``episode="deal"``: the next deal of the game in play, while it is not over)."""
        super().reset(seed=seed)
        aec = self.aec
        state = aec.game_state
        if seed is not None or self.episode == "game" or state is None or state.is_over:
            aec.reset(seed=seed)
            state = aec.game_state
            assert state is not None
        n = aec.ruleset.players
        rng = self.np_random
        if self.fixed_seat is None:
            self.seat = int(rng.integers(n))
            self.agent = aec.possible_agents[self.seat]
        others = [s for s in range(n) if s != self.seat]
        self._opponents = {
            s: opponent.draw(rng) if isinstance(opponent, SnapshotPool) else opponent
            for s, opponent in zip(others, self._given, strict=True)
        }
        self._deals_before = len(state.deal_results)
        aec._cumulative_rewards[self.agent] = 0.0  # (a deal's reward was given when the last episode ended)
        self._play_others()  # (no deal ends before a seat's first turn: nothing is rewarded yet)
        observation = aec.observe(self.agent)
        self._mask = observation["action_mask"]  # type: ignore[assignment]
        return observation, {"seat": self.seat}

    def step(self, action: int | np.integer[Any]) -> tuple[Encoded, float, bool, bool, dict[str, Any]]:
        if self._mask is None:
            raise RuntimeError("the episode is over: call reset() to start the next one")
        mask = self._mask
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
        terminated = self.aec.terminations[self.agent] or self._deal_over()
        observation = self.aec.observe(self.agent)
        self._mask = None if terminated else observation["action_mask"]  # type: ignore[assignment]
        return observation, reward, terminated, False, info

    def action_masks(self) -> MaskArray:
        """The learner's legal actions now, 1 where legal: the mask of the observation last returned."""
        if self._mask is None:
            return np.zeros(N_ACTIONS, dtype=np.int8)
        return self._mask

    def render(self) -> str | None:
        return self.aec.render()

    def _deal_over(self) -> bool:
        if self.episode != "deal":
            return False
        state = self.aec.game_state
        return state is not None and len(state.deal_results) > self._deals_before

    def _play_others(self) -> float:
        """Play the other seats until the learner is to act or the episode is over; the learner's reward
        meanwhile."""
        aec = self.aec
        while aec.agent_selection != self.agent and not aec.terminations[self.agent] and not self._deal_over():
            agent = aec.agent_selection
            opponent = self._opponents[aec.possible_agents.index(agent)]
            if opponent == "heuristic":
                action = heuristic_action(aec.ruleset, aec.seat_observation(agent), aec.selected(agent))
            elif opponent == "random":
                action = random_policy(self.np_random)(aec.observe(agent))
            else:
                assert callable(opponent)
                action = opponent(aec.observe(agent))
            aec.step(action)
        return float(aec._cumulative_rewards[self.agent])
