"""Ratings: our per-set Plackett–Luce updates equal openskill's own, fed by hand."""

from __future__ import annotations

import random

import pytest
from competition_helpers import make_set
from openskill.models import PlackettLuce, PlackettLuceRating

from competition.model import GameRecord, SetRecord
from competition.ratings import Rating, RatingParams, rate, set_ranks


def random_sets(seed: int, count: int, higher_is_better: bool) -> list[SetRecord]:
    rng = random.Random(seed)
    pool = ["ann", "bob", "cyd", "dee", "eve"]
    records = []
    for set_id in range(count):
        table = rng.sample(pool, 4)
        # Small ranges so that equal set totals (shared ranks) happen often.
        records.append(
            make_set(
                set_id, {bot: [rng.randint(0, 3) for _ in range(4)] for bot in table}, higher_is_better=higher_is_better
            )
        )
    return records


def test_set_ranks_share_ties_and_follow_the_direction() -> None:
    record = make_set(0, {"A": [3, 3], "B": [5, 1], "C": [0, 1], "D": [9, 9]})  # totals 6, 6, 1, 18
    assert set_ranks(record) == {"D": 1, "A": 2, "B": 2, "C": 4}
    low = make_set(0, {"A": [3, 3], "B": [5, 1], "C": [0, 1], "D": [9, 9]}, higher_is_better=False)
    assert set_ranks(low) == {"C": 1, "A": 2, "B": 2, "D": 4}


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_ratings_equal_openskill_fed_directly(higher_is_better: bool) -> None:
    records = random_sets(7, 40, higher_is_better)
    params = RatingParams(mu=30.0, sigma=9.0, beta=4.0, tau=0.2)
    ours = rate(records, params)

    model = PlackettLuce(mu=30.0, sigma=9.0, beta=4.0, kappa=0.0001, tau=0.2)
    theirs: dict[str, PlackettLuceRating] = {}
    played: dict[str, int] = {}
    for record in records:
        bots = list(record.bots)
        totals = [sum(g.totals[g.seats.index(bot)] for g in record.games) for bot in bots]
        # openskill's "scores" argument: higher wins, equal scores tie. Negate when low totals are good.
        scores = [float(t) if higher_is_better else -float(t) for t in totals]
        teams = [[theirs.get(bot) or model.rating(name=bot)] for bot in bots]
        for bot, (rating,) in zip(bots, model.rate(teams, scores=scores), strict=True):
            theirs[bot] = rating
            played[bot] = played.get(bot, 0) + 1

    assert set(ours) == set(theirs)
    for bot, expected in theirs.items():
        assert ours[bot].mu == pytest.approx(expected.mu, rel=1e-12)
        assert ours[bot].sigma == pytest.approx(expected.sigma, rel=1e-12)
        assert ours[bot].sets == played[bot]


def test_order_of_the_results_file_does_not_matter() -> None:
    records = random_sets(3, 20, True)
    shuffled = records[:]
    random.Random(1).shuffle(shuffled)
    assert rate(shuffled) == rate(records)


def test_the_better_bot_rates_higher_in_both_directions() -> None:
    high = rate([make_set(i, {"good": [10, 12], "bad": [2, 3]}) for i in range(5)])
    assert high["good"].conservative > high["bad"].conservative
    low = rate([make_set(i, {"good": [1, 2], "bad": [10, 11]}, higher_is_better=False) for i in range(5)])
    assert low["good"].conservative > low["bad"].conservative
    assert low["good"].mu == pytest.approx(high["good"].mu)


def test_conservative_is_mu_minus_three_sigma_and_defaults_match_openskill() -> None:
    assert Rating(mu=25.0, sigma=2.0).conservative == 19.0
    default = PlackettLuce()
    params = RatingParams()
    assert (params.mu, params.sigma, params.beta, params.kappa, params.tau) == (
        default.mu,
        default.sigma,
        default.beta,
        default.kappa,
        default.tau,
    )


def test_a_set_of_one_bot_is_skipped() -> None:
    lonely = SetRecord(
        set_id=0,
        seed="1",
        game="kierki",
        players=2,
        higher_is_better=True,
        bots=("A", "A"),
        games=(GameRecord(index=0, seats=("A", "A"), totals=(1, 2), places=(2, 1)),),
    )
    assert rate([lonely]) == {}
