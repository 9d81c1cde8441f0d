"""The PettingZoo environment (referee.learning) against the rules core's own playout, on the same deals.

Both sides play deal 1 of Hearts games dealt from the seeds 0 to 255 in turn, passing left, at random to the deal's
end, with a target of 1 so that the deal ends the game on both sides (with a higher target the environment's game
would go on and deal its deal 2 before the step returns, a second dealing from the seed that the playout never
does). **Environment:** ``KierkiEnv.reset(seed=k)``, then per step ``env.last()`` (the seat's observation, encoded,
with its mask) and ``env.step(a)`` with ``a = legal[int(random() * len(legal))]``, ``legal = mask.nonzero()[0]``
(the mask's legal actions, as numpy gives them most cheaply), until the deal's result is in: 12 pass steps (a pass
is three), 52 plays and a moon choice when one is shot. **Playout:** ``GameState(ruleset, seed=k)`` then
``playout(state, rng)``, which plays the same deal's passes and cards inside the rules core. ``apply_only``
(context) plays the same deals through ``GameState.apply`` with random choices and no observation at all: what any
environment over the public API costs before it shows a seat anything.

Two more figures of context bound what any environment can reach (the target of issue 26 is the environment at
0.5 of the playout): ``deal_only`` makes the same games' `GameState` and nothing else (the dealing both sides do),
and ``handover_only`` does, 64 times a deal, the least a PettingZoo step must do to hand a seat a fresh observation
and have the random policy read it: two numpy arrays from bytes of the environment's sizes (a caller may keep
them, so they cannot be reused), the observation's ``dict``, and ``mask.nonzero()``, with no rules at all.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

from referee.rules import GameState, PassCards, Phase, PlayCard, Ruleset, playout

ROOT = Path(__file__).resolve().parent.parent
DEALS = 256
OPTIONS = {"passing": "left", "target": 1}


def env_runner() -> Any:
    from referee.learning import KierkiEnv

    env = KierkiEnv("hearts", options=OPTIONS)
    turn = iter(range(1 << 62))

    def one_deal(rng: random.Random) -> int:
        rand = rng.random
        env.reset(seed=next(turn) % DEALS)
        state = env.game_state
        assert state is not None
        results = state.deal_results
        last, step = env.last, env.step
        steps = 0
        while not results:
            mask = last()[0]["action_mask"]  # type: ignore[index]
            legal = mask.nonzero()[0]
            step(int(legal[int(rand() * len(legal))]))
            steps += 1
        return steps

    return one_deal


def playout_runner() -> Any:
    ruleset = Ruleset.create("hearts", None, OPTIONS)
    turn = iter(range(1 << 62))

    def one_deal(rng: random.Random) -> int:
        playout(GameState(ruleset, seed=str(next(turn) % DEALS)), rng)
        return 64  # the environment's steps for the same deal (12 pass steps, 52 plays)

    return one_deal


def apply_runner() -> Any:
    ruleset = Ruleset.create("hearts", None, OPTIONS)
    turn = iter(range(1 << 62))

    def one_deal(rng: random.Random) -> int:
        rand = rng.random
        state = GameState(ruleset, seed=str(next(turn) % DEALS))
        while not state.deal_results:
            if state.phase is Phase.PLAY:
                legal = state.legal_plays()
                state.apply(PlayCard(legal[int(rand() * len(legal))]))
            elif state.phase is Phase.PASS:
                hand = state.hand(state.to_act)
                state.apply(PassCards(tuple(hand.pop(int(rand() * len(hand))) for _ in range(3))))
            else:
                state.apply(state.fallback_action())
        return 64

    return one_deal


def deal_runner() -> Any:
    ruleset = Ruleset.create("hearts", None, OPTIONS)
    turn = iter(range(1 << 62))

    def one_deal(rng: random.Random) -> int:
        GameState(ruleset, seed=str(next(turn) % DEALS))
        return 64

    return one_deal


def handover_runner() -> Any:
    import numpy as np

    from referee.learning import KierkiEnv

    env = KierkiEnv("hearts", options=OPTIONS)
    env.reset(seed=0)
    first = env.observe(env.agent_selection)
    vector, mask = first["observation"].tobytes(), first["action_mask"].tobytes()
    f32, i8 = np.dtype("<f4"), np.int8
    frombuffer = np.frombuffer

    def one_deal(rng: random.Random) -> int:
        for _ in range(64):
            seen = {"observation": frombuffer(vector, dtype=f32), "action_mask": frombuffer(mask, dtype=i8)}
            seen["action_mask"].nonzero()
        return 64

    return one_deal


# --- env_vs_openspiel: our AEC environment against OpenSpiel's Hearts through PettingZoo (shimmy) and raw ----------
#
# The same random legal policy everywhere (``legal[int(random() * len(legal))]`` over the mask's nonzero entries or
# pyspiel's legal list), whole hands, counted in agent steps (a pass is three steps on both sides; OpenSpiel deals a
# hand with no pass in one of four, ours passes left in deal 1, so the rate per step is the fair unit).
# Shimmy's environment counts the 52 dealing chance steps (and the pass direction's) against OpenSpiel's
# ``max_game_length`` (64 decisions), so left alone it truncates a hand after 11 agent steps: it is driven here with
# its ``game_length`` set back to 1 after each reset, so that only the decisions count and every hand is played to
# its end (``game_state.is_terminal()``), which is what a learner wants of it.


def our_aec_hand_runner() -> Any:
    from referee.learning import KierkiEnv

    env = KierkiEnv("hearts", options=OPTIONS)
    turn = iter(range(1 << 62))

    def one_hand(rng: random.Random) -> int:
        rand = rng.random
        env.reset(seed=next(turn) % DEALS)
        state = env.game_state
        assert state is not None
        last, step = env.last, env.step
        steps = 0
        while not state.deal_results:
            legal = last()[0]["action_mask"].nonzero()[0]  # type: ignore[index]
            step(int(legal[int(rand() * len(legal))]))
            steps += 1
        return steps

    return one_hand


def shimmy_hand_runner(game: Any) -> Any:
    from shimmy import OpenSpielCompatibilityV0

    env = OpenSpielCompatibilityV0(env=game)
    turn = iter(range(1 << 62))

    def one_hand(rng: random.Random) -> int:
        rand = rng.random
        env.reset(seed=next(turn) % DEALS)
        env.game_length = 1  # count the decisions only (see above): the hand is played to its end
        state = env.game_state
        last, step = env.last, env.step
        steps = 0
        while not state.is_terminal():
            legal = last()[4]["action_mask"].nonzero()[0]
            step(int(legal[int(rand() * len(legal))]))
            steps += 1
        return steps

    return one_hand


def pyspiel_hand_runner(game: Any) -> Any:
    """Raw pyspiel, as a learner over it would drive it: the seat to act's information-state tensor, then a legal
    action; the deal's chance outcomes drawn uniformly."""

    def one_hand(rng: random.Random) -> int:
        rand = rng.random
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                continue
            state.information_state_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rand() * len(legal))])
            steps += 1
        return steps

    return one_hand


# --- vector_env: the batched environment against SyncVectorEnv of the one-seat environment ----------------------

VECTOR_TABLES = 64
VECTOR_STEPS = 10  # vector steps per measured unit


def _vector_runner(envs: Any) -> Any:
    import numpy as np

    state: dict[str, Any] = {}

    def ten_steps(rng: random.Random) -> int:
        if "observations" not in state:
            state["observations"], _ = envs.reset(seed=rng.randrange(1 << 30))
            state["choose"] = np.random.default_rng(rng.randrange(1 << 30))
        choose = state["choose"]
        observations = state["observations"]
        for _ in range(VECTOR_STEPS):
            mask = observations["action_mask"]
            actions = np.argmax(mask * choose.random(mask.shape), axis=1)  # a random legal action per table
            observations = envs.step(actions)[0]
        state["observations"] = observations
        return VECTOR_STEPS * VECTOR_TABLES

    return ten_steps


def batched_runner(opponents: str) -> Any:
    from referee.learning.vector import BatchedEnv

    return _vector_runner(BatchedEnv("hearts", num_envs=VECTOR_TABLES, opponents=opponents))  # type: ignore[arg-type]


def sync_vector_runner(opponents: str) -> Any:
    import gymnasium

    from referee.learning import SingleSeatEnv

    def make() -> Any:
        return SingleSeatEnv("hearts", opponents=opponents)  # type: ignore[arg-type]

    return _vector_runner(gymnasium.vector.SyncVectorEnv([make for _ in range(VECTOR_TABLES)]))


# --- policy_bot_startup: from a trained policy's file to a hello answered -------------------------------------------


def hello_line() -> bytes:
    from protocol import codec
    from protocol import messages as m

    clock = m.TimeControl(move_ms=1000, startup_ms=5000, bank_ms=0, increment_ms=0)
    hello = m.HelloRequest(id=1, protocol=1, game="hearts", players=4, seat=0, options={}, time=clock, games=1)
    return codec.encode(hello)


def startup_cpu_s(command: list[str]) -> float:
    """CPU seconds (user + system) a bot process takes to start and answer ``hello``, then end at ``bye``."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(hello_line())
    process.stdin.flush()
    answer = process.stdout.readline()
    assert b'"hello"' in answer, answer
    process.stdin.write(b'{"type":"bye","reason":"match_over"}\n')
    process.stdin.close()
    process.wait(timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def policy_file(directory: Path) -> Path:
    """An `MlpPolicy` of MaskablePPO's default shape (64, 64, tanh) for Hearts, with random weights."""
    import numpy as np

    from referee.learning import Layout
    from referee.learning.export import MlpPolicy
    from referee.rules import Ruleset

    rng = np.random.default_rng(0)
    sizes = [Layout.of(Ruleset.create("hearts")).size, 64, 64, 59]
    layers = [
        (rng.standard_normal((a, b)).astype(np.float32), np.zeros(b, dtype=np.float32))
        for a, b in itertools.pairwise(sizes)
    ]
    path = directory / "policy.npz"
    MlpPolicy(layers, "tanh").save(path)
    return path
