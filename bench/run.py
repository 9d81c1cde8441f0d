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
import importlib.metadata
import json
import platform
import pstats
import random
import statistics
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.openspiel_hearts import OPENSPIEL_HEARTS_PARAMS  # noqa: E402
from referee.rules import (  # noqa: E402
    ChooseMoon,
    ChooseTrump,
    GameState,
    MoonOption,
    PassCards,
    Phase,
    PlayCard,
    Ruleset,
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


# --- our engine --------------------------------------------------------------------------------------------


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
    ruleset = Ruleset.create(game, players)

    def one_game(rng: random.Random) -> int:
        return play_random(GameState(ruleset, seed=rng.getrandbits(32)), rng)

    ours = measure(one_game, config, salt=zlib.crc32(name.encode()))
    baseline = openspiel_hearts_rate(config)
    context: dict[str, Any] = {
        "games_per_s": round(ours.units_per_s, 2),
        "decisions_per_game": round(ours.decisions_per_unit, 1),
        "players": ruleset.players,
        "options": "defaults",
        "baseline_is": "OpenSpiel random Hearts hands, decisions/s (a 3-card pass = 1 decision)",
    }
    if isinstance(baseline, str):
        return comparison(name, "decisions/s", ours.decisions_per_s, None, baseline_skipped=baseline, **context)
    return comparison(name, "decisions/s", ours.decisions_per_s, baseline.decisions_per_s, **context)


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


# --- OpenSpiel ---------------------------------------------------------------------------------------------


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


def openspiel_hand_runner() -> Callable[[random.Random], int] | str:
    """One full random OpenSpiel Hearts hand: pass-direction chance, 52 deal chances, 12 passes, 52 plays.

    At a chance node ``legal_actions()`` lists the (equiprobable) outcomes, so every node is driven the same
    way: ``rng.choice(state.legal_actions())``. Returns the reason instead when pyspiel is unavailable.
    """
    game = load_openspiel_hearts()
    if isinstance(game, str):
        return game

    def one_hand(rng: random.Random) -> int:
        choice = rng.choice
        state = game.new_initial_state()
        direction = choice(state.legal_actions())  # kNoPass (0) 1 time in 4, else left, across, right
        state.apply_action(direction)
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
        # One decision per play, plus one per seat's 3-card pass (12 pass actions) when the hand passes.
        return 52 + (4 if direction else 0)

    return one_hand


def openspiel_chance_outcomes_runner() -> Callable[[random.Random], int] | str:
    """The same hand, with chance nodes sampled from ``chance_outcomes()`` (action, probability) lists, as
    RULES.md §6 measured OpenSpiel (about 2,160 hands/s there). Slower than the ``legal_actions()`` driver
    above, which is the baseline of ``hearts_vs_openspiel``; this one is reported beside it for comparison."""
    game = load_openspiel_hearts()
    if isinstance(game, str):
        return game

    def one_hand(rng: random.Random) -> int:
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                actions += 1
        # As above: one decision per play and one per seat's 3-card pass.
        return 52 + (actions - 52) // 3

    return one_hand


@cache
def openspiel_hearts_rate(config: Config) -> Rate | str:
    """OpenSpiel's random-hand rate, measured once per run and shared by the ``games_*`` benchmarks."""
    runner = openspiel_hand_runner()
    return runner if isinstance(runner, str) else measure(runner, config, salt=999)


def our_hand_runner() -> Callable[[random.Random], int]:
    """One random hand of ours, shaped like OpenSpiel's: a one-hand game (target 1 ends it after the hand)
    that passes 3 times in 4 (left; the direction costs nothing) and holds once, as OpenSpiel's random pass
    direction does."""
    passing = Ruleset.create("hearts", 4, {"passing": "left", "target": 1})
    holding = Ruleset.create("hearts", 4, {"passing": "none", "target": 1})

    def one_hand(rng: random.Random) -> int:
        ruleset = holding if rng.random() < 0.25 else passing
        return play_random(GameState(ruleset, seed=rng.getrandbits(32)), rng, hands=1)

    return one_hand


def versus_openspiel(
    name: str, config: Config, theirs_runner: Callable[[random.Random], int] | str, salt: int, **context: Any
) -> Result:
    """Our random hands against OpenSpiel's, measured in the same run with the repeats interleaved."""
    if isinstance(theirs_runner, str):
        return {"name": name, "skipped": theirs_runner}
    ours_runner = our_hand_runner()
    ours_rates: list[Rate] = []
    their_rates: list[Rate] = []
    for repeat in range(config.repeats):
        ours_rates.append(measure_once(ours_runner, config, 7, repeat))
        their_rates.append(measure_once(theirs_runner, config, salt, repeat))
    ours, theirs = median_rate(ours_rates), median_rate(their_rates)
    return comparison(
        name,
        "hands/s",
        ours.units_per_s,
        theirs.units_per_s,
        repeat_ratios=[round(o.units_per_s / t.units_per_s, 3) for o, t in zip(ours_rates, their_rates, strict=True)],
        ours_decisions_per_s=round(ours.decisions_per_s, 1),
        baseline_decisions_per_s=round(theirs.decisions_per_s, 1),
        openspiel_params="RULES.md §6: qs_breaks_hearts=false, can_lead_hearts_instead_of_qs=true",
        **context,
    )


@benchmark("hearts_vs_openspiel")
def hearts_vs_openspiel(config: Config) -> Result:
    """Random Hearts hands per second, ours against OpenSpiel, the repeats interleaved (ours, theirs, ...)."""
    return versus_openspiel("hearts_vs_openspiel", config, openspiel_hand_runner(), 999)


@benchmark("hearts_vs_openspiel_chance_outcomes")
def hearts_vs_openspiel_chance_outcomes(config: Config) -> Result:
    """As ``hearts_vs_openspiel``, but OpenSpiel's chance nodes sampled from ``chance_outcomes()``."""
    return versus_openspiel(
        "hearts_vs_openspiel_chance_outcomes",
        config,
        openspiel_chance_outcomes_runner(),
        998,
        driver="OpenSpiel chance nodes sampled with random.choices over chance_outcomes()",
    )


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


def _referee_benchmark(name: str) -> Callable[[Config], Result]:
    def run(config: Config) -> Result:
        from bench import referee_bench

        return {**referee_bench.BENCHMARKS[name](config.seconds), "clock": "wall"}

    return run


for _name in ("referee_overhead", "match_throughput", "parallel_scaling"):
    BENCHMARKS[_name] = _referee_benchmark(_name)


# --- tournaments (bench/tournament_bench.py): wall clock, real bot processes, a pool of workers ---------------


def _tournament_benchmark(name: str) -> Callable[[Config], Result]:
    def run(config: Config) -> Result:
        from bench import tournament_bench

        return {**tournament_bench.BENCHMARKS[name](config.seconds), "clock": "wall"}

    return run


for _name in ("duplicate_efficiency", "tournament_scaling", "pinning"):
    BENCHMARKS[_name] = _tournament_benchmark(_name)


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


# --- command line ------------------------------------------------------------------------------------------


def environment(config: Config) -> dict[str, Any]:
    return {
        "clock": config.clock,
        "seconds": config.seconds,
        "repeats": config.repeats,
        "python": platform.python_version(),
        "open_spiel": openspiel_version(),
        "machine": platform.machine(),
    }


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
        merged = {**result, **environment(config)}
        merged.update((key, value) for key, value in result.items() if key == "clock")  # a benchmark's own clock wins
        print(json.dumps(merged), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
