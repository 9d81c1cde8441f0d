"""``expert_speed``: playouts per CPU second of the expert's search (``referee.search.evaluate``), beside the Monte
Carlo sample's search and the rules core's random playouts, in one run and on the same positions.

The positions are ``montecarlo_speed``'s (``bench/montecarlo_bench.py``): for each game (Hearts, Kierki, Kierki for 3,
Cancellation with 6 players), ``POSITIONS`` play decisions with at least two legal cards, reached by seeded random
play. One unit is one decision searched to ``PLAYOUTS`` playouts:

- **expert**: ``referee.search.evaluate`` as the expert bot calls it (the rollout policy; the last two tricks solved
  exactly, one playout counted per card per world solved);
- **montecarlo**: the Monte Carlo sample's own search (its worlds and rollout policy);
- **random** (the baseline): the same worlds, each card applied to a copy and played out by ``referee.rules.playout``'s
  uniform random policy (the rules core alone).

Run it in both builds (``KIERKI_COMPILED=build/compiled``, see tools/build_compiled.py): the compiled build compiles
the rules core and, since it is part of the ``referee`` package, whatever of ``referee/search`` setup.py lists.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import referee.rules as rules
from bench.montecarlo_bench import GAMES, PLAYOUTS, POSITIONS, decision_runner, positions
from referee.search import Budget, Objective, evaluate


def expert_runner(pool: list[tuple[rules.Ruleset, rules.Observation]]) -> Callable[[random.Random], int]:
    """One decision of the pool (in turn) valued by the search library to ``PLAYOUTS`` playouts."""
    turn = iter(range(1 << 62))

    def one(rng: random.Random) -> int:
        ruleset, seen = pool[next(turn) % len(pool)]
        budget = Budget(playouts=PLAYOUTS)
        return evaluate(ruleset, seen, budget, rng.getrandbits(63), objective=Objective.MATCH).playouts

    return one


def expert_speed(measure: Callable[..., Any], config: Any, rules_build: str) -> dict[str, Any]:
    per_game: dict[str, Any] = {}
    totals = {"expert": 0.0, "montecarlo": 0.0, "random": 0.0}
    for index, (game, players) in enumerate(GAMES):
        pool = positions(game, players, POSITIONS, seed=config.seed * 1000 + index)
        rates = {
            "expert": measure(expert_runner(pool), config, salt=index).decisions_per_s,
            "montecarlo": measure(decision_runner(pool, policy=True), config, salt=index).decisions_per_s,
            "random": measure(decision_runner(pool, policy=False), config, salt=index).decisions_per_s,
        }
        per_game[game] = {f"{who}_playouts_per_s": round(rate, 1) for who, rate in rates.items()}
        per_game[game]["ratio_to_random"] = round(rates["expert"] / rates["random"], 3)
        for who, rate in rates.items():
            totals[who] += rate
    n = len(GAMES)
    return {
        "name": "expert_speed",
        "unit": "playouts/s of CPU (mean over the four games)",
        "ours": round(totals["expert"] / n, 1),
        "baseline": round(totals["random"] / n, 1),
        "ratio": round(totals["expert"] / totals["random"], 3),
        "montecarlo": round(totals["montecarlo"] / n, 1),
        "ratio_to_montecarlo": round(totals["expert"] / totals["montecarlo"], 3),
        "better": "higher",
        "games": per_game,
        "positions_per_game": POSITIONS,
        "playouts_per_decision": PLAYOUTS,
        "baseline_is": "the same worlds played out by referee.rules.playout's uniform random policy",
        "rules_build": rules_build,
    }
