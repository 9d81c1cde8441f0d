"""Many tables at once: N games of `SingleSeatEnv` stepped in one call, numpy arrays in and out.

    from referee.learning.vector import BatchedEnv
    envs = BatchedEnv("hearts", num_envs=64, opponents="random")
    observations, infos = envs.reset(seed=7)           # table i plays match seed 7 + i, as SingleSeatEnv would
    observations, rewards, terminations, truncations, infos = envs.step(actions)   # actions: shape (64,)

It implements Gymnasium's vector API (``gymnasium.vector.VectorEnv``) in process: ``observations`` is a ``dict`` of
two arrays, ``"observation"`` of shape ``(N, size)`` (float32) and ``"action_mask"`` of shape ``(N, 59)`` (int8),
as ``SyncVectorEnv`` of N `SingleSeatEnv` gives; rewards, terminations and truncations are arrays of N. A finished
table starts its next game on the following step (Gymnasium's default ``AutoresetMode.NEXT_STEP``: that step's
action for it is ignored and it returns the new game's first observation with reward 0).

Each table is a `GameState` of the rules core, driven directly: the learner's action is applied as the
environment applies it (one card of a pass per step, the three sent together), the other seats play without any
observation being encoded for them (a random seat needs only its legal choices; a heuristic one its rules-core
`Observation`), and the learner's observation is written by the rules core's ``features`` into row i of the
arrays. Observations, masks and rewards are those of `SingleSeatEnv` with the same seeds and the same decisions
(tests/test_learning_vector.py checks them step for step with heuristic opponents, which draw no random numbers).
An illegal action plays the lowest legal one instead (``SingleSeatEnv``'s ``illegal="fallback"``), counted in
``illegal_actions``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final, Literal

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from referee.learning.actions import choice_for
from referee.learning.encoding import Layout
from referee.learning.env import RewardKind
from referee.learning.policies import heuristic_action
from referee.rules import Card, Game, GameState, PassCards, Phase, PlayCard, Ruleset
from referee.rules.features import N_ACTIONS, action_mask, seat_vector

__all__ = ["BatchedEnv"]

_PASS: Final = Phase.PASS
_PLAY: Final = Phase.PLAY
_F32: Final = np.dtype("<f4")


class BatchedEnv(gymnasium.vector.VectorEnv[Any, Any, Any]):
    """``num_envs`` tables of one game, the learner at ``seat`` of each, the other seats ``opponents``."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        game: Game | str = "kierki",
        players: int | None = None,
        options: Mapping[str, object] | None = None,
        *,
        num_envs: int = 64,
        seat: int = 0,
        opponents: Literal["random", "heuristic"] = "random",
        reward: RewardKind = "points",
        copy: bool = True,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if opponents not in ("random", "heuristic"):
            raise ValueError(f"opponents must be 'random' or 'heuristic', not {opponents!r}")
        if reward not in ("points", "place"):
            raise ValueError(f"reward must be 'points' or 'place', not {reward!r}")
        self.ruleset = Ruleset.create(game, players, options)
        n = self.ruleset.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be a seat of the game, 0 to {n - 1}, not {seat}")
        self.layout = Layout.of(self.ruleset)
        self.num_envs = num_envs
        self.seat = seat
        self.opponents = opponents
        self.reward_kind: RewardKind = reward
        self.copy = copy
        low, high = self.layout.bounds()
        self.single_observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            }
        )
        self.single_action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._sign = 1 if self.ruleset.game in (Game.KIERKI, Game.KIERKI3) else -1
        self._observations = np.zeros((num_envs, self.layout.size), dtype=np.float32)
        self._masks = np.zeros((num_envs, N_ACTIONS), dtype=np.int8)
        self._states: list[GameState] = []
        self._seeds: list[str] = []
        self._selected: list[list[Card]] = [[] for _ in range(num_envs)]
        self._legal = [bytearray(N_ACTIONS) for _ in range(num_envs)]  # row i's mask as bytes (cheap to index)
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._rng = random.Random()
        self.illegal_actions = 0

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """Game 1 of match seed ``seed + i`` at table i (or ``seed[i]``); random match seeds without a seed."""
        if seed is None:
            seeds = [str(s) for s in np.random.SeedSequence().generate_state(self.num_envs, dtype=np.uint64)]
            self._rng = random.Random()
        elif isinstance(seed, int):
            seeds = [str(seed + i) for i in range(self.num_envs)]
            self._rng = random.Random(seed)
        else:
            if len(seed) != self.num_envs:
                raise ValueError(f"give one seed per table ({self.num_envs}), not {len(seed)}")
            seeds = [str(s) for s in seed]
            self._rng = random.Random(seed[0])
        self._seeds = seeds
        self._states = [GameState(self.ruleset, seed=s, game=1) for s in seeds]
        self._autoreset[:] = False
        for i in range(self.num_envs):
            self._selected[i] = []
            self._play_others(i)
            self._write(i)
        return self._out(), {}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        dict[str, npt.NDArray[Any]],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        if not self._states:
            raise RuntimeError("the environment has not been reset: call reset() first")
        chosen: list[int] = np.asarray(actions).reshape(self.num_envs).tolist()
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=np.bool_)
        for i in range(self.num_envs):
            if self._autoreset[i]:  # NEXT_STEP: this step starts the table's next game
                self._autoreset[i] = False
                self._states[i] = GameState(self.ruleset, seed=self._seeds[i], game=self._states[i].game + 1)
                self._selected[i] = []
                self._play_others(i)
                self._write(i)
                continue
            rewards[i] = self._step_table(i, chosen[i])
            terminations[i] = self._autoreset[i] = self._states[i].is_over
            self._write(i)
        return self._out(), rewards, terminations, np.zeros(self.num_envs, dtype=np.bool_), {}

    def games(self) -> list[GameState]:
        """Each table's game in play (read it; do not change it)."""
        return list(self._states)

    # --- one table ------------------------------------------------------------------------------------------

    def _step_table(self, i: int, action: int) -> float:
        state = self._states[i]
        mask = self._legal[i]
        if not (isinstance(action, int) and 0 <= action < N_ACTIONS and mask[action]):
            action = mask.index(1)
            self.illegal_actions += 1
        deals_before = len(state.deal_results)
        phase = state.phase
        if phase is _PASS:
            selected = self._selected[i]
            selected.append(action)
            if len(selected) < 3:
                return 0.0
            self._selected[i] = []
            state.apply(PassCards(tuple(selected)), self.seat)
        else:
            state.apply(PlayCard(action) if phase is _PLAY else choice_for(phase, action), self.seat)  # type: ignore[arg-type]
        self._play_others(i)
        reward = 0.0
        if self.reward_kind == "points":
            for ended in state.deal_results[deals_before:]:
                reward += self._sign * ended.scores[self.seat]
        if state.is_over and self.reward_kind == "place":
            n = self.ruleset.players
            place = (state.final_places or state.places_by_totals())[self.seat]
            reward += (n + 1 - 2 * place) / (n - 1)
        return reward

    def _play_others(self, i: int) -> None:
        """Play the other seats of table i until its learner is to act or its game is over."""
        state = self._states[i]
        me = self.seat
        rand = self._rng.random
        heuristic = self.opponents == "heuristic"
        while not state.is_over and state.to_act != me:
            seat = state.to_act
            phase = state.phase
            if heuristic:
                seen = state.observation(seat)
                if phase is _PASS:
                    picked: list[Card] = []
                    for _ in range(3):
                        picked.append(heuristic_action(self.ruleset, seen, picked))
                    state.apply(PassCards(tuple(picked)), seat)
                else:
                    action = heuristic_action(self.ruleset, seen)
                    state.apply(PlayCard(action) if phase is _PLAY else choice_for(phase, action), seat)  # type: ignore[arg-type]
            elif phase is _PLAY:
                legal = state.legal_plays()
                state.apply(PlayCard(legal[int(rand() * len(legal))]), seat)
            elif phase is _PASS:
                hand = state.hand(seat)
                state.apply(PassCards(tuple(hand.pop(int(rand() * len(hand))) for _ in range(3))), seat)
            else:
                legal_actions = [
                    a for a, ok in enumerate(action_mask(self.layout.features, state.table, seat, ())) if ok
                ]
                action = legal_actions[int(rand() * len(legal_actions))]
                state.apply(choice_for(phase, action), seat)  # type: ignore[arg-type]

    def _write(self, i: int) -> None:
        """Row i of the observation and mask arrays: the learner's view of table i."""
        state = self._states[i]
        table = state.table
        selected = self._selected[i] if table.to_act == self.seat else ()
        features = self.layout.features
        self._observations[i] = np.frombuffer(seat_vector(features, table, state.totals, self.seat, selected), _F32)
        legal = self._legal[i] = action_mask(features, table, self.seat, selected)
        self._masks[i] = np.frombuffer(legal, np.int8)

    def _out(self) -> dict[str, npt.NDArray[Any]]:
        if self.copy:
            return {"observation": self._observations.copy(), "action_mask": self._masks.copy()}
        return {"observation": self._observations, "action_mask": self._masks}
