"""The ranking rule (issue 22): a seat the fallback played (in part) finishes last in that game, for ratings,
places and wins; its points are kept, marked as the fallback's; a bot that never played a game of its own is
listed, never ranked; working bots above dropped ones; every output says so."""

from __future__ import annotations

import csv
import io
import json

from competition_helpers import make_set

from competition.model import GameRecord, SetRecord
from competition.ratings import set_ranks
from competition.report import format_table, standings_csv, standings_json
from competition.stats import standings

ALL_GAMES = range(4)


def test_a_fallback_seat_finishes_last_whatever_its_points() -> None:
    game = GameRecord(index=0, seats=("a", "b", "c", "d"), totals=(5, 20, 10, 0), places=(3, 1, 2, 4))
    assert game.ranked_places == (3, 1, 2, 4)
    crashed = GameRecord(
        index=0, seats=("a", "b", "c", "d"), totals=(5, 20, 10, 0), places=(3, 1, 2, 4), forfeited=(False, True) * 2
    )
    assert crashed.ranked_places == (2, 3, 1, 3)  # b (best points) and d: tied last; a and c keep their order
    unstarted = GameRecord(
        index=0, seats=("a", "b", "c"), totals=(5, 5, 1), places=(1, 1, 3), start_failed=(True, False, False)
    )
    assert unstarted.ranked_places == (3, 1, 2)
    assert crashed.place_of("b") == 3 and crashed.places == (3, 1, 2, 4)  # the referee's places stay recorded


def nostart_sets(count: int = 3) -> list[SetRecord]:
    """Hearts (lower is better): ``nostart`` never starts, and the fallback's points are the best at the table."""
    return [
        make_set(
            i,
            {
                "nostart": [10, 10, 10, 10],
                "heur": [20, 22, 21, 20],
                "rand": [40, 41, 45, 39],
                "rand2": [35, 50, 44, 30],
            },
            higher_is_better=False,
            start_failed=[(g, "nostart") for g in ALL_GAMES],
            forfeited=[(g, "nostart") for g in ALL_GAMES],
        )
        for i in range(1, count + 1)
    ]


def test_set_ranks_put_the_fallback_below_every_bot_that_played() -> None:
    record = nostart_sets(1)[0]
    assert set_ranks(record) == {"heur": 1, "rand2": 2, "rand": 3, "nostart": 4}
    # One forfeited game out of four is enough to rank below every bot that played all of its own.
    once = make_set(
        1, {"a": [0, 0, 0, 0], "b": [9, 9, 9, 9], "c": [5, 5, 5, 5]}, higher_is_better=False, forfeited=[(2, "a")]
    )
    assert set_ranks(once) == {"c": 1, "b": 2, "a": 3}


def test_a_bot_that_never_started_is_listed_not_ranked() -> None:
    table = standings(nostart_sets(), status={"nostart": ("dropped", "3 start failures in a row")})
    assert [b.bot for b in table.bots] == ["heur", "rand2", "rand", "nostart"]
    assert [b.rank for b in table.bots] == [1, 2, 3, None]
    nostart = table.bot("nostart")
    assert nostart.status == "dropped" and nostart.reason == "3 start failures in a row"
    assert nostart.first_places == 0 and nostart.mean_place == 4.0
    assert nostart.fallback_games == 12 and nostart.fallback_score == 10.0
    assert nostart.score.mean == 10.0  # its points are still recorded and shown
    assert nostart.start_failures == 12 and nostart.forfeits == 12
    assert table.bot("heur").first_places == 12


def test_working_bots_are_ranked_above_dropped_ones() -> None:
    # "crashy" forfeits one game a set and otherwise wins everything: rated high, yet dropped: below the others.
    sets = [
        make_set(
            i,
            {"crashy": [1, 1, 1, 1], "a": [5, 6, 5, 6], "b": [9, 9, 9, 9]},
            higher_is_better=False,
            forfeited=[(3, "crashy")],
        )
        for i in range(1, 4)
    ]
    plain = standings(sets)
    assert [b.bot for b in plain.bots][-1] == "crashy"  # forfeits never flatter: last by the rule alone
    table = standings(sets, status={"a": ("dropped", "dropped after its sets")})
    assert [(b.bot, b.rank, b.status) for b in table.bots] == [
        ("b", 1, "ok"),
        ("crashy", 2, "ok"),
        ("a", 3, "dropped"),
    ]
    assert table.bot("crashy").fallback_games == 3


def test_every_output_says_the_status_and_counts() -> None:
    table = standings(nostart_sets(), status={"nostart": ("dropped", "3 start failures in a row")})
    data = standings_json(table)
    nostart = data["bots"][-1]
    assert nostart["rank"] is None and nostart["status"] == "dropped" and nostart["reason"].startswith("3 start")
    assert (nostart["start_failures"], nostart["forfeits"], nostart["fallback_games"]) == (12, 12, 12)
    assert nostart["fallback_points_per_game"] == 10.0
    json.dumps(data, allow_nan=False)
    assert data["bots"][0]["fallback_points_per_game"] is None
    rows = list(csv.DictReader(io.StringIO(standings_csv(table))))
    assert (rows[-1]["rank"], rows[-1]["status"], rows[-1]["start_failures"], rows[-1]["forfeits"]) == (
        "",
        "dropped",
        "12",
        "12",
    )
    assert rows[0]["status"] == "ok"
    text = format_table(table).splitlines()
    last = text[2 + 3].split()
    assert last[:3] == ["–", "nostart", "dropped"] and last[-4:] == ["0", "12", "12", "–"]
    assert "10.0 ± 0.0*" in text[5]
    assert any(line.startswith("* nostart: the fallback played (in part) 12 of its 12 games") for line in text)
    assert "dropped nostart: 3 start failures in a row" in text


def test_sprt_counts_a_fallback_game_as_the_tables_worst_total() -> None:
    from competition.sprt import paired_difference

    # Hearts: "new" forfeits game 0, where the fallback scores 0 (the best); the old version scores 10 there.
    new = make_set(
        1,
        {"new": [0, 10, 10, 10], "f": [5, 5, 5, 5], "g": [20, 20, 20, 20]},
        higher_is_better=False,
        forfeited=[(0, "new")],
    )
    old = make_set(2, {"old": [10, 10, 10, 10], "f": [5, 5, 5, 5], "g": [20, 20, 20, 20]}, higher_is_better=False)
    old = type(old)(**{**{f: getattr(old, f) for f in old.__struct_fields__}, "seed": new.seed})
    # The forfeited game counts 20 (the table's worst), not 0: new is worse by 10 over 4 games.
    assert paired_difference(new, old, "new", "old") == -2.5
