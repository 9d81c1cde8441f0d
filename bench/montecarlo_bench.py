"""``montecarlo_speed``: playouts per second of the Monte Carlo sample bot's search (sample_bots/montecarlo).

The same positions every run: for each game (Hearts, Kierki, Kierki for 3, Cancellation with 6 players),
``POSITIONS`` play decisions with at least two legal cards, reached by seeded random play. One unit of work is
one decision searched exactly as the bot searches it, capped at ``PLAYOUTS`` playouts: worlds sampled from the
seat's observation, each legal card played in each world and the deal played out by the bot's rollout policy.

The baseline, in the same run and on the same positions: the same worlds, each card applied to a copy and the deal
played out by ``referee.rules.playout`` with its own uniform random policy (the rules core alone, no Python
policy). The ratio is what the bot's rollout policy costs in speed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import referee.rules as rules
from sample_bots.montecarlo import worlds
from sample_bots.montecarlo.bot import play_trial
from sample_bots.montecarlo.search import Budget, Trial, margin, search

GAMES = (("hearts", 4), ("kierki", 4), ("kierki3", 3), ("cancellation", 6))
POSITIONS = 12
PLAYOUTS = 60
_NO_DEADLINE_MS = 10**9


def positions(game: str, players: int, count: int, seed: int) -> list[tuple[rules.Ruleset, rules.Observation]]:
    ruleset = rules.Ruleset.create(game, players)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = rules.GameState(ruleset, seed=str(rng.getrandbits(32)))
        for _ in range(rng.randrange(200)):
            _random_step(state, rng)
        while not state.is_over and (state.phase is not rules.Phase.PLAY or len(state.legal_plays()) < 2):
            _random_step(state, rng)
        if not state.is_over:
            found.append((ruleset, state.observation(state.to_act)))
    return found


def _random_step(state: rules.GameState, rng: random.Random) -> None:
    if state.is_over:
        return
    if state.phase is rules.Phase.PLAY:
        state.apply(rules.PlayCard(rng.choice(state.legal_plays())))
    elif state.phase is rules.Phase.PASS:
        state.apply(rules.PassCards(tuple(rng.sample(state.hand(state.to_act), 3))))
    elif state.phase is rules.Phase.TRUMP:
        state.apply(rules.ChooseTrump(rng.choice(state.trump_choices())))
    else:
        state.apply(rules.ChooseMoon(rules.MoonOption.OTHERS))


def decision_runner(
    pool: list[tuple[rules.Ruleset, rules.Observation]], policy: bool
) -> Callable[[random.Random], int]:
    """One decision of the pool (in turn) searched to ``PLAYOUTS`` playouts; returns the playouts made."""
    turn = iter(range(1 << 62))

    def one(rng: random.Random) -> int:
        ruleset, seen = pool[next(turn) % len(pool)]
        trial = play_trial(ruleset, seen) if policy else random_trial(ruleset, seen)
        return search(list(seen.legal), trial, Budget(_NO_DEADLINE_MS, _NO_DEADLINE_MS, PLAYOUTS), rng).playouts

    return one


def random_trial(ruleset: rules.Ruleset, seen: rules.Observation) -> Trial[int]:
    """The baseline's trial: the bot's worlds, each card applied to a copy and played out at random by the core."""
    higher = ruleset.game in (rules.Game.KIERKI, rules.Game.KIERKI3)

    def trial(rng: random.Random) -> Callable[[int], float] | None:
        try:
            world = worlds.sample(ruleset, seen, rng)
        except worlds.NoWorld:
            return None

        def at_random(card: int) -> float:
            after = world.copy()
            after.apply(rules.PlayCard(card))
            scores = after.deal_results[-1].scores if after.is_over else rules.playout(after, rng)
            return margin(scores, seen.seat, higher)

        return at_random

    return trial


def montecarlo_speed(measure: Callable[..., Any], config: Any, rules_build: str) -> dict[str, Any]:
    """Playouts per second, ours (the bot's search) and the baseline (random playouts), per game and overall."""
    per_game: dict[str, Any] = {}
    ours_total = base_total = 0.0
    for index, (game, players) in enumerate(GAMES):
        pool = positions(game, players, POSITIONS, seed=config.seed * 1000 + index)
        ours = measure(decision_runner(pool, policy=True), config, salt=index)
        base = measure(decision_runner(pool, policy=False), config, salt=index)
        per_game[game] = {
            "playouts_per_s": round(ours.decisions_per_s, 1),
            "random_playouts_per_s": round(base.decisions_per_s, 1),
            "ratio": round(ours.decisions_per_s / base.decisions_per_s, 3),
        }
        ours_total += ours.decisions_per_s
        base_total += base.decisions_per_s
    return {
        "name": "montecarlo_speed",
        "unit": "playouts/s (mean over the four games)",
        "ours": round(ours_total / len(GAMES), 1),
        "baseline": round(base_total / len(GAMES), 1),
        "ratio": round(ours_total / base_total, 3),
        "better": "higher",
        "games": per_game,
        "positions_per_game": POSITIONS,
        "playouts_per_decision": PLAYOUTS,
        "baseline_is": "the same worlds played out by referee.rules.playout's uniform random policy",
        "rules_build": rules_build,
    }
