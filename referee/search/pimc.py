"""Determinized search from one seat's view: every choice scored in the same sampled worlds until the budget is
spent.

A world is a whole deal dealt consistently with what the seat saw (``rules.sample_state``: its own hand, every card
played, each hand's size, the voids shown, the cards it passed and Cancellation Hearts' kitty). In each world every
choice is made on a copy and the deal is played to its end: by the rollout policy (``rollout``), or exactly
(``exact``, max^n with every card known) once the hands hold at most ``exact_tricks`` tricks' cards. Every choice
meets the same worlds (common random numbers), which is what lets a few dozen worlds tell close choices apart; a world
that the budget cut short is dropped, so no choice gets an extra one.

A choice's value is the seat's margin at the deal's end: its points less the mean of the others', in the game's
direction (Kierki: more is better; Hearts and Cancellation: fewer), which also values a moon shot by anyone
correctly. With ``objective=Objective.MATCH`` a Hearts deal that ends the game also counts who won it
(``match_value``).
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import referee.rules as rules
from referee.search.budget import Budget, Meter
from referee.search.exact import margin, solve_scores
from referee.search.inference import PlayModel
from referee.search.passing import candidate_passes, rule_of_thumb_pass
from referee.search.rollout import Rollout, forced_first

__all__ = [
    "DEFAULT_EXACT_TRICKS",
    "ChoiceValue",
    "Evaluation",
    "Objective",
    "choices_of",
    "evaluate",
    "match_value",
]

# Exact play once this many tricks remain: a millisecond a world (12 cards of four players cost 15-40 ms a world,
# fewer worlds than rollouts would see in the same time).
DEFAULT_EXACT_TRICKS: Final = 2
MAX_FAILED_WORLDS: Final = 50


class Objective(enum.Enum):
    DEAL = "deal"  # the seat's margin at the deal's end
    MATCH = "match"  # Hearts games: also who wins, when the deal ends the game (Kierki: the same as DEAL)


@dataclass(frozen=True)
class ChoiceValue:
    """One choice, its estimated value for the seat (higher is better), the standard error of that estimate and
    the worlds it was scored in."""

    action: rules.Action
    value: float
    stderr: float
    samples: int


@dataclass(frozen=True)
class Evaluation:
    """Every choice of ``seat`` valued over the same ``worlds``; ``playouts`` deals played out (or solved)."""

    seat: int
    choices: tuple[ChoiceValue, ...]
    worlds: int
    playouts: int

    def best(self) -> ChoiceValue:
        """The highest value; the first choice listed among equals (and with no world at all)."""
        best = self.choices[0]
        for choice in self.choices[1:]:
            if choice.value > best.value:
                best = choice
        return best


def choices_of(ruleset: rules.Ruleset, seen: rules.Observation) -> list[rules.Action]:
    """The choices `evaluate` weighs by default: every legal card, trump and moon option; for a pass, the rule of
    thumb's pass and every other three of its five most dangerous cards (``passing``), not all 286."""
    phase = seen.phase
    if phase is rules.Phase.PLAY:
        return [rules.PlayCard(card) for card in dict.fromkeys(seen.legal)]
    if phase is rules.Phase.PASS:
        count = 3
        return [rules.PassCards(cards) for cards in candidate_passes(list(seen.hand), count)]
    if phase is rules.Phase.TRUMP:
        suits: list[int | None] = [0, 1, 2, 3]
        return [rules.ChooseTrump(s) for s in ([*suits, None] if ruleset.allow_no_trump else suits)]
    if phase is rules.Phase.MOON:
        return [rules.ChooseMoon(rules.MoonOption.SELF), rules.ChooseMoon(rules.MoonOption.OTHERS)]
    raise ValueError(f"seat {seen.seat} has no decision to make in the {phase.value} phase")


def match_value(ruleset: rules.Ruleset, totals: Sequence[int], scores: Sequence[int], seat: int) -> float:
    """The seat's margin in this deal's ``scores`` and, in the Hearts games when the deal ends the game, half the
    target more for winning it (lowest total, shared among ties) or half the target less for losing it."""
    higher = ruleset.game.higher_is_better
    value = margin(scores, seat, higher)
    if higher:
        return value
    after = [t + s for t, s in zip(totals, scores, strict=True)]
    if max(after) < ruleset.target:
        return value
    best = min(after)
    bonus = ruleset.target / 2
    return value + (bonus / after.count(best) if after[seat] == best else -bonus)


def evaluate(
    ruleset: rules.Ruleset,
    seen: rules.Observation,
    budget: Budget,
    seed: int,
    *,
    choices: Sequence[rules.Action] | None = None,
    exact_tricks: int = DEFAULT_EXACT_TRICKS,
    objective: Objective = Objective.DEAL,
    infer: bool = False,
    sampler: Callable[[rules.Ruleset, rules.Observation, random.Random], rules.GameState] = rules.sample_state,
) -> Evaluation:
    """Every choice of ``seen.seat`` (``choices_of`` unless given) with its estimated value (module docstring).
    Deterministic for a seed and a budget of playouts alone. With ``infer`` each world is weighted by how likely
    the others' plays of this deal were in it (``inference.PlayModel``). ``sampler`` deals the worlds (the rules core's
    ``sample_state`` unless given: a test plants a leaking one to see the leak test fail)."""
    actions = list(choices_of(ruleset, seen) if choices is None else choices)
    if not actions:
        raise ValueError("no choice to evaluate")
    seat = seen.seat
    if seen.phase is rules.Phase.MOON:
        return _moon(ruleset, seen, actions, objective)
    meter = budget.start()
    rng = random.Random(seed)
    worlds = 0
    playouts = 0
    failed = 0
    sums = [0.0] * len(actions)
    squares = [0.0] * len(actions)
    weights = 0.0
    weights_squared = 0.0
    scorer = _Scorer(ruleset, seen, objective, exact_tricks * ruleset.players)
    model = PlayModel(ruleset, seen, scorer.policy(seen.kind, seen.trump)) if infer else None
    while not meter.spent() and failed < MAX_FAILED_WORLDS:
        world_rng = random.Random(rng.getrandbits(64))
        try:
            world = sampler(ruleset, seen, world_rng)
        except rules.SampleError:
            failed += 1
            continue
        weight = 1.0 if model is None else model.weight(world)
        values = scorer.world(world, actions, world_rng, meter)
        playouts += len(values)
        if len(values) < len(actions):
            break
        worlds += 1
        weights += weight
        weights_squared += weight * weight
        for i, value in enumerate(values):
            sums[i] += weight * value
            squares[i] += weight * value * value
    return Evaluation(
        seat,
        tuple(_value(a, sums[i], squares[i], weights, weights_squared, worlds) for i, a in enumerate(actions)),
        worlds,
        playouts,
    )


def _value(action: rules.Action, total: float, squares: float, weights: float, squared: float, n: int) -> ChoiceValue:
    """The weighted mean of a choice's values and its standard error over the worlds' effective number
    (``weights**2 / squared``: ``n`` when every world weighs the same)."""
    if n == 0:
        return ChoiceValue(action, 0.0, math.inf, 0)
    mean = total / weights
    effective = weights * weights / squared
    if effective <= 1.0:
        return ChoiceValue(action, mean, math.inf, n)
    variance = max(squares / weights - mean * mean, 0.0) * effective / (effective - 1.0)
    return ChoiceValue(action, mean, math.sqrt(variance / effective), n)


def _moon(
    ruleset: rules.Ruleset, seen: rules.Observation, actions: list[rules.Action], objective: Objective
) -> Evaluation:
    """A moon's outcomes are known: no world is needed."""
    options = seen.moon_options or {}
    found = []
    for action in actions:
        assert isinstance(action, rules.ChooseMoon)
        totals = options[action.option]
        scores = [after - before for after, before in zip(totals, seen.totals, strict=True)]
        if objective is Objective.MATCH:
            value = match_value(ruleset, seen.totals, scores, seen.seat)
        else:
            value = margin(scores, seen.seat, ruleset.game.higher_is_better)
        found.append(ChoiceValue(action, value, 0.0, 1))
    return Evaluation(seen.seat, tuple(found), 0, 0)


class _Scorer:
    """Scores every choice in one world."""

    def __init__(self, ruleset: rules.Ruleset, seen: rules.Observation, objective: Objective, exact: int) -> None:
        self.ruleset = ruleset
        self.seen = seen
        self.seat = seen.seat
        self.exact = exact
        self.objective = objective
        self.higher = ruleset.game.higher_is_better
        self.policies: dict[tuple[rules.DealKind, int | None], Rollout] = {}

    def policy(self, kind: rules.DealKind, trump: int | None) -> Rollout:
        key = (kind, trump)
        found = self.policies.get(key)
        if found is None:
            found = self.policies[key] = Rollout(self.ruleset, kind, trump)
        return found

    def utility(self, scores: Sequence[int]) -> float:
        if self.objective is Objective.MATCH:
            return match_value(self.ruleset, self.seen.totals, scores, self.seat)
        return margin(scores, self.seat, self.higher)

    def world(
        self, world: rules.GameState, actions: list[rules.Action], rng: random.Random, meter: Meter
    ) -> list[float]:
        """Each action's value in ``world``, in order; fewer when the budget ran out."""
        values: list[float] = []
        seen = self.seen
        if seen.phase is rules.Phase.PLAY and _cards_left(world) <= self.exact:
            if meter.spent():
                return values
            solved = solve_scores(world)
            for action in actions:
                assert isinstance(action, rules.PlayCard)
                values.append(self.utility(solved[action.card]))
            meter.used += len(actions)
            return values
        for action in actions:
            if values and meter.spent():
                break
            values.append(self.utility(self.play_out(world, action, rng)))
            meter.used += 1
        return values

    def play_out(self, world: rules.GameState, action: rules.Action, rng: random.Random) -> tuple[int, ...]:
        if isinstance(action, rules.PlayCard):
            policy = self.policy(self.seen.kind, self.seen.trump)
            return rules.playout(world, rng, forced_first(action.card, policy))
        state = world.copy()
        if isinstance(action, rules.PassCards):
            while state.phase is rules.Phase.PASS:
                acting = state.to_act
                chosen = action.cards if acting == self.seat else tuple(rule_of_thumb_pass(state.hand(acting), 3))
                state.apply(rules.PassCards(chosen))
        else:
            state.apply(action)
        if state.is_over:
            return state.deal_results[-1].scores
        return rules.playout(state, rng, self.policy(state.kind, state.trump))


def _cards_left(world: rules.GameState) -> int:
    return sum(len(world.hand(seat)) for seat in range(world.players))
