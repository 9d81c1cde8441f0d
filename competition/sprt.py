"""A sequential probability ratio test for "is the new version of a bot better than the old one?".

The new and the old version play the same deals from the same seat against the same field, so each pair of sets
gives one paired difference ``new − old`` in score per game, sign-adjusted so that positive means the new version
is better (:func:`paired_difference`). Pairs are independent; the games inside them are not.

The differences are modelled as normal with unknown variance (the generalised SPRT of fishtest and fastchess).
For H0: mean = d0 against H1: mean = d1, after n pairs with sample mean m and maximum-likelihood variance v, each
hypothesis gets its own variance estimate ``v_k = v + (m − d_k)²`` and the log-likelihood ratio is

    LLR = (n / 2) · ln(v_0 / v_1)

The test stops when the LLR leaves ``(ln(β / (1 − α)), ln((1 − β) / α))``: below accepts H0, above accepts H1.

fishtest and fastchess use the first-order expansion ``n · (d1 − d0) · (2m − d0 − d1) / (2v)`` of the same ratio
(:attr:`SPRT.llr_approx`). It is accurate over the thousands of games chess tests run, but sets are expensive and
few here: with 2000 simulated tests at α = β = 0.05 and d1 − d0 = σ/3 it accepted the wrong hypothesis 21% of the
time, because a variance estimated from a handful of pairs is often far too small and nothing bounds the ratio.
The exact ratio above is bounded by the size of the shift it would take to explain the data, and with no decision
before ``min_pairs`` (default 8) its error rates in the same simulation are 5–6% (see tests/test_sprt.py).
If the differences fit a hypothesis exactly (all equal to d0, say two identical deterministic bots with d0 = 0),
that hypothesis has zero variance and the LLR is infinite in its favour: after ``min_pairs`` such pairs the test
accepts it, rather than waiting forever on a degenerate model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from competition.model import SetRecord

__all__ = ["SPRT", "Decision", "SprtError", "paired_difference", "ranked_mean_per_game"]

Decision = Literal["H0", "H1"]


class SprtError(ValueError):
    """The test's parameters or a pair of sets cannot be used."""


@dataclass
class SPRT:
    """The test's state: feed it paired differences one at a time with :meth:`add`."""

    alpha: float = 0.05  # chance of accepting H1 when H0 is true
    beta: float = 0.05  # chance of accepting H0 when H1 is true
    d0: float = 0.0  # score difference per game under H0 (usually 0: no better)
    d1: float = 1.0  # score difference per game under H1 (the smallest gain worth detecting)
    min_pairs: int = 8  # no decision before this many pairs: a variance from fewer is too unreliable
    n: int = field(default=0, init=False)  # pairs taken so far
    _sum: float = field(default=0.0, init=False, repr=False)
    _sum_sq: float = field(default=0.0, init=False, repr=False)
    _decision: Decision | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0 and self.alpha + self.beta < 1.0):
            raise SprtError(
                f"alpha={self.alpha} and beta={self.beta}: each must be between 0 and 1 and their sum below 1"
            )
        if self.min_pairs < 2:
            raise SprtError(f"min_pairs={self.min_pairs}: the variance needs at least 2 pairs")
        if not self.d0 < self.d1:
            raise SprtError(f"d0={self.d0} and d1={self.d1}: d0 must be less than d1 (H1 says the new bot is better)")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def mean(self) -> float:
        return self._sum / self.n if self.n else math.nan

    @property
    def variance(self) -> float:
        """The maximum-likelihood (divide by n) variance of the differences, as in the GSPRT."""
        if self.n == 0:
            return math.nan
        mean = self._sum / self.n
        return max(0.0, self._sum_sq / self.n - mean * mean)

    @property
    def llr(self) -> float:
        """The generalised log-likelihood ratio of H1 against H0 (positive favours H1); 0 until it is defined."""
        if self.n < 2:
            return 0.0
        mean, variance = self.mean, self.variance
        under_h0 = variance + (mean - self.d0) ** 2
        under_h1 = variance + (mean - self.d1) ** 2
        if under_h0 <= 0.0:
            return -math.inf
        if under_h1 <= 0.0:
            return math.inf
        return 0.5 * self.n * math.log(under_h0 / under_h1)

    @property
    def llr_approx(self) -> float:
        """fishtest's first-order form of :attr:`llr`, for comparison only (0 while the variance is 0)."""
        variance = self.variance
        if self.n < 2 or variance <= 0.0:
            return 0.0
        return self.n * (self.d1 - self.d0) * (2.0 * self.mean - self.d0 - self.d1) / (2.0 * variance)

    @property
    def decision(self) -> Decision | None:
        """None while running; "H0" (not better by d1) or "H1" (better by more than d0) once decided, for good."""
        return self._decision

    def describe(self) -> str:
        """One progress line, e.g. ``pairs 12  mean +0.83  LLR 1.41 in (-2.94, 2.94)``, then the decision."""
        mean = f"{self.mean:+.2f}" if self.n else "n/a"
        line = f"pairs {self.n}  mean {mean}  LLR {self.llr:.2f} in ({self.lower:.2f}, {self.upper:.2f})"
        if self._decision == "H1":
            return f"{line}: H1 accepted, the new version is better by more than {self.d0:g} a game"
        if self._decision == "H0":
            return f"{line}: H0 accepted, the new version is not better by {self.d1:g} a game"
        return line

    def add(self, difference: float) -> Decision | None:
        """Take one paired difference (new − old per game, positive = new is better); return the decision so far.

        Once decided the test is over: later differences are refused rather than silently moving the result.
        """
        if self._decision is not None:
            raise SprtError(f"the test already accepted {self._decision}: start a new SPRT for more pairs")
        if not math.isfinite(difference):
            raise SprtError(f"difference {difference!r} is not a finite number")
        self.n += 1
        self._sum += difference
        self._sum_sq += difference * difference
        if self.n < self.min_pairs:
            return None
        llr = self.llr
        if llr >= self.upper:
            self._decision = "H1"
        elif llr <= self.lower:
            self._decision = "H0"
        return self._decision


def paired_difference(new_set: SetRecord, old_set: SetRecord, new: str, old: str) -> float:
    """``new``'s mean score per game in its set minus ``old``'s in the paired set, positive when new is better
    (each by `ranked_mean_per_game`: a game the fallback played for a version is its table's worst total).

    The two sets must be the same deals (seed) of the same game, with ``old`` in the place ``new`` had.
    """
    if new_set.seed != old_set.seed or new_set.game != old_set.game or len(new_set.games) != len(old_set.games):
        raise SprtError(
            f"sets {new_set.set_id} and {old_set.set_id} are not a pair: they must share game, seed and rotations"
        )
    if [old if bot == new else bot for bot in new_set.bots] != list(old_set.bots):
        raise SprtError(
            f"sets {new_set.set_id} and {old_set.set_id} are not a pair: {old!r} must sit where {new!r} sat, "
            "against the same field"
        )
    difference = ranked_mean_per_game(new_set, new) - ranked_mean_per_game(old_set, old)
    return difference if new_set.higher_is_better else -difference


def ranked_mean_per_game(record: SetRecord, bot: str) -> float:
    """The bot's mean score per game under the ranking rule, in points: a game the fallback played (in part) for
    it counts the worst total at its table (a last place), so a crash or a forfeit never scores better than
    playing; games it played itself count its own total."""
    worst = min if record.higher_is_better else max
    return math.fsum(
        float(worst(game.totals)) if game.fallback_of(bot) else game.score_of(bot) for game in record.games
    ) / len(record.games)
