"""Tournament statistics against answers worked out by hand."""

from __future__ import annotations

import math

import pytest
from competition_helpers import make_set

from competition.model import GameRecord, SetRecord, decode_set, encode_set
from competition.stats import StatsError, duplicate_efficiency, mean_interval, standings, t_quantile, units_needed
from referee.vocabulary.faults import FaultCode

# Student's t, 97.5% quantile, 2 degrees of freedom (tables: 4.303). With 2 degrees of freedom the quantile has a
# closed form, t = (2p − 1) · √(2 / (4p(1 − p))), so the expected values below do not come from scipy.
T_975_2 = 0.95 * math.sqrt(2.0 / (4.0 * 0.975 * 0.025))


def three_sets(higher_is_better: bool = True) -> list[SetRecord]:
    # A's games: (9, 10, 11) -> 10 per game; (12, 12, 12) -> 12; (20, 15, 16) -> 17.
    # B: (5, 6, 7) -> 6; (6, 6, 6) -> 6; (7, 8, 9) -> 8.   C: (1, 2, 3) -> 2; (1, 1, 1) -> 1; (0, 0, 3) -> 1.
    return [
        make_set(0, {"A": [9, 10, 11], "B": [5, 6, 7], "C": [1, 2, 3]}, higher_is_better=higher_is_better),
        make_set(1, {"A": [12, 12, 12], "B": [6, 6, 6], "C": [1, 1, 1]}, higher_is_better=higher_is_better),
        make_set(2, {"A": [20, 15, 16], "B": [7, 8, 9], "C": [0, 0, 3]}, higher_is_better=higher_is_better),
    ]


def test_t_quantile_matches_the_table() -> None:
    assert t_quantile(0.975, 2) == pytest.approx(4.303, abs=5e-4)
    assert t_quantile(0.975, 2) == pytest.approx(T_975_2, rel=1e-9)


def test_interval_over_per_set_means() -> None:
    result = standings(three_sets())
    a = result.bot("A")
    # Per-set means 10, 12, 17: mean 13; s² = (9 + 1 + 16) / 2 = 13; half-width = t(2) · √13 / √3.
    assert a.sets == 3
    assert a.games == 9
    assert a.score.mean == pytest.approx(13.0)
    assert a.score.half_width == pytest.approx(T_975_2 * math.sqrt(13.0 / 3.0), rel=1e-12)
    assert a.score.half_width == pytest.approx(8.957, abs=1e-3)
    assert (a.score.low, a.score.high) == pytest.approx((13.0 - 8.957, 13.0 + 8.957), abs=1e-3)
    b = result.bot("B")
    # B: 6, 6, 8 -> mean 20/3; s² = ((2/3)² + (2/3)² + (4/3)²) / 2 = 4/3; half = t(2) · √(4/9).
    assert b.score.mean == pytest.approx(20.0 / 3.0)
    assert b.score.half_width == pytest.approx(T_975_2 * 2.0 / 3.0, rel=1e-12)


def test_interval_is_not_computed_over_games() -> None:
    # Nine games but three sets: the degrees of freedom are 2, not 8 (t(8) = 2.306 would give a narrower interval).
    a = standings(three_sets()).bot("A")
    assert a.score.n == 3
    game_means = [9, 10, 11, 12, 12, 12, 20, 15, 16]
    assert a.score.half_width > mean_interval(game_means).half_width


def test_one_set_has_no_interval() -> None:
    result = standings(three_sets()[:1])
    a = result.bot("A")
    assert a.score.mean == pytest.approx(10.0)
    assert a.score.half_width == math.inf
    assert not a.score.defined
    assert a.score.width == math.inf  # so "stop when every interval is narrower than W" keeps playing
    assert mean_interval([]).n == 0


def test_zero_spread_gives_zero_width() -> None:
    assert mean_interval([4.0, 4.0, 4.0]).half_width == 0.0


def test_places_wins_and_order_when_high_is_good() -> None:
    result = standings(three_sets())
    assert [b.bot for b in result.bots] == ["A", "B", "C"]
    assert [b.rank for b in result.bots] == [1, 2, 3]
    a, b, c = result.bots
    # Every game of the three sets has A > B > C.
    assert (a.first_places, a.mean_place) == (9, 1.0)
    assert (b.first_places, b.mean_place) == (0, 2.0)
    assert (c.first_places, c.mean_place) == (0, 3.0)
    assert a.rating.conservative > b.rating.conservative > c.rating.conservative
    assert (result.sets, result.games, result.players) == (3, 9, 3)


def test_low_is_good_reverses_every_comparison() -> None:
    result = standings(three_sets(higher_is_better=False))
    assert [b.bot for b in result.bots] == ["C", "B", "A"]
    c = result.bot("C")
    assert (c.first_places, c.mean_place) == (9, 1.0)
    assert result.pair("C", "A") is not None
    assert result.pair("C", "A").ahead == 9  # type: ignore[union-attr]
    # The scores themselves are raw points, whatever the direction.
    assert result.bot("A").score.mean == pytest.approx(13.0)


def test_tiebreak_on_mean_score_when_ratings_are_equal() -> None:
    # X and Y never meet; each beats its only opponent once, so openskill gives them identical ratings and
    # the mean score per game decides, in the game's own direction.
    def sets(higher: bool) -> list[SetRecord]:
        return [
            make_set(0, {"X": [5, 5], "P": [1, 1] if higher else [9, 9]}, higher_is_better=higher),
            make_set(
                1, {"Y": [9, 9] if higher else [1, 1], "Q": [1, 1] if higher else [9, 9]}, higher_is_better=higher
            ),
        ]

    high = standings(sets(True))
    assert high.bot("X").rating == high.bot("Y").rating
    assert [b.bot for b in high.bots][:2] == ["Y", "X"]  # 9 a game beats 5
    low = standings(sets(False))
    assert low.bot("X").rating == low.bot("Y").rating
    assert [b.bot for b in low.bots][:2] == ["Y", "X"]  # 1 a game beats 5 when low is good
    equal = [make_set(i, {"Y": [5, 5], "X": [5, 5]}) for i in range(2)]
    assert [b.bot for b in standings(equal).bots] == ["X", "Y"]  # then the name, so the order is deterministic


def test_head_to_head_counts() -> None:
    # Set 0: game 0 A=3 B=1 C=1 ; game 1 A=0 B=2 C=2 ; game 2 A=5 B=5 C=0 (higher is better).
    record = make_set(0, {"A": [3, 0, 5], "B": [1, 2, 5], "C": [1, 2, 0]})
    result = standings([record])
    ab, ba = result.pair("A", "B"), result.pair("B", "A")
    assert ab is not None and ba is not None
    assert (ab.ahead, ab.behind, ab.tied, ab.games) == (1, 1, 1, 3)
    assert (ba.ahead, ba.behind, ba.tied) == (1, 1, 1)
    bc = result.pair("B", "C")
    assert bc is not None
    assert (bc.ahead, bc.behind, bc.tied) == (1, 0, 2)
    assert bc.score == pytest.approx(2.0 / 3.0)
    ac = result.pair("A", "C")
    assert ac is not None
    assert (ac.ahead, ac.behind, ac.tied) == (2, 1, 0)
    assert len(result.head_to_head) == 6
    assert result.pair("A", "A") is None


def test_seat_bias_is_the_mean_of_each_seat() -> None:
    result = standings(three_sets())
    # Seat 0 holds A, B, C in games 0, 1, 2 of each cyclic set: set 0 -> (9, 6, 3), set 1 -> (12, 6, 1),
    # set 2 -> (20, 8, 3). Per-set seat-0 means: 6, 19/3, 31/3; over all nine games: 68/9.
    seat0 = result.seats[0]
    assert seat0.games == 9
    assert seat0.score.mean == pytest.approx(68.0 / 9.0)
    assert seat0.score.n == 3
    assert [s.seat for s in result.seats] == [0, 1, 2]
    # Every game's totals land in some seat: the seat means average to the overall mean per game.
    overall = sum(sum(g.totals) for r in three_sets() for g in r.games) / 27
    assert sum(s.score.mean for s in result.seats) / 3 == pytest.approx(overall)


def test_faults_and_start_failures_are_summed() -> None:
    record = make_set(
        0,
        {"A": [1, 2], "B": [2, 1]},
        faults={
            (0, "A"): {FaultCode.TIMEOUT: 2},
            (1, "A"): {FaultCode.TIMEOUT: 1, FaultCode.ILLEGAL: 1},
            (1, "B"): {FaultCode.MALFORMED: 3},
        },
        start_failed=[(1, "B")],
        forfeited=[(0, "A"), (1, "A")],
    )
    later = make_set(1, {"A": [1, 2], "B": [2, 1]}, faults={(0, "A"): {FaultCode.TIMEOUT: 4}})
    # Read back from the results file's form, as the codes are written: the code of each count stays a FaultCode.
    result = standings([record, decode_set(encode_set(later))])
    assert result.bot("A").faults == {FaultCode.ILLEGAL: 1, FaultCode.TIMEOUT: 7}
    assert all(type(code) is FaultCode for code in result.bot("A").faults)
    assert result.bot("B").faults == {FaultCode.MALFORMED: 3}
    assert b'"faults":[{"timeout":4},{}]' in encode_set(later)  # the file's form is the codes' names, as before
    assert (result.bot("A").start_failures, result.bot("B").start_failures) == (0, 1)
    assert (result.bot("A").forfeits, result.bot("B").forfeits) == (2, 0)


def test_a_bot_in_two_seats_counts_once_per_game() -> None:
    game = GameRecord(index=0, seats=("A", "B", "A"), totals=(4, 3, 8), places=(2, 3, 1))
    record = SetRecord(
        set_id=0, seed="1", game="hearts", players=3, higher_is_better=True, bots=("A", "B", "A"), games=(game,)
    )
    result = standings([record])
    a = result.bot("A")
    # One game, won: its third seat finished first (issue 32: a win is any seat's, not the mean place's).
    assert (a.games, a.score.mean, a.mean_place, a.first_places, a.seats_per_game) == (1, 6.0, 1.5, 1, 2)
    ab = result.pair("A", "B")
    assert ab is not None and (ab.ahead, ab.behind, ab.tied) == (1, 0, 0)


def test_refuses_empty_and_mixed_results() -> None:
    with pytest.raises(StatsError, match="no finished sets"):
        standings([])
    mixed = [make_set(0, {"A": [1], "B": [2]}), make_set(1, {"A": [1], "B": [2]}, game="hearts")]
    with pytest.raises(StatsError, match="mix different games"):
        standings(mixed)


def test_units_needed_against_the_t_table() -> None:
    # Spread 10, difference 5: n = 17 gives t(16) · 10 / √17 = 2.120 · 2.425 = 5.14 > 5; n = 18 gives
    # t(17) · 10 / √18 = 2.110 · 2.357 = 4.97 ≤ 5.
    assert units_needed(10.0, 5.0) == 18
    assert units_needed(10.0, -5.0) == 18
    # Spread 0.8165, difference 2: n = 3 gives 4.303 · 0.471 = 2.03 > 2; n = 4 gives 3.182 · 0.408 = 1.30.
    assert units_needed(math.sqrt(2.0 / 3.0), 2.0) == 4
    assert units_needed(3.0, 0.0) == math.inf
    assert units_needed(0.0, 1.0) == 2


def test_duplicate_efficiency_on_hand_made_results() -> None:
    # Random deals: a − b per game = 10, −6, 8, −4: mean 2, s² = (64 + 64 + 36 + 36) / 3 = 200 / 3.
    singles = [make_set(i, {"a": [x], "b": [0]}) for i, x in enumerate([10, -6, 8, -4])]
    # Duplicate sets of two games: a − b per game = 1, 3, 2, 2: mean 2, s² = 2 / 3.
    sets = [make_set(i, {"a": [d, d], "b": [0, 0]}) for i, d in enumerate([1, 3, 2, 2])]
    result = duplicate_efficiency(singles, sets, "a", "b")
    assert result.difference == pytest.approx(2.0)
    assert result.random_spread == pytest.approx(math.sqrt(200.0 / 3.0))
    assert result.set_spread == pytest.approx(math.sqrt(2.0 / 3.0))
    assert result.games_per_set == 2
    assert result.duplicate_sets == 4
    # (1.96 · 8.165 / 2)² = 64.03; walking up with t: n = 66 gives 1.9971 · 8.165 / 8.124 = 2.007 > 2, n = 67 fits.
    assert result.random_games == 67
    assert result.ratio == pytest.approx(67 / 8)
    with pytest.raises(StatsError, match="at least 2 random-deal games"):
        duplicate_efficiency(singles[:1], sets, "a", "b")
