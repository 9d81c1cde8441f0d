"""Issue 22 in the ladder: a name belongs to its owner, a new version only for a changed program, reactivation,
fair tables (a bot never twice at one), standings ranked 1..n in their groups, cancelled apart from voided, and
the upgrade of an older database (migration 3: the ratings recomputed once under the ranking rule, logged)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from competition_helpers import make_set, short_ladder

from competition.ladder.config import BotSettings, RunSettings
from competition.ladder.ladder import changed_programs, init_ladder, readd_hint
from competition.ladder.schema import StoreError, migrate
from competition.ladder.standings import standings
from competition.ladder.store import Store
from competition.ladder.store_records import NameTaken
from competition.model import SetRecord, encode_set
from competition.ratings import rate
from kierki_cli.main import cli


def _seed(set_id: int) -> str:
    return f"seed-{set_id}"


def test_a_name_belongs_to_its_owner_and_an_unchanged_bot_is_left_alone(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.sqlite", create=True) as store:
        first = store.add_bot("perl", "perl bot.pl", "/", owner="erin", program="/b/bot.pl", program_hash="1")
        with pytest.raises(NameTaken, match=r"^perl belongs to erin: choose another name$"):
            store.add_bot("perl", "python3 random_bot.py", "/", owner="mallory")
        with pytest.raises(NameTaken, match="belongs to erin"):
            store.add_bot("perl", "perl bot.pl", "/", program="/b/bot.pl", program_hash="1")  # no owner is another
        again = store.add_bot("perl", "perl bot.pl", "/", owner="erin", program="/b/bot.pl", program_hash="1")
        assert again.unchanged and again.bot == first.bot and not again.retired
        assert [b.label for b in store.bots()] == ["perl@1"]  # nothing touched: its rating and results stay
        changed = store.add_bot("perl", "perl bot.pl", "/", owner="erin", program="/b/bot.pl", program_hash="2")
        assert changed.bot.label == "perl@2" and [b.label for b in changed.retired] == ["perl@1"]
        forced = store.add_bot(
            "perl", "perl bot.pl", "/", owner="erin", program="/b/bot.pl", program_hash="2", new_version=True
        )
        assert forced.bot.label == "perl@3"


def test_reactivate_brings_a_bot_back_with_its_rating_and_logs_why(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.sqlite", create=True) as store:
        for name in "abc":
            store.add_bot(name, f"run {name}", "/")
        run = store.start_run(1, "here")
        store.plan([("a@1", "b@1", "c@1")], _seed)
        claimed = store.claim_next(run, 1, "here")
        assert claimed is not None
        record = make_set(claimed.set_id, {"a@1": [1, 2, 3], "b@1": [3, 2, 1], "c@1": [5, 5, 5]}, game="hearts")
        store.record(run, record, dict.fromkeys(claimed.table), deactivate_after=3)
        rating = store.ratings()["a@1"]
        store.deactivate("a@1", "the server's disk was full")
        with pytest.raises(StoreError, match="no bot 'zz'"):
            store.reactivate("zz", "x")
        bot = store.reactivate("a", "the disk was fixed")
        assert bot.status == "active" and bot.reason is None and bot.failures == 0
        assert store.ratings()["a@1"] == rating
        (event,) = store.events()
        assert event.label == "a@1" and event.event == "reactivated"
        assert event.detail == "was deactivated (the server's disk was full); the disk was fixed"
        with pytest.raises(StoreError, match="a@1 is active already"):
            store.reactivate("a@1", "again")
        store.retire("b")
        assert store.reactivate("b", "back").status == "active"


def test_a_table_never_seats_a_bot_twice_and_cancelled_is_not_voided(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.sqlite", create=True) as store:
        for name in "abc":
            store.add_bot(name, f"run {name}", "/")
        run = store.start_run(1, "here")
        store.plan([("a@1", "b@1", "c@1", "a@1"), ("a@1", "b@1", "c@1")], _seed)  # the first, by an older kierki
        claimed = store.claim_next(run, 1, "here")
        assert claimed is not None and claimed.table == ("a@1", "b@1", "c@1")
        (cancelled,) = store.sets("cancelled")
        assert cancelled.void_reason == "a bot was seated twice at its table"
        assert store.count("cancelled") == 1 and store.count("voided") == 0


def _version_2_ladder(path: Path) -> list[SetRecord]:
    """A database as the previous kierki left it: three bots, two played sets in which ``crashy`` forfeited every
    game with the best totals (so the old rule rated it first), and a planned set cancelled as it then was."""
    connection = sqlite3.connect(path, isolation_level=None)
    migrate(connection, target=2)
    connection.execute(
        "INSERT INTO rating_model (id, model, params, rated_through) VALUES (1, 'PlackettLuce', ?, 0)",
        (json.dumps({"mu": 25.0, "sigma": 25.0 / 3, "beta": 25.0 / 6, "kappa": 0.0001, "tau": 25.0 / 300}),),
    )
    records = []
    for bot_id, name in enumerate(("crashy", "b", "c"), 1):
        connection.execute(
            "INSERT INTO bots (id, label, name, version, command, cwd, status, created)"
            " VALUES (?, ?, ?, 1, 'run', '/', 'active', 0)",
            (bot_id, f"{name}@1", name),
        )
    for set_id in (1, 2):
        record = make_set(
            set_id,
            {"crashy@1": [0, 0, 0], "b@1": [5, 6, 7], "c@1": [9, 9, 9]},
            higher_is_better=False,
            game="hearts",
            forfeited=[(game, "crashy@1") for game in range(3)],
        )
        records.append(record)
        connection.execute(
            "INSERT INTO sets (id, status, seed, bots, planned, result, played) VALUES (?, 'played', 's', ?, 0, ?, 1)",
            (set_id, json.dumps(list(record.bots)), encode_set(record).decode().rstrip("\n")),
        )
    for bot_id, mu in ((1, 30.0), (2, 25.0), (3, 20.0)):  # what the old rule had rated
        connection.execute("INSERT INTO ratings VALUES (?, ?, 5.0, 2)", (bot_id, mu))
    connection.execute(
        "INSERT INTO sets (status, seed, bots, planned, void_reason) VALUES ('voided', 's', '[]', 0, ?)",
        ("d@1 left the ladder before the set was played",),
    )
    connection.close()
    return records


def test_an_older_database_is_upgraded_in_place_and_rerated_once_under_the_ranking_rule(tmp_path: Path) -> None:
    path = tmp_path / "ladder.sqlite"
    records = _version_2_ladder(path)
    with Store.open(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] >= 3
        assert [b.label for b in store.bots()] == ["b@1", "c@1", "crashy@1"]  # nothing lost
        assert store.results() == records
        assert store.ratings() == rate(records)  # recomputed: crashy is no longer first
        rows = standings(store)
        assert [r.label for r in rows] == ["b@1", "c@1", "crashy@1"] and rows[-1].rank is None
        (event,) = store.events()
        assert event.event == "rerated" and event.detail is not None
        assert event.detail.startswith("ratings recomputed from 2 sets under the ranking rule of issue 22")
        assert store.count("cancelled") == 1 and store.count("voided") == 0
    with Store.open(path) as store:  # once: opening again recomputes nothing more
        assert len(store.events()) == 1


def _cli_ladder(tmp_path: Path) -> Path:
    folder = tmp_path / "ladder"
    config = short_ladder(RunSettings(jobs=1, pin=False, plan_ahead=2), BotSettings(validation=False))
    init_ladder(folder, config)
    return folder


def test_the_cli_refuses_a_taken_name_says_unchanged_and_reactivates(tmp_path: Path) -> None:
    folder = _cli_ladder(tmp_path)
    runner = CliRunner()

    def add(*args: str) -> tuple[int, str]:
        result = runner.invoke(cli, ["ladder", "add", str(folder), *args])
        return result.exit_code, result.output

    assert add("perl", "--owner", "erin", "--", "sample:random") == (0, "added perl@1\n")
    assert add("perl", "--owner", "mallory", "--", "sample:heuristic") == (
        1,
        "Error: perl belongs to erin: choose another name\n",
    )
    code, output = add("perl", "--owner", "erin", "--", "sample:random")
    assert code == 0 and output.startswith("perl@1 is unchanged")
    assert add("perl", "--owner", "erin", "--new-version", "--", "sample:random")[1].startswith("added perl@2")
    for name in ("a", "b"):
        add(name, "--", "sample:random")
    run = runner.invoke(cli, ["ladder", "run", str(folder), "--sets", "1"])
    # Three active bots for four seats: nothing is played, and the run says why once.
    assert run.exit_code == 0 and run.output.count("nothing to play") == 1
    assert "3 active bots for 4 seats, and a bot never takes two seats at a table" in run.output
    status = runner.invoke(cli, ["ladder", "status", str(folder)]).output
    assert "0 voided (the referee failed), 0 cancelled" in status and "3 active bots for 4 seats" in status
    assert runner.invoke(cli, ["ladder", "retire", str(folder), "a"]).exit_code == 0
    back = runner.invoke(cli, ["ladder", "reactivate", str(folder), "a", "--reason", "asked to"])
    assert back.exit_code == 0 and "reactivated a@1" in back.output
    status = runner.invoke(cli, ["ladder", "status", str(folder)]).output
    assert " reactivated a@1: was retired (retired by the organiser); asked to\n" in status
    rows = json.loads(runner.invoke(cli, ["ladder", "standings", str(folder), "--json", "--all"]).output)
    assert [(r["label"], r["status"]) for r in rows][-1] == ("perl@1", "retired")


def test_a_changed_program_is_deactivated_with_a_hint_that_keeps_the_owner_and_no_path(tmp_path: Path) -> None:
    program = tmp_path / "secret-server-folder" / "bot.pl"
    program.parent.mkdir()
    program.write_text("print 1\n")
    with Store.open(tmp_path / "l.sqlite", create=True) as store:
        store.add_bot("perl", f"perl {program}", "/", owner="erin", program=str(program), program_hash="old")
        (reason,) = changed_programs(store).values()
        assert reason == (
            "its program file bot.pl changed since it was added; the organiser adds the new version with "
            "`kierki ladder add DIR perl --owner erin -- COMMAND`"
        )
        bot = store.bot("perl@1")
        assert bot is not None and readd_hint(bot) == f"kierki ladder add DIR perl --owner erin -- perl {program}"
