"""The SPRT: exact arithmetic on hand-made sequences, and its error rates on simulated results."""

from __future__ import annotations

import math
import random

import pytest
from competition_helpers import make_set

from competition.sprt import SPRT, SprtError, paired_difference

RUNS = 2000


def test_bounds_are_walds() -> None:
    test = SPRT(alpha=0.05, beta=0.1, d0=0.0, d1=1.0)
    assert test.lower == pytest.approx(math.log(0.1 / 0.95))
    assert test.upper == pytest.approx(math.log(0.9 / 0.05))


def test_llr_arithmetic_on_two_pairs() -> None:
    test = SPRT(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
    assert test.llr == 0.0
    test.add(1.0)
    assert test.llr == 0.0  # one pair says nothing about the spread
    test.add(3.0)
    # n = 2, mean 2, ML variance ((1 − 2)² + (3 − 2)²) / 2 = 1.
    # Under H0 the variance is 1 + (2 − 0)² = 5, under H1 1 + (2 − 1)² = 2: LLR = (2 / 2) · ln(5 / 2).
    assert (test.n, test.mean, test.variance) == (2, 2.0, 1.0)
    assert test.llr == pytest.approx(math.log(2.5))
    # fishtest's first-order form: n (d1 − d0)(2m − d0 − d1) / (2v) = 2 · 1 · 3 / 2.
    assert test.llr_approx == pytest.approx(3.0)
    assert test.decision is None
    assert test.describe() == "pairs 2  mean +2.00  LLR 0.92 in (-2.94, 2.94)"


def test_decision_waits_for_min_pairs() -> None:
    differences = [1.9, 2.1] * 4
    # After five pairs: mean 1.98, variance 0.0096; LLR = 2.5 · ln(3.9300 / 0.9700) = 3.497 > ln(19) = 2.944.
    eager = SPRT(alpha=0.05, beta=0.05, d0=0.0, d1=1.0, min_pairs=2)
    decisions = [eager.add(d) for d in differences[:5]]
    assert decisions == [None, None, None, None, "H1"]
    assert eager.llr == pytest.approx(2.5 * math.log((0.0096 + 1.98**2) / (0.0096 + 0.98**2)))
    patient = SPRT(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
    decisions = [patient.add(d) for d in differences]
    assert decisions == [None] * 7 + ["H1"]
    # Eight pairs: mean 2, variance 0.01: LLR = 4 · ln(4.01 / 1.01).
    assert patient.llr == pytest.approx(4.0 * math.log(4.01 / 1.01))


def test_negative_evidence_accepts_h0() -> None:
    test = SPRT(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
    decision = None
    for d in [-0.1, 0.1] * 10:
        decision = decision or test.add(d)
    assert decision == "H0"
    assert test.llr <= test.lower


def test_identical_bots_are_not_a_deadlock() -> None:
    # Two copies of a deterministic bot: every difference is exactly 0 = d0, so H0 fits with zero variance.
    test = SPRT(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
    decisions = [test.add(0.0) for _ in range(8)]
    assert decisions == [None] * 7 + ["H0"]
    assert test.llr == -math.inf
    assert test.describe().endswith("H0 accepted, the new version is not better by 1 a game")


def test_a_decided_test_refuses_more_pairs_and_bad_input() -> None:
    test = SPRT(d0=0.0, d1=1.0, min_pairs=2)
    test.add(0.0)
    assert test.add(0.0) == "H0"
    with pytest.raises(SprtError, match="already accepted H0"):
        test.add(1.0)
    with pytest.raises(SprtError, match="not a finite number"):
        SPRT().add(math.nan)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 0.0}, "between 0 and 1"),
        ({"alpha": 0.6, "beta": 0.5}, "sum below 1"),
        ({"d0": 1.0, "d1": 1.0}, "d0 must be less than d1"),
        ({"min_pairs": 1}, "at least 2 pairs"),
    ],
)
def test_parameters_are_checked(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(SprtError, match=message):
        SPRT(**kwargs)  # type: ignore[arg-type]


def error_rate(true_difference: float, wrong: str, seed: int, sigma: float = 3.0) -> tuple[float, float]:
    """Share of RUNS simulated tests (normal differences, d0 = 0, d1 = 1) that accepted ``wrong``; mean pairs."""
    rng = random.Random(seed)
    wrong_count = 0
    pairs = 0
    for _ in range(RUNS):
        test = SPRT(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
        decision = None
        while decision is None:
            decision = test.add(rng.gauss(true_difference, sigma))
            assert test.n < 5000, "a test that never ends"
        wrong_count += decision == wrong
        pairs += test.n
    return wrong_count / RUNS, pairs / RUNS


# Wald's bounds promise error rates of at most about α / (1 − β) = 0.0526 when the variance is known; estimating it
# from the data adds a little (measured over 6000 runs at σ = 2, 4 and 8: 5.1–5.6%). With 2000 runs the standard
# error of an observed rate near 0.05 is √(0.05 · 0.95 / 2000) = 0.0049, so the test allows α / (1 − β) plus three
# standard errors (0.0673) above, and refuses a test that is uselessly cautious (below α / 2) under it.
UPPER = 0.05 / 0.95 + 3 * math.sqrt(0.05 * 0.95 / RUNS)
LOWER = 0.025


def test_type_one_error_rate() -> None:
    rate, pairs = error_rate(true_difference=0.0, wrong="H1", seed=20261201)
    assert LOWER <= rate <= UPPER, rate
    assert 20 < pairs < 200  # the test is sequential: it stops, on average, well before a fixed-size test would


def test_type_two_error_rate() -> None:
    rate, _ = error_rate(true_difference=1.0, wrong="H0", seed=20261202)
    assert LOWER <= rate <= UPPER, rate


def test_fishtests_approximation_would_be_wrong_here() -> None:
    # Why sprt.py uses the exact ratio: deciding on fishtest's first-order LLR from the second pair on, with
    # d1 − d0 = σ / 3, accepts H1 under H0 far more often than α (about 20%).
    rng = random.Random(5)
    false_h1 = 0
    for _ in range(500):
        test = SPRT(alpha=0.05, beta=0.05, d0=0.0, d1=1.0)
        while True:
            test.add(rng.gauss(0.0, 3.0))
            if test.llr_approx >= test.upper:
                false_h1 += 1
                break
            if test.llr_approx <= test.lower:
                break
    assert false_h1 / 500 > 2 * 0.05


def test_paired_difference_is_new_minus_old_with_the_sign_of_better() -> None:
    new_set = make_set(0, {"new": [10, 12, 14], "f1": [5, 5, 5], "f2": [1, 1, 1]}, seed="77")
    old_set = make_set(1, {"old": [9, 9, 9], "f1": [6, 6, 6], "f2": [1, 1, 1]}, seed="77")
    assert paired_difference(new_set, old_set, "new", "old") == pytest.approx(12.0 - 9.0)
    low_new = make_set(0, {"new": [10, 12, 14], "f1": [5, 5, 5]}, seed="7", higher_is_better=False)
    low_old = make_set(1, {"old": [9, 9, 9], "f1": [5, 5, 5]}, seed="7", higher_is_better=False)
    assert paired_difference(low_new, low_old, "new", "old") == pytest.approx(-3.0)  # more points is worse here
    other_deals = make_set(1, {"old": [9, 9, 9], "f1": [6, 6, 6], "f2": [1, 1, 1]}, seed="78")
    with pytest.raises(SprtError, match="not a pair"):
        paired_difference(new_set, other_deals, "new", "old")
    other_seat = make_set(1, {"f1": [6, 6, 6], "old": [9, 9, 9], "f2": [1, 1, 1]}, seed="77")
    with pytest.raises(SprtError, match="must sit where"):
        paired_difference(new_set, other_seat, "new", "old")
