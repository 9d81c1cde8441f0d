"""The four games as one PettingZoo AEC environment over the rules core.

    from referee.learning import KierkiEnv
    env = KierkiEnv("hearts", options={"target": 50})
    env.reset(seed=7)                       # deals what `kierki match --seed 7` deals
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else policy(observation)
        env.step(action)

**Agents** are the seats, ``player_0`` to ``player_{n-1}`` (seat numbers as in PROTOCOL.md); ``agent_selection`` is
the seat the rules core waits for. **Observations** and **actions** are `encoding`'s: a ``dict`` with the seat's
``"observation"`` vector and its ``"action_mask"``, and one ``Discrete(59)`` action space (a card, three steps for a
pass, a trump suit or no trump, a moon option). Each observation is made from the rules core's own
``GameState.observation(seat)``, and from nothing else but the cards that seat has itself chosen so far in its pass.

**Rewards** are "higher is better" in every game. With ``reward="points"`` (the default) every seat is rewarded when a
deal ends, with its points of that deal: as scored in Kierki (penalties negative, trump tricks and the loteryjka's
bonuses positive), **negated** in Hearts and Cancellation Hearts (where points are bad: 13 for Q♠ is a reward of
-13). A seat's return over a game is then its final total (Hearts: minus its final total). With ``reward="place"``
the only reward comes when the game ends: ``(n + 1 - 2 × place) / (n - 1)``, +1 for first place down to -1 for last
(equal totals share a place, as in the results), which is what the ladder's ratings count. Every seat is terminated
when the game ends; there is no truncation.

**Seeding**: ``reset(seed=S)`` starts game 1 of the match seed ``str(S)``, exactly the deals and dealers of
``kierki match --seed S``; each later ``reset()`` without a seed plays the next game of that match (game 2, 3, ...,
as ``--games N`` would); before any seed is given the match seed is 128 random bits, as ``kierki match``'s.

**Illegal actions** raise `IllegalAction` (the mask says what is legal); the state is left as it was. (PettingZoo's
wrapped form, `referee.learning.zoo.env`, ends the game instead, as PettingZoo's own classic games do.)

**The global state** (``state()``, ``state_space``) is for training only: every hand, the kitty and every seat's
own observation at once (what each passed and received, the scores), for a centralised critic or an oracle-guided
learner. No seat's observation and no protocol bot ever carries it: a policy that reads it cannot play on the ladder.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, Final, Literal

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv

from referee.learning.actions import IllegalAction, check_action, choice_for, describe
from referee.learning.encoding import Encoded, Layout
from referee.rules import (
    Action,
    Card,
    Game,
    GameState,
    Observation,
    PassCards,
    Phase,
    PlayCard,
    Ruleset,
    card_name,
)
from referee.rules.features import N_ACTIONS, N_CARDS, action_mask, seat_vector

RewardKind = Literal["points", "place"]
RENDER_MODES = ("ansi", "human")

__all__ = ["IllegalAction", "KierkiEnv", "RewardKind", "agent_name"]


_FLOAT32: Final = np.dtype("<f4")  # `features` writes float32 little-endian
_PASS: Final = Phase.PASS
_PLAY: Final = Phase.PLAY


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class KierkiEnv(AECEnv[str, dict[str, Any], np.int64]):
    """One game of kierki, kierki3, hearts or cancellation (6 to 11 players), with any rule options."""

    metadata: dict[str, Any] = {  # noqa: RUF012  (PettingZoo's convention: one class-level dict, read not written)
        "render_modes": list(RENDER_MODES),
        "name": "kierki_v0",
        "is_parallelizable": False,  # turn-based: its parallel form is `turn_based_aec_to_parallel`'s
    }

    def __init__(
        self,
        game: Game | str = "kierki",
        players: int | None = None,
        options: Mapping[str, object] | None = None,
        *,
        reward: RewardKind = "points",
        render_mode: str | None = None,
    ) -> None:
        """``game``, ``players`` and ``options`` as ``kierki match``'s ``--game``, ``--players`` and ``--option``
        (values as text or native: the ruleset's own parsing; a bad one raises `RulesetError`)."""
        super().__init__()  # type: ignore[no-untyped-call]
        if reward not in ("points", "place"):
            raise ValueError(f"reward must be 'points' or 'place', not {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, not {render_mode!r}")
        self.ruleset = Ruleset.create(game, players, options)
        self.layout = Layout.of(self.ruleset)
        self.reward_kind: RewardKind = reward
        self.render_mode = render_mode
        n = self.ruleset.players
        self.possible_agents = [agent_name(seat) for seat in range(n)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        low, high = self.layout.bounds()
        self._observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            }
        )
        self._action_spaces = {agent: gymnasium.spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self._observation_spaces = {agent: self._observation_space for agent in self.possible_agents}
        # The global state: every hand and the kitty (card counts), then every seat's own observation in seat order.
        self._state_head = (n + 1) * N_CARDS
        self.state_space = gymnasium.spaces.Box(
            np.concatenate([np.zeros(self._state_head, dtype=np.float32), *[low] * n]),
            np.concatenate([np.full(self._state_head, self.layout.max_count, dtype=np.float32), *[high] * n]),
            dtype=np.float32,
        )
        self._sign = 1 if self.ruleset.game in (Game.KIERKI, Game.KIERKI3) else -1
        self._match_seed: str | None = None
        self._game_number = 0
        self.game_state: GameState | None = None  # (not `state`: PettingZoo's `state()` is the global view)
        self._selected: list[Card] = []  # the passing seat's cards chosen so far
        self._seen: tuple[int, Observation] | None = None  # the latest observation made, by seat, until a step
        self._mask: bytes | None = None  # the action mask `observe` last gave the seat to act, until a step
        self._rewarded = False  # whether `rewards` holds anything but zeros
        self.agents: list[str] = []

    # --- the spaces ------------------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        return self._action_spaces[agent]

    # --- the game ----------------------------------------------------------------------------------------------

    @property
    def match_seed(self) -> str | None:
        """The seed of the match being played (``kierki match --seed``), and `game_number` its game."""
        return self._match_seed

    @property
    def game_number(self) -> int:
        return self._game_number

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: game 1 of match seed ``str(seed)``, or the match's next game without a seed."""
        if seed is not None:
            self._match_seed, self._game_number = str(seed), 1
        elif self._match_seed is None:
            self._match_seed, self._game_number = secrets.token_hex(16), 1
        else:
            self._game_number += 1
        self.game_state = GameState(self.ruleset, seed=self._match_seed, game=self._game_number)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._selected = []
        self._seen = None
        self._mask = None
        self._rewarded = False
        self._skip_agent_selection = None  # type: ignore[assignment]  # (PettingZoo's dead-step bookkeeping)
        self.agent_selection = self.possible_agents[self.game_state.to_act]
        if self.render_mode == "human":
            self.render()

    def __str__(self) -> str:
        return f"{self.ruleset.game.value}_v0"

    def state(self) -> npt.NDArray[np.float32]:
        """The whole table, for training only (a centralised critic, an oracle): every seat's hand and the kitty as
        card counts (52 each, seat 0 first), then each seat's own observation vector in seat order (what it
        passed, received and has chosen of a pass so far, the trick, the scores). Never part of an observation."""
        state = self._live_state()
        table = state.table
        counts = np.zeros(self._state_head, dtype=np.float32)
        for seat in range(self.ruleset.players):
            np.add.at(counts, [seat * N_CARDS + card for card in state.hand(seat)], 1)
        kitty = self.ruleset.players * N_CARDS
        np.add.at(counts, [kitty + card for card in table.kitty], 1)
        layout, totals = self.layout.features, state.totals
        views = [
            np.frombuffer(
                seat_vector(layout, table, totals, seat, self._selected if seat == table.to_act else ()),
                dtype=_FLOAT32,
            )
            for seat in range(self.ruleset.players)
        ]
        return np.concatenate([counts, *views]).astype(np.float32, copy=False)

    def seat_observation(self, agent: str) -> Observation:
        """The rules core's own observation of ``agent``'s seat: everything that seat may know, nothing more."""
        seat = self._seat_of[agent]
        if self._seen is not None and self._seen[0] == seat:
            return self._seen[1]  # observations are immutable: the one `last()` made serves `step()` too
        seen = self._live_state().observation(seat)
        self._seen = (seat, seen)
        return seen

    def selected(self, agent: str) -> tuple[Card, ...]:
        """The cards ``agent`` has chosen so far in the pass it is making (empty for every other seat)."""
        state = self._live_state()
        return tuple(self._selected) if state.phase is Phase.PASS and self._seat_of[agent] == state.to_act else ()

    def observe(self, agent: str) -> Encoded:
        """``encode`` of the seat's `seat_observation` (with its pass so far), written by the rules core's
        `features` straight from the table: the same arrays, without building the `Observation` (tested equal at
        every step of many games, tests/test_learning_features.py)."""
        state = self._live_state()
        seat = self._seat_of[agent]
        table = state.table
        selected = self._selected if seat == table.to_act else ()
        layout = self.layout.features
        mask = action_mask(layout, table, seat, selected)
        if selected is self._selected:
            self._mask = bytes(mask)  # what `step` checks the action against, until the state changes
        return {
            "observation": np.frombuffer(seat_vector(layout, table, state.totals, seat, selected), dtype=_FLOAT32),
            "action_mask": np.frombuffer(mask, dtype=np.int8),
        }

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)  # type: ignore[arg-type]
            return
        state = self._live_state()
        seat = state.to_act
        mask = self._mask
        if mask is None:
            mask = bytes(action_mask(self.layout.features, state.table, seat, self._selected))
        phase = state.phase
        index = check_action(action, mask, seat, phase)
        self._mask = None
        self._seen = None
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if self._rewarded:  # (rewards are all 0 between deals: nothing to reset or to add up)
            for name in rewards:
                rewards[name] = 0.0
            self._rewarded = False
        if phase is _PASS:  # one card of a pass
            self._selected.append(index)
            if len(self._selected) < 3:
                return
            passed: Action = PassCards(tuple(self._selected))
            self._selected = []
            state.apply(passed, seat)
        else:
            deals_before = len(state.deal_results)
            choice = PlayCard(index) if phase is _PLAY else choice_for(phase, index)
            state.apply(choice, seat)  # type: ignore[arg-type]
            if self.reward_kind == "points" and len(state.deal_results) > deals_before:
                self._rewarded = True
                for ended in state.deal_results[deals_before:]:
                    for s, points in enumerate(ended.scores):
                        rewards[self.possible_agents[s]] += float(self._sign * points)
        if state.is_over:
            self._rewarded = True
            places = state.final_places or state.places_by_totals()
            n = self.ruleset.players
            for s, name in enumerate(self.possible_agents):
                if self.reward_kind == "place":
                    self.rewards[name] += (n + 1 - 2 * places[s]) / (n - 1)
                self.terminations[name] = True
            self.agent_selection = self.possible_agents[0]
        else:
            self.agent_selection = self.possible_agents[state.to_act]
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # --- showing it ----------------------------------------------------------------------------------------------

    def render(self) -> str | None:
        """The whole table as text (every hand: for a person watching, never for a seat): ``"ansi"`` returns
        it; ``"human"`` prints it (after every step, too) and returns None."""
        if self.render_mode is None:
            gymnasium.logger.warn("KierkiEnv.render() was called without a render_mode: give render_mode='ansi'")
            return None
        text = self.table_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def table_text(self) -> str:
        """The whole table as text: the rules, the deal, every seat's total and hand, the trick, a pass so far."""
        state = self._live_state()
        lines = [
            f"{self.ruleset.describe()}, match seed {self._match_seed}, game {self._game_number}",
            f"deal {state.deal_number} ({state.kind.value}), dealer {state.dealer}, phase {state.phase.value}"
            + ("" if state.is_over else f", seat {state.to_act} to act"),
        ]
        for seat in range(self.ruleset.players):
            hand = " ".join(card_name(c) for c in state.hand(seat))
            lines.append(f"  seat {seat}: total {state.totals[seat]:>6}  hand {hand}")
        trick = state.observation(0).trick
        if trick:
            lines.append("  trick: " + " ".join(f"{seat}:{card_name(card)}" for seat, card in trick))
        if self._selected:
            lines.append("  passing so far: " + " ".join(describe(c) for c in self._selected))
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release (no window, no process); here because PettingZoo pairs it with `render`."""

    def _live_state(self) -> GameState:
        if self.game_state is None:
            raise RuntimeError("the environment has not been reset: call reset() first")
        return self.game_state
