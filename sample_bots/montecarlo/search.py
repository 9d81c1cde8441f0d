"""The search: each choice scored by playouts of the same sampled worlds, until the budget is spent.

Determinized (perfect-information) Monte Carlo: draw a world consistent with what this seat saw, play every
candidate in it and play the deal out with the rollout policy, add up each candidate's utility, draw the next
world. Every candidate meets the same worlds (common random numbers), which is what lets a few dozen worlds tell
close choices apart; a world whose round the budget cut short is dropped, so no candidate gets an extra world.

The utility of a deal's scores is this seat's margin over the mean of the others, in the game's direction
(Kierki: more is better; Hearts and Cancellation: fewer), which also values a moon shot by anyone correctly.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

Choice = TypeVar("Choice")

# Never think past this share of a request's time_ms, whatever --budget-ms says, and always leave at least
# SAFETY_MS: pipes, the process being descheduled on a loaded machine, and the last playout's overrun.
MAX_SHARE: Final = 0.8
SAFETY_MS: Final = 100


class Budget:
    """When to stop: a wall-clock deadline, and optionally a playout count (``--playouts``, for repeatable runs)."""

    def __init__(self, time_ms: int, budget_ms: int | None, playouts: int | None) -> None:
        self.start = time.monotonic()
        wanted = time_ms // 4 if budget_ms is None else budget_ms
        allowed = min(wanted, int(time_ms * MAX_SHARE), time_ms - SAFETY_MS)
        self.deadline = self.start + max(allowed, 0) / 1000.0
        self.playouts = playouts
        self.used = 0

    def spent(self) -> bool:
        """Out of playouts, or of time; a count-based budget still stops at the deadline (it never times out)."""
        if self.playouts is not None and self.used >= self.playouts:
            return True
        return time.monotonic() >= self.deadline

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.start) * 1000.0


@dataclass
class Tally(Generic[Choice]):
    """The search's outcome: per choice the utility summed over the worlds every choice met."""

    choices: Sequence[Choice]
    sums: list[float] = field(default_factory=list)
    worlds: int = 0
    playouts: int = 0
    failed_worlds: int = 0

    def best(self) -> Choice:
        if not self.worlds:
            return self.choices[0]
        return self.choices[max(range(len(self.choices)), key=lambda i: self.sums[i])]


# A trial: given a fresh rng, a function scoring each choice in one world (None: that world could not be made).
Trial = Callable[[random.Random], Callable[[Choice], float] | None]

MAX_FAILED_WORLDS: Final = 50


def search(choices: Sequence[Choice], trial: Trial[Choice], budget: Budget, rng: random.Random) -> Tally[Choice]:
    """Score every choice on world after world until the budget is spent; choices[0] is the default."""
    tally: Tally[Choice] = Tally(choices, [0.0] * len(choices))
    if len(choices) < 2:
        return tally
    while not budget.spent() and tally.failed_worlds < MAX_FAILED_WORLDS:
        score = trial(random.Random(rng.getrandbits(64)))
        if score is None:
            tally.failed_worlds += 1
            continue
        results: list[float] = []
        for choice in choices:
            if results and budget.spent():
                break
            results.append(score(choice))
            budget.used += 1
            tally.playouts += 1
        if len(results) < len(choices):
            break
        for i, value in enumerate(results):
            tally.sums[i] += value
        tally.worlds += 1
    return tally


def margin(scores: Sequence[int], seat: int, higher_is_better: bool) -> float:
    """This seat's score less the mean of the others', positive when it did better."""
    mine = scores[seat]
    others = (sum(scores) - mine) / (len(scores) - 1)
    return mine - others if higher_is_better else others - mine
