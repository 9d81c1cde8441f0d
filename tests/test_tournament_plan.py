"""The plan of a tournament (tables, rotations, seeds) and the results file: pure data, no bot processes."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from competition.model import GameRecord, SetRecord, encode_set
from competition.plan import (
    Plan,
    PlanError,
    parse_bot_argument,
    parse_bots_file,
    rotations,
    set_rotations,
    tournament_set_seed,
)
from competition.results_file import ResultsError, ResultsFile, read_results


def _bots(count: int) -> tuple[str, ...]:
    return tuple(f"b{i}" for i in range(count))


def _pair_counts(plan: Plan, sets: int) -> list[int]:
    pairs = Counter(frozenset(p) for s in plan.sets(sets) for p in itertools.combinations(set(s.table), 2))
    return [pairs[frozenset(p)] for p in itertools.combinations(plan.bots, 2)]


@pytest.mark.parametrize(("bots", "seats", "rounds"), [(5, 4, 3), (7, 3, 2), (8, 4, 1), (6, 4, 1), (12, 4, 1)])
def test_round_robin_with_more_bots_than_seats_is_balanced(bots: int, seats: int, rounds: int) -> None:
    plan = Plan("round-robin", _bots(bots), seats, seed="99")
    sets = plan.sets(plan.round_length * rounds)
    per_bot = Counter(b for s in sets for b in s.table)
    assert set(per_bot) == set(plan.bots) and len(set(per_bot.values())) == 1  # equal sets per bot
    assert all(len(set(s.table)) == seats for s in sets)  # nobody twice at a table
    counts = _pair_counts(plan, plan.round_length * rounds)
    assert max(counts) - min(counts) <= 1


def test_fewer_bots_than_seats_fill_several_seats_evenly() -> None:
    plan = Plan("round-robin", _bots(3), 4, seed="1")
    sets = plan.sets(plan.round_length)
    assert plan.round_length == 3
    seats = Counter(b for s in sets for b in s.table)
    assert seats == {"b0": 4, "b1": 4, "b2": 4}


def test_gauntlet_puts_the_candidate_at_every_table() -> None:
    plan = Plan("gauntlet", _bots(6), 4, seed="3", candidate="b2")
    sets = plan.sets(plan.round_length * 2)
    assert all("b2" in s.table for s in sets)
    field = Counter(b for s in sets for b in s.table if b != "b2")
    assert len(set(field.values())) == 1
    with pytest.raises(PlanError, match="--candidate"):
        Plan("gauntlet", _bots(3), 4, seed="3")
    with pytest.raises(PlanError, match="not one of the bots"):
        Plan("gauntlet", _bots(3), 4, seed="3", candidate="zz")


def test_paired_sets_share_deals_and_swap_only_the_candidate() -> None:
    plan = Plan("paired", ("new", "old", "f1", "f2", "f3"), 4, seed="8", candidate="new", baseline="old")
    sets = plan.sets(6)
    for first, second in zip(sets[::2], sets[1::2], strict=True):
        assert first.seed == second.seed and first.rotations == second.rotations
        assert "new" in first.table and "old" not in first.table
        assert second.table == tuple("old" if b == "new" else b for b in first.table)
    assert len({s.seed for s in sets}) == 3


def test_rotations() -> None:
    assert rotations(4, "cyclic") == ((0, 1, 2, 3), (3, 0, 1, 2), (2, 3, 0, 1), (1, 2, 3, 0))
    assert len(rotations(4, "all")) == 24 and len(rotations(3, "all")) == 6
    for seat in range(4):  # cyclic: every table position sits once at every seat
        assert sorted(r[seat] for r in rotations(4, "cyclic")) == [0, 1, 2, 3]
    assert len(set_rotations(("a", "b", "a", "b"), "cyclic")) == 2  # the same bots in the same seats: once


def test_set_seeds_are_keyed_by_the_tournament_seed() -> None:
    seeds = [tournament_set_seed("a tournament", i) for i in range(1, 200)]
    assert len(set(seeds)) == len(seeds) and all(len(s) == 32 and int(s, 16) >= 0 for s in seeds)  # 128 bits
    assert tournament_set_seed("a tournament", 1) == seeds[0] and tournament_set_seed("a tournament!", 1) != seeds[0]
    assert Plan("round-robin", _bots(5), 4, seed="7").sets(10) == Plan("round-robin", _bots(5), 4, seed="7").sets(10)


def test_bot_arguments_and_files(tmp_path: Path) -> None:
    assert parse_bot_argument("me=python3 bot.py --x").command == "python3 bot.py --x"
    with pytest.raises(PlanError, match="NAME=COMMAND"):
        parse_bot_argument("python3 bot.py")
    with pytest.raises(PlanError, match="bot name"):
        parse_bot_argument("bad name=x")
    path = tmp_path / "bots.toml"
    path.write_text(
        '[[bot]]\nname = "a"\ncommand = "sample:heuristic"\ncwd = "sub"\nenv = { X = "1" }\ntime = { move_ms = 50 }\n'
        '[[bot]]\nname = "b"\ncommand = "sample:random"\n'
    )
    with pytest.raises(PlanError, match=r"bot 1: cwd 'sub' is not a folder \("):  # found now, not as start failures
        parse_bots_file(path)
    (tmp_path / "sub").mkdir()
    a, b = parse_bots_file(path)
    assert (a.name, a.cwd, a.env, a.time.move_ms) == ("a", str(tmp_path / "sub"), (("X", "1"),), 50)
    assert b.time.move_ms is None
    path.write_text('[[bot]]\nname = "a"\ncommand = "x"\ncolour = 3\n')
    with pytest.raises(PlanError, match="unknown key"):
        parse_bots_file(path)


def _record(set_id: int) -> SetRecord:
    game = GameRecord(index=0, seats=("a", "b", "a", "b"), totals=(1, 2, 3, 4), places=(1, 2, 3, 4))
    return SetRecord(
        set_id=set_id, seed="1", game="hearts", players=4, higher_is_better=False, bots=game.seats, games=(game,)
    )


def test_results_file_ignores_and_cuts_a_partial_last_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    results, records = ResultsFile.open(path)
    assert records == []
    with results:
        results.append(_record(1))
        results.append(_record(2))
    whole = path.read_bytes()
    path.write_bytes(whole + encode_set(_record(3))[:-7])  # a kill in the middle of a line
    assert [r.set_id for r in read_results(path)[0]] == [1, 2]
    results, records = ResultsFile.open(path)
    with results:
        assert [r.set_id for r in records] == [1, 2]
        assert path.read_bytes() == whole
        results.append(_record(3))
    assert [r.set_id for r in read_results(path)[0]] == [1, 2, 3]


def test_one_run_at_a_time_writes_a_results_file(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    first, _ = ResultsFile.open(path)
    with first, pytest.raises(ResultsError, match="another kierki tournament is writing"):
        ResultsFile.open(path)
    second, _ = ResultsFile.open(path)  # free again once the first is closed
    second.close()
