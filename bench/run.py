"""Benchmarks of the rules core, one JSON object per benchmark per line.

    python bench/run.py                      # every benchmark
    python bench/run.py hearts_vs_openspiel  # just some
    python bench/run.py --seconds 0.5 --repeats 1   # a quick look
    python bench/run.py --profile games_hearts      # plus a cProfile summary on stderr
    python bench/run.py --list

Each benchmark runs its workload for at least ``--seconds`` per repeat and reports the median rate of
``--repeats`` repeats as ``{"name", "unit", "ours", "baseline", "ratio", "better", ...context}``, where ratio is
ours / baseline. The baseline is OpenSpiel's Hearts (``pyspiel``) driven from Python in the same run, with the
same random-choice method (``random.Random.choice`` on the legal list); without pyspiel a benchmark that needs it
prints ``{"name", "skipped": reason}`` (the ``games_*`` ones still report ``ours``, with a null baseline).

A *decision* is one choice a bot makes: a whole 3-card pass, a card, a trump suit or a moon option. OpenSpiel
takes a pass as three actions; it is counted here as one decision, so the two engines are compared per the same
unit. Add a benchmark by decorating a function ``(Config) -> dict`` with ``@benchmark("name")``.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import importlib
import importlib.metadata
import json
import os
import platform
import pstats
import random
import statistics
import subprocess
import sys
import time
import zlib
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if os.environ.get("KIERKI_COMPILED"):  # the mypyc build of tools/build_compiled.py, ahead of the source
    sys.path.insert(0, os.environ["KIERKI_COMPILED"])

from bench.openspiel_hearts import OPENSPIEL_HEARTS_PARAMS  # noqa: E402
from referee.rules import (  # noqa: E402
    ChooseMoon,
    ChooseTrump,
    DealSpec,
    GameState,
    MoonOption,
    Observation,
    PassCards,
    Phase,
    PlayCard,
    Ruleset,
    playout,
)

Result = dict[str, Any]

MOON_OPTIONS = (MoonOption.SELF, MoonOption.OTHERS)


@dataclass(frozen=True)
class Config:
    seconds: float = 2.0  # minimum measuring time (wall clock) of one repeat
    repeats: int = 3
    seed: int = 0
    clock: str = "cpu"  # rates per second of: "cpu" (process CPU time) or "wall" (perf_counter)


BENCHMARKS: dict[str, Callable[[Config], Result]] = {}


def benchmark(name: str) -> Callable[[Callable[[Config], Result]], Callable[[Config], Result]]:
    def register(function: Callable[[Config], Result]) -> Callable[[Config], Result]:
        BENCHMARKS[name] = function
        return function

    return register


# --- measuring ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rate:
    """Median rates over the repeats: work units (games, hands) and decisions per second."""

    units_per_s: float
    decisions_per_s: float
    decisions_per_unit: float


def measure(run_one: Callable[[random.Random], int], config: Config, salt: int = 0) -> Rate:
    """Call ``run_one`` (one game or hand, returning its decisions) until ``config.seconds`` have passed."""
    rates = [measure_once(run_one, config, salt, repeat) for repeat in range(config.repeats)]
    return median_rate(rates)


def measure_once(run_one: Callable[[random.Random], int], config: Config, salt: int, repeat: int) -> Rate:
    """One repeat. Rates are per second of the clock chosen by ``config.clock``: with ``cpu`` (the process's
    CPU time) a benchmark is not slowed down by other programs taking the CPU, which is what makes figures
    taken on a shared machine comparable."""
    clock = time.process_time if config.clock == "cpu" else time.perf_counter
    rng = random.Random(config.seed * 1_000_003 + salt * 101 + repeat)
    units = decisions = 0
    start = clock()
    deadline = time.perf_counter() + config.seconds
    while True:
        decisions += run_one(rng)
        units += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = clock() - start
    return Rate(units / elapsed, decisions / elapsed, decisions / units)


def median_rate(rates: Sequence[Rate]) -> Rate:
    return Rate(
        statistics.median(r.units_per_s for r in rates),
        statistics.median(r.decisions_per_s for r in rates),
        statistics.median(r.decisions_per_unit for r in rates),
    )


def comparison(name: str, unit: str, ours: float, baseline: float | None, **context: Any) -> Result:
    return {
        "name": name,
        "unit": unit,
        "ours": round(ours, 1),
        "baseline": None if baseline is None else round(baseline, 1),
        "ratio": None if not baseline else round(ours / baseline, 3),
        "better": "higher",
        **context,
    }


# --- our engine: whole games ------------------------------------------------------------------------------


def play_random(state: GameState, rng: random.Random, *, hands: int | None = None) -> int:
    """Play random legal choices through the public ``apply`` (which validates); return the decisions made.

    Stops when the game is over, or after ``hands`` deals have ended.
    """
    decisions = 0
    choice = rng.choice
    while not state.is_over and (hands is None or len(state.deal_results) < hands):
        phase = state.phase
        if phase is Phase.PLAY:
            state.apply(PlayCard(choice(state.legal_plays())))
        elif phase is Phase.PASS:
            state.apply(PassCards(tuple(rng.sample(state.hand(state.to_act), 3))))
        elif phase is Phase.TRUMP:
            state.apply(ChooseTrump(choice(state.trump_choices())))
        else:
            state.apply(ChooseMoon(choice(MOON_OPTIONS)))
        decisions += 1
    return decisions


def games_benchmark(name: str, game: str, config: Config, players: int | None = None) -> Result:
    """Our own decisions per second over whole random games. No baseline: OpenSpiel has none of these games
    but Hearts, and a Hearts hand is not the same work as a Kierki match (see ``hearts_vs_openspiel``)."""
    ruleset = Ruleset.create(game, players)

    def one_game(rng: random.Random) -> int:
        return play_random(GameState(ruleset, seed=rng.getrandbits(32)), rng)

    ours = measure(one_game, config, salt=zlib.crc32(name.encode()))
    return {
        **comparison(name, "decisions/s", ours.decisions_per_s, None),
        "games_per_s": round(ours.units_per_s, 2),
        "decisions_per_game": round(ours.decisions_per_unit, 1),
        "players": ruleset.players,
        "options": "defaults",
        "rules_build": rules_build(),
    }


@benchmark("games_kierki")
def games_kierki(config: Config) -> Result:
    return games_benchmark("games_kierki", "kierki", config)


@benchmark("games_kierki3")
def games_kierki3(config: Config) -> Result:
    return games_benchmark("games_kierki3", "kierki3", config)


@benchmark("games_hearts")
def games_hearts(config: Config) -> Result:
    return games_benchmark("games_hearts", "hearts", config)


@benchmark("games_cancellation")
def games_cancellation(config: Config) -> Result:
    return games_benchmark("games_cancellation", "cancellation", config)


# --- the rules core against OpenSpiel: the same pre-dealt Hearts hands on both sides ------------------------
#
# Both engines get the same hands (dealt up front, outside the timing), the same pass direction (left, or no
# pass one hand in four), and the same random policy: a card is ``legal[int(random() * len(legal))]`` and a pass
# is three cards drawn that way from the hand (`pick3`). OpenSpiel is driven the fastest way found from Python
# (`OPENSPIEL_DRIVERS`, measured by ``openspiel_drivers``): bound methods cached, the deal's 52 chance actions
# applied directly in dealing order (not sampled through ``chance_outcomes()``), and exactly 52 plays.

DEAL_POOL = 256  # pre-dealt hands per benchmark, played in turn
PLAY_ACTIONS = tuple(PlayCard(card) for card in range(52))
MOON_OTHERS = ChooseMoon(MoonOption.OTHERS)


@dataclass(frozen=True)
class PreDealt:
    """One Hearts hand: the pass offset (0 or 1: left), each seat's 13 cards, and OpenSpiel's chance actions."""

    offset: int
    hands: tuple[tuple[int, ...], ...]
    openspiel_actions: tuple[int, ...]  # the pass direction, then the 52 deal actions (card i goes to seat i % 4)


def pre_dealt_hands(seed: int, count: int = DEAL_POOL) -> list[PreDealt]:
    rng = random.Random(seed)
    pool = []
    for _ in range(count):
        order = rng.sample(range(52), 52)
        hands = tuple(tuple(order[seat::4]) for seat in range(4))
        offset = 0 if rng.random() < 0.25 else 1
        pool.append(PreDealt(offset, hands, (offset, *order)))
    return pool


def pick3(cards: list[int], rand: Callable[[], float]) -> list[int]:
    """Three different cards drawn at random (the list is consumed)."""
    return [cards.pop(int(rand() * len(cards))) for _ in range(3)]


def our_hearts_runner(pool: Sequence[PreDealt]) -> Callable[[random.Random], int]:
    """One pre-dealt hand through ``GameState.apply`` (every choice validated, every event recorded): a one-hand
    game (``target=1``) passing left or not at all, 4 passes, 52 plays, and a moon choice when one is shot.
    Actions are immutable values, so the 52 ``PlayCard`` actions are made once and reused, as a bot may."""
    rulesets = {
        0: Ruleset.create("hearts", 4, {"passing": "none", "target": 1}),
        1: Ruleset.create("hearts", 4, {"passing": "left", "target": 1}),
    }
    # Each deal made into its (immutable) game arguments up front, as OpenSpiel's deal actions are.
    games = [(rulesets[deal.offset], (DealSpec(deal.hands, dealer=3),)) for deal in pool]
    turn = iter(range(1 << 62))

    def one_hand(rng: random.Random) -> int:
        rand = rng.random
        ruleset, deals = games[next(turn) % len(games)]
        state = GameState(ruleset, deals=deals)
        apply, legal_plays, hand = state.apply, state.legal_plays, state.hand
        decisions = 52
        if state.phase is Phase.PASS:
            for seat in range(4):  # the dealer is seat 3, so seats 0 to 3 pass in turn
                apply(PassCards(tuple(pick3(hand(seat), rand))))
            decisions += 4
        for _ in range(52):
            legal = legal_plays()
            apply(PLAY_ACTIONS[legal[int(rand() * len(legal))]])
        if not state.is_over:  # a moon: OpenSpiel scores it without asking
            apply(MOON_OTHERS)
        return decisions

    return one_hand


def _openspiel_legal_actions_driver(game: Any, pool: Sequence[PreDealt]) -> Callable[[random.Random], int]:
    """Plain: every action through ``apply_action``, ``legal_actions()`` until terminal."""
    turn = iter(range(1 << 62))

    def one_hand(rng: random.Random) -> int:
        rand = rng.random
        deal = pool[next(turn) % len(pool)]
        state = game.new_initial_state()
        for action in deal.openspiel_actions:
            state.apply_action(action)
        if deal.offset:
            for _ in range(4):
                for card in pick3(state.legal_actions(), rand):
                    state.apply_action(card)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rand() * len(legal))])
        return 56 if deal.offset else 52

    return one_hand


def _openspiel_bound_driver(game: Any, pool: Sequence[PreDealt]) -> Callable[[random.Random], int]:
    """Bound methods cached, exactly 52 plays (no ``is_terminal`` per play)."""
    turn = iter(range(1 << 62))

    def one_hand(rng: random.Random) -> int:
        rand = rng.random
        deal = pool[next(turn) % len(pool)]
        state = game.new_initial_state()
        apply, legal_actions = state.apply_action, state.legal_actions
        for action in deal.openspiel_actions:
            apply(action)
        if deal.offset:
            for _ in range(4):
                for card in pick3(legal_actions(), rand):
                    apply(card)
        for _ in range(52):
            legal = legal_actions()
            apply(legal[int(rand() * len(legal))])
        return 56 if deal.offset else 52

    return one_hand


def _openspiel_map_driver(game: Any, pool: Sequence[PreDealt]) -> Callable[[random.Random], int]:
    """As the bound driver, with the deal's and each pass's actions applied by ``map`` (no Python loop)."""
    turn = iter(range(1 << 62))

    def one_hand(rng: random.Random) -> int:
        rand = rng.random
        deal = pool[next(turn) % len(pool)]
        state = game.new_initial_state()
        apply, legal_actions = state.apply_action, state.legal_actions
        deque(map(apply, deal.openspiel_actions), 0)
        if deal.offset:
            for _ in range(4):
                deque(map(apply, pick3(legal_actions(), rand)), 0)
        for _ in range(52):
            legal = legal_actions()
            apply(legal[int(rand() * len(legal))])
        return 56 if deal.offset else 52

    return one_hand


OPENSPIEL_DRIVERS: dict[str, Callable[[Any, Sequence[PreDealt]], Callable[[random.Random], int]]] = {
    "legal_actions": _openspiel_legal_actions_driver,
    "bound": _openspiel_bound_driver,
    "map": _openspiel_map_driver,
}
FASTEST_OPENSPIEL_DRIVER = "bound"  # the fastest of OPENSPIEL_DRIVERS in `openspiel_drivers` (BENCHMARKS.md)


def load_openspiel_hearts() -> Any:
    """OpenSpiel's Hearts with the rules RULES.md §4 adopts, or the reason it is unavailable (a str)."""
    try:
        import pyspiel  # optional: the baseline only
    except ImportError as error:
        return f"pyspiel is not importable: {error}"
    return pyspiel.load_game("hearts", OPENSPIEL_HEARTS_PARAMS)


def openspiel_version() -> str | None:
    try:
        return importlib.metadata.version("open_spiel")
    except importlib.metadata.PackageNotFoundError:
        return None


def rules_build() -> str:
    """Which build this run uses: "compiled" (tools/build_compiled.py's, mypyc) or "pure" (the Python source)."""
    from referee.rules import state

    return "compiled" if not state.__file__.endswith(".py") else "pure"


def interleaved(
    config: Config, ours: Callable[[random.Random], int], theirs: Callable[[random.Random], int]
) -> tuple[Rate, Rate, list[float]]:
    """Both runners measured in the same run, the repeats alternating (ours, theirs, ours, ...)."""
    ours_rates: list[Rate] = []
    their_rates: list[Rate] = []
    for repeat in range(config.repeats):
        ours_rates.append(measure_once(ours, config, 7, repeat))
        their_rates.append(measure_once(theirs, config, 7, repeat))
    ratios = [round(o.units_per_s / t.units_per_s, 3) for o, t in zip(ours_rates, their_rates, strict=True)]
    return median_rate(ours_rates), median_rate(their_rates), ratios


@benchmark("hearts_vs_openspiel")
def hearts_vs_openspiel(config: Config) -> Result:
    """The same pre-dealt Hearts hands, passed and played at random to the end, ours against OpenSpiel's."""
    game = load_openspiel_hearts()
    if isinstance(game, str):
        return {"name": "hearts_vs_openspiel", "skipped": game}
    pool = pre_dealt_hands(config.seed)
    ours, theirs, ratios = interleaved(
        config, our_hearts_runner(pool), OPENSPIEL_DRIVERS[FASTEST_OPENSPIEL_DRIVER](game, pool)
    )
    return {
        **comparison("hearts_vs_openspiel", "hands/s", ours.units_per_s, theirs.units_per_s),
        "repeat_ratios": ratios,
        "ours_decisions_per_s": round(ours.decisions_per_s, 1),
        "baseline_decisions_per_s": round(theirs.decisions_per_s, 1),
        "rules_build": rules_build(),
        "openspiel_driver": FASTEST_OPENSPIEL_DRIVER,
        "openspiel_params": "RULES.md §6: qs_breaks_hearts=false, can_lead_hearts_instead_of_qs=true",
    }


@benchmark("openspiel_drivers")
def openspiel_drivers(config: Config) -> Result:
    """OpenSpiel's hands/s under each driver in OPENSPIEL_DRIVERS, to show which one the baseline uses."""
    game = load_openspiel_hearts()
    if isinstance(game, str):
        return {"name": "openspiel_drivers", "skipped": game}
    pool = pre_dealt_hands(config.seed)
    rates = {name: measure(make(game, pool), config, salt=7).units_per_s for name, make in OPENSPIEL_DRIVERS.items()}
    fastest = max(rates, key=rates.__getitem__)
    return {
        "name": "openspiel_drivers",
        "unit": "hands/s",
        "ours": None,
        "baseline": round(rates[fastest], 1),
        "ratio": None,
        "better": "higher",
        "drivers": {name: round(rate, 1) for name, rate in rates.items()},
        "fastest": fastest,
        "used_by_hearts_vs_openspiel": FASTEST_OPENSPIEL_DRIVER,
    }


# --- playouts against OpenSpiel: from the same post-pass states --------------------------------------------


def post_pass_states(game: Any, pool: Sequence[PreDealt], seed: int) -> list[tuple[GameState, Any]]:
    """Each pre-dealt hand after the same random passes, as our state and as OpenSpiel's, side by side."""
    rng = random.Random(seed)
    pairs = []
    left = Ruleset.create("hearts", 4, {"passing": "left", "target": 1})
    held = Ruleset.create("hearts", 4, {"passing": "none", "target": 1})
    for deal in pool:
        ours = GameState(left if deal.offset else held, deals=[DealSpec(deal.hands, dealer=3)])
        theirs = game.new_initial_state()
        for action in deal.openspiel_actions:
            theirs.apply_action(action)
        if deal.offset:
            for seat in range(4):
                cards = pick3(ours.hand(seat), rng.random)
                ours.apply(PassCards(tuple(cards)), seat=seat)
                for card in cards:
                    theirs.apply_action(card)
        assert ours.phase is Phase.PLAY and not theirs.is_chance_node()
        pairs.append((ours, theirs))
    return pairs


@benchmark("playout_vs_openspiel")
def playout_vs_openspiel(config: Config) -> Result:
    """Random playouts to the end of the hand from the same post-pass states: ours (``referee.rules.playout``)
    against OpenSpiel's from Python (``clone()``, then random legal actions to the terminal state)."""
    game = load_openspiel_hearts()
    if isinstance(game, str):
        return {"name": "playout_vs_openspiel", "skipped": game}
    pairs = post_pass_states(game, pre_dealt_hands(config.seed), config.seed)
    ours_states = [ours for ours, _ in pairs]
    their_states = [theirs for _, theirs in pairs]
    ours_turn = iter(range(1 << 62))
    their_turn = iter(range(1 << 62))

    def ours(rng: random.Random) -> int:
        playout(ours_states[next(ours_turn) % len(ours_states)], rng)
        return 52

    def theirs(rng: random.Random) -> int:
        rand = rng.random
        state = their_states[next(their_turn) % len(their_states)].clone()
        apply, legal_actions = state.apply_action, state.legal_actions
        for _ in range(52):
            legal = legal_actions()
            apply(legal[int(rand() * len(legal))])
        state.returns()
        return 52

    ours_rate, their_rate, ratios = interleaved(config, ours, theirs)
    return {
        **comparison("playout_vs_openspiel", "playouts/s", ours_rate.units_per_s, their_rate.units_per_s),
        "repeat_ratios": ratios,
        "rules_build": rules_build(),
    }


def hearts_observations(count: int = 64) -> tuple[Ruleset, list[Observation]]:
    """``count`` Hearts observations of the seat to act at random moments of the play (seeds 0 to count - 1)."""
    ruleset = Ruleset.create("hearts", 4, {"passing": "none"})
    seen = []
    for seed in range(count):
        state = GameState(ruleset, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(1, 48)):
            state.apply(PlayCard(rng.choice(state.legal_plays())))
        seen.append(state.observation(state.to_act))
    return ruleset, seen


@benchmark("sampled_playouts")
def sampled_playouts(config: Config) -> Result:
    """A Monte Carlo bot's step: a world sampled from one seat's observation (``sample_state``) and played out
    (``playout``), from 64 Hearts observations at random moments of the play, in turn. Ours only: OpenSpiel has
    no sampling of worlds from an observation to compare with."""
    from referee.rules import sample_state

    ruleset, seen = hearts_observations()
    turn = iter(range(1 << 62))

    def one(rng: random.Random) -> int:
        observation = seen[next(turn) % len(seen)]
        playout(sample_state(ruleset, observation, rng), rng)
        return 1

    rate = measure(one, config, salt=zlib.crc32(b"sampled_playouts"))
    return {**comparison("sampled_playouts", "worlds/s", rate.units_per_s, None), "rules_build": rules_build()}


# --- the learning environment (bench/learning_bench.py) against the rules core's playout ------------------------


@benchmark("env_vs_playout")
def env_vs_playout(config: Config) -> Result:
    """Random play of the same Hearts deals: PettingZoo environment steps against ``referee.rules.playout``."""
    try:
        import pettingzoo  # noqa: F401  (the rl extra)

        from bench import learning_bench
    except ImportError as error:
        return {"name": "env_vs_playout", "skipped": f"needs kierki[rl]: {error}"}
    ours, theirs, ratios = interleaved(config, learning_bench.env_runner(), learning_bench.playout_runner())
    apply_only = measure(learning_bench.apply_runner(), config, salt=11)
    deal_only = measure(learning_bench.deal_runner(), config, salt=12)
    handover = measure(learning_bench.handover_runner(), config, salt=13)
    steps = ours.decisions_per_unit

    def per_step_us(deal_s: float) -> float:
        return round(deal_s / steps * 1e6, 3)

    # At the target (0.5) a deal of the environment takes twice the playout's; less its own dealing, that is what
    # its steps may take: `apply` alone (no observation) and the bare hand-over of the arrays already take more.
    budget_s = 2 / theirs.units_per_s - 1 / deal_only.units_per_s
    return {
        **comparison("env_vs_playout", "deals/s", ours.units_per_s, theirs.units_per_s),
        "repeat_ratios": ratios,
        "env_steps_per_s": round(ours.decisions_per_s, 1),
        "env_steps_per_deal": round(steps, 1),
        "apply_only_deals_per_s": round(apply_only.units_per_s, 1),
        "apply_only_over_playout": round(apply_only.units_per_s / theirs.units_per_s, 3),
        "env_us_per_step": per_step_us(1 / ours.units_per_s - 1 / deal_only.units_per_s),
        "step_budget_us_at_target": per_step_us(budget_s),
        "apply_us_per_step": per_step_us(1 / apply_only.units_per_s - 1 / deal_only.units_per_s),
        "playout_us_per_step": per_step_us(1 / theirs.units_per_s - 1 / deal_only.units_per_s),
        "handover_us_per_step": per_step_us(1 / handover.units_per_s),
        "deal_us": round(1e6 / deal_only.units_per_s, 2),
        "rules_build": rules_build(),
    }


@benchmark("env_vs_openspiel")
def env_vs_openspiel(config: Config) -> Result:
    """Random legal play of whole Hearts hands: our AEC environment against OpenSpiel's Hearts through PettingZoo
    (shimmy) and raw pyspiel with its information-state tensor (bench/learning_bench.py says how each is driven)."""
    game = load_openspiel_hearts()
    if isinstance(game, str):
        return {"name": "env_vs_openspiel", "skipped": game}
    try:
        import shimmy  # noqa: F401  (the rl-bench extra)

        from bench import learning_bench
    except ImportError as error:
        return {"name": "env_vs_openspiel", "skipped": f"needs kierki[rl-bench]: {error}"}
    ours, theirs, ratios = interleaved(
        config, learning_bench.our_aec_hand_runner(), learning_bench.shimmy_hand_runner(game)
    )
    raw = measure(learning_bench.pyspiel_hand_runner(game), config, salt=7)
    return {
        **comparison("env_vs_openspiel", "agent steps/s", ours.decisions_per_s, theirs.decisions_per_s),
        "repeat_ratios": ratios,
        "ours_hands_per_s": round(ours.units_per_s, 1),
        "shimmy_hands_per_s": round(theirs.units_per_s, 1),
        "pyspiel_tensor_steps_per_s": round(raw.decisions_per_s, 1),
        "ours_over_pyspiel_tensor": round(ours.decisions_per_s / raw.decisions_per_s, 3),
        "steps_per_hand": {"ours": round(ours.decisions_per_unit, 1), "shimmy": round(theirs.decisions_per_unit, 1)},
        "shimmy": importlib.metadata.version("shimmy"),
        "pettingzoo": importlib.metadata.version("pettingzoo"),
        "rules_build": rules_build(),
        "target": "ratio >= 10 in the pure build",
    }


@benchmark("vector_env")
def vector_env(config: Config) -> Result:
    """Learner steps per CPU second at 64 Hearts tables: the batched environment against Gymnasium's
    SyncVectorEnv of 64 one-seat environments, random opponents, one random legal action per table per step."""
    try:
        import gymnasium  # noqa: F401  (the rl extra)

        from bench import learning_bench
    except ImportError as error:
        return {"name": "vector_env", "skipped": f"needs kierki[rl]: {error}"}
    ours, theirs, ratios = interleaved(
        config, learning_bench.batched_runner("random"), learning_bench.sync_vector_runner("random")
    )
    heuristic_ours, heuristic_theirs, _ = interleaved(
        config, learning_bench.batched_runner("heuristic"), learning_bench.sync_vector_runner("heuristic")
    )
    return {
        **comparison("vector_env", "learner steps/s", ours.decisions_per_s, theirs.decisions_per_s),
        "repeat_ratios": ratios,
        "tables": learning_bench.VECTOR_TABLES,
        "opponents": "random",
        "heuristic_opponents": {
            "ours": round(heuristic_ours.decisions_per_s, 1),
            "baseline": round(heuristic_theirs.decisions_per_s, 1),
            "ratio": round(heuristic_ours.decisions_per_s / heuristic_theirs.decisions_per_s, 3),
        },
        "rules_build": rules_build(),
        "target": "ratio >= 3 in the compiled build",
    }


@benchmark("policy_bot_startup")
def policy_bot_startup(config: Config) -> Result:
    """CPU seconds from a policy bot's start to its hello answer (and bye): examples/numpy_policy_bot.py with an
    exported policy, against the same bot importing torch first (what a bot that loads the trained torch model
    pays). The referee's default start-up time is 5 s of wall time (``--startup-time``)."""
    import tempfile

    try:
        import gymnasium  # noqa: F401  (the rl extra)

        from bench import learning_bench
    except ImportError as error:
        return {"name": "policy_bot_startup", "skipped": f"needs kierki[rl]: {error}"}
    with tempfile.TemporaryDirectory() as directory:
        policy = str(learning_bench.policy_file(Path(directory)))
        bot = str(ROOT / "examples" / "numpy_policy_bot.py")
        numpy_bot = [sys.executable, bot, policy]
        runs = max(3, config.repeats)
        ours = statistics.median(learning_bench.startup_cpu_s(numpy_bot) for _ in range(runs))
        try:
            import torch  # noqa: F401  (the rl-train extra)
        except ImportError:
            theirs = None
        else:
            code = (
                f"import torch, runpy, sys; sys.argv = ['b', {policy!r}]; runpy.run_path({bot!r}, run_name='__main__')"
            )
            theirs = statistics.median(learning_bench.startup_cpu_s([sys.executable, "-c", code]) for _ in range(runs))
    return {
        "name": "policy_bot_startup",
        "unit": "CPU s to hello",
        "ours": round(ours, 3),
        "baseline": None if theirs is None else round(theirs, 3),
        "ratio": None if theirs is None else round(ours / theirs, 3),
        "better": "lower",
        "runs": runs,
        "baseline_is": "the same bot importing torch first" if theirs is not None else "torch not installed",
    }


# --- replay logs -------------------------------------------------------------------------------------------

REPLAY_LOG = ROOT / "tests" / "golden" / "kierki-seed3.replay.jsonl"


@benchmark("replay_verify")
def replay_verify(config: Config) -> Result:
    """``kierki replay --verify`` on a whole Kierki game, in memory: decode every line, re-apply every decision
    and compare every derived record. The baseline re-applies the same decisions to a GameState with no log."""
    from referee.replay.reader import parse
    from referee.replay.timeline import build_timeline, verify

    data = REPLAY_LOG.read_bytes()
    timeline = build_timeline(parse(data))
    steps = [(step.seat, step.action) for step in timeline.decisions]
    ruleset, seed = timeline.ruleset, timeline.replay.header.seed

    def one_log(rng: random.Random) -> int:
        return verify(parse(data)).decisions

    def apply_only(rng: random.Random) -> int:
        state = GameState(ruleset, seed=seed)
        for seat, action in steps:
            state.apply(action, seat)
        return len(steps)

    ours = measure(one_log, config, salt=zlib.crc32(b"replay_verify"))
    baseline = measure(apply_only, config, salt=zlib.crc32(b"replay_verify_apply"))
    return comparison(
        "replay_verify",
        "decisions/s",
        ours.decisions_per_s,
        baseline.decisions_per_s,
        logs_per_s=round(ours.units_per_s, 2),
        decisions_per_log=len(steps),
        lines_per_log=timeline.replay.line_count,
        log=str(REPLAY_LOG.relative_to(ROOT)),
        baseline_is="the same decisions applied to a GameState, no log read or checked",
    )


# --- the referee (bench/referee_bench.py): wall clock, real bot processes ------------------------------------


def _wall_benchmark(module: str, name: str) -> Callable[[Config], Result]:
    """``BENCHMARKS[name]`` of ``bench/<module>.py``, run for ``--seconds`` on the wall clock; the module is imported
    only when one of its benchmarks runs."""

    def run(config: Config) -> Result:
        benchmarks = importlib.import_module(f"bench.{module}").BENCHMARKS
        return {**benchmarks[name](config.seconds), "clock": "wall"}

    return run


for _name in ("referee_overhead", "protocol_floor", "match_throughput", "parallel_scaling"):
    BENCHMARKS[_name] = _wall_benchmark("referee_bench", _name)

# Pinning, a whole `kierki match` and `kierki --help` from the shell, concurrent passes (issue 14).
for _name in ("unpinned_penalty", "match_wall", "cli_startup", "passes_concurrent"):
    BENCHMARKS[_name] = _wall_benchmark("referee_bench", _name)


# Fair play (issue 23): CPU-heavy passers asked at once, the freezer's anchor group.
for _name in ("passes_cpu_heavy", "freezer_anchor", "freeze_round_trip"):
    BENCHMARKS[_name] = _wall_benchmark("fairplay_bench", _name)


# --- tournaments (bench/tournament_bench.py): wall clock, real bot processes, a pool of workers ---------------


for _name in ("duplicate_efficiency", "tournament_scaling", "pinning"):
    BENCHMARKS[_name] = _wall_benchmark("tournament_bench", _name)


# --- games on Dask workers (bench/dask_bench.py): wall clock, a two-worker LocalCluster against the local pool --


@benchmark("dask_overhead")
def dask_overhead(config: Config) -> Result:
    try:
        from bench import dask_bench
    except ImportError as error:
        return {"name": "dask_overhead", "skipped": f"needs kierki[dask]: {error}"}
    return {**dask_bench.dask_overhead(config.seconds), "clock": "wall"}


# --- the ladder (bench/ladder_bench.py): wall clock, real bot processes, SQLite ------------------------------


@benchmark("ladder_sets_per_hour")
def ladder_sets_per_hour(config: Config) -> Result:
    from bench import ladder_bench

    return {**ladder_bench.ladder_sets_per_hour(max(config.seconds, 20.0)), "clock": "wall"}


# --- the referee's own memory under a stdout and a stderr flood (bench/memory.py) -----------------------------


@benchmark("referee_memory_under_flood")
def referee_memory_under_flood(config: Config) -> Result:
    from bench import memory

    summary = memory.measure(config.repeats)
    rss = summary.pop("peak_rss_mib")
    return {
        "name": summary.pop("name"),
        "unit": "MiB peak RSS of the referee (ours: flooded, baseline: normal match)",
        "ours": rss["flood"],
        "baseline": rss["normal"],
        "ratio": summary.pop("rss_ratio"),
        "better": "lower",
        **summary,
    }


# --- the Monte Carlo sample bot's search (bench/montecarlo_bench.py): playouts per CPU second -----------------


@benchmark("montecarlo_speed")
def montecarlo_speed(config: Config) -> Result:
    from bench import montecarlo_bench

    return montecarlo_bench.montecarlo_speed(measure, config, rules_build())


# --- the expert's search (bench/expert_bench.py): playouts per CPU second, beside the Monte Carlo bot's --------


@benchmark("expert_speed")
def expert_speed(config: Config) -> Result:
    from bench import expert_bench

    return expert_bench.expert_speed(measure, config, rules_build())


# --- command line ------------------------------------------------------------------------------------------


def environment(config: Config, name: str) -> dict[str, Any]:
    """What the docs' benchmarks page shows beside each figure (bench/results_table.py): when, on what, and the
    command that measures it again."""
    compiled = os.environ.get("KIERKI_COMPILED")
    command = f"python bench/run.py {name} --seconds {config.seconds:g} --repeats {config.repeats}"
    if config.clock != Config.clock:
        command += f" --clock {config.clock}"
    return {
        "clock": config.clock,
        "seconds": config.seconds,
        "repeats": config.repeats,
        "python": platform.python_version(),
        "open_spiel": openspiel_version(),
        "machine": platform.machine(),
        "cpu_model": _cpu_model(),
        "cpus": os.cpu_count(),
        "load_average_after": round(os.getloadavg()[0], 2),
        "measured_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": _commit(),
        "command": f"KIERKI_COMPILED={compiled} {command}" if compiled else command,
    }


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


# --- kierki analyse (bench/analysis_bench.py): decisions per CPU second, a whole match, --jobs -----------------


def _analysis_benchmark(name: str) -> Callable[[Config], Result]:
    def run(config: Config) -> Result:
        from bench import analysis_bench

        result: Result = getattr(analysis_bench, name)(rules_build())
        return result

    return run


for _name in ("analysis_speed", "analysis_match_cpu", "analysis_jobs_scaling"):
    BENCHMARKS[_name] = _analysis_benchmark(_name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    parser.add_argument("--seconds", type=float, default=Config.seconds, help="minimum time per repeat")
    parser.add_argument("--repeats", type=int, default=Config.repeats, help="repeats; the median is reported")
    parser.add_argument("--seed", type=int, default=Config.seed)
    parser.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default=Config.clock,
        help="rates per second of process CPU time (robust on a shared machine) or of wall time",
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument(
        "--profile", action="store_true", help="also print a cProfile summary of each benchmark to stderr"
    )
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(BENCHMARKS))
        return 0
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from: {', '.join(BENCHMARKS)}")
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    config = Config(args.seconds, args.repeats, args.seed, args.clock)
    for name in args.names or list(BENCHMARKS):
        if args.profile:
            profiler = cProfile.Profile()
            result = profiler.runcall(BENCHMARKS[name], config)
            print(f"--- profile of {name} ---", file=sys.stderr)
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
        else:
            result = BENCHMARKS[name](config)
        merged = {**result, **environment(config, name)}
        merged.update((key, value) for key, value in result.items() if key == "clock")  # a benchmark's own clock wins
        print(json.dumps(merged), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
