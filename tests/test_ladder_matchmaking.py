"""Matchmaking: uncertain and new bots play more, tables by nearby rating plus some random, one version per owner."""

from __future__ import annotations

import random
from collections import Counter

from competition.ladder.matchmaking import Candidate, plan_tables


def _field(count: int = 12) -> list[Candidate]:
    return [Candidate(f"b{i}", mu=10.0 + 2.0 * i, sigma=2.0, sets=50) for i in range(count)]


def test_a_new_uncertain_bot_is_planned_far_more_often_than_settled_ones() -> None:
    field = [*_field(), Candidate("new", mu=25.0, sigma=25.0 / 3.0, sets=0)]
    tables = plan_tables(field, 4, 24, random.Random(1))  # a run's plan: a few dozen sets ahead at most
    seats = Counter(label for table in tables for label in set(table))
    settled = sorted(seats[b.label] for b in field if b.label != "new")
    assert seats["new"] > 2 * settled[len(settled) // 2]


def test_planned_sets_count_so_one_bot_is_not_planned_over_and_over() -> None:
    field = [*_field(), Candidate("new", mu=25.0, sigma=25.0 / 3.0, sets=0)]
    alone = Counter(label for table in plan_tables(field, 4, 40, random.Random(2)) for label in table)
    pending = [("new", "b1", "b2", "b3")] * 30
    crowded = Counter(
        label for table in plan_tables(field, 4, 40, random.Random(2), pending=pending) for label in table
    )
    assert crowded["new"] < alone["new"]


def test_opponents_are_mostly_of_nearby_rating() -> None:
    field = _field(20)
    rng = random.Random(3)
    tables = plan_tables(field, 4, 300, rng)
    mu = {b.label: b.mu for b in field}
    spreads = [max(mu[b] for b in table) - min(mu[b] for b in table) for table in tables]
    full_range = max(mu.values()) - min(mu.values())
    spreads.sort()
    assert spreads[len(spreads) // 2] < full_range / 2  # the median table is drawn from a neighbourhood
    assert spreads[-1] > full_range / 2  # and some seats are drawn at random from the whole field


def test_at_most_one_version_per_owner_at_a_table() -> None:
    field = [Candidate(f"b{i}", mu=25.0, sigma=5.0, owner=f"o{i % 3}") for i in range(9)]
    for table in plan_tables(field, 3, 200, random.Random(4)):
        owners = [int(label[1:]) % 3 for label in table]
        assert len(set(owners)) == 3


def test_bots_without_an_owner_are_not_constrained() -> None:
    field = [Candidate(f"b{i}", mu=25.0, sigma=5.0) for i in range(4)]
    tables = plan_tables(field, 4, 10, random.Random(5))
    assert all(len(set(table)) == 4 for table in tables)


def test_a_bot_never_sits_twice_at_a_table_so_fewer_bots_or_owners_than_seats_get_none() -> None:
    two = [Candidate("a", 25.0, 5.0), Candidate("b", 25.0, 5.0)]
    assert plan_tables(two, 4, 5, random.Random(6)) == []
    three = [*two, Candidate("c", 25.0, 5.0)]
    assert plan_tables(three, 4, 5, random.Random(6)) == []
    assert all(sorted(t) == ["a", "b", "c"] for t in plan_tables(three, 3, 5, random.Random(6)))
    owners = [Candidate(label, 25.0, 5.0, owner=owner) for label, owner in zip("abcd", "xxyz", strict=True)]
    assert plan_tables(owners, 4, 5, random.Random(6)) == []  # three owners for four seats
    same_owner = [Candidate("a", 25.0, 5.0, owner="x"), Candidate("b", 25.0, 5.0, owner="x")]
    assert plan_tables(same_owner, 4, 5, random.Random(6)) == []
    assert plan_tables(two[:1], 4, 5, random.Random(6)) == []


def test_the_same_generator_plans_the_same_tables() -> None:
    field = _field()
    assert plan_tables(field, 4, 20, random.Random(7)) == plan_tables(field, 4, 20, random.Random(7))
