"""The ladder's database: migrations, the set life cycle, ratings as a cache of the results, voids and reclaims."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from competition_helpers import make_set
from openskill.models import PlackettLuce, PlackettLuceRating

from competition.ladder.schema import MIGRATIONS, SCHEMA_VERSION, StoreError, migrate
from competition.ladder.store import Store
from competition.ladder.store_records import BotStatus
from competition.model import SetRecord
from competition.ratings import RatingParams, rate, set_ranks


def _seed(set_id: int) -> str:
    return f"seed-{set_id}"


def _store(tmp_path: Path, bots: tuple[str, ...] = ("a", "b", "c")) -> Store:
    store = Store.open(tmp_path / "ladder.sqlite", create=True)
    for name in bots:
        store.add_bot(name, f"run {name}", str(tmp_path))
    return store


def _result(set_id: int, table: tuple[str, ...], rng: random.Random) -> SetRecord:
    scores = {bot: [rng.randrange(0, 26) for _ in table] for bot in dict.fromkeys(table)}
    record = make_set(set_id, scores, higher_is_better=False, game="hearts")
    return record


def _play(store: Store, run_id: int, count: int, rng: random.Random) -> list[SetRecord]:
    labels = [bot.label for bot in store.bots(BotStatus.ACTIVE)]
    store.plan([tuple(rng.sample(labels, 3)) for _ in range(count)], _seed)
    played = []
    for _ in range(count):
        claimed = store.claim_next(run_id, 1, "here")
        assert claimed is not None
        record = _result(claimed.set_id, claimed.table, rng)
        store.record(run_id, record, dict.fromkeys(claimed.table), deactivate_after=3)
        played.append(record)
    return played


def test_a_new_database_is_at_the_latest_schema_in_wal_mode(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == len(MIGRATIONS)
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_version_1_database_migrates_with_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    migrate(connection, target=1)
    connection.execute(
        "INSERT INTO bots (label, name, version, command, cwd, status, created)"
        " VALUES ('a@1', 'a', 1, 'run a', '/', 'active', 0)"
    )
    connection.execute("INSERT INTO sets (status, seed, bots, planned) VALUES ('planned', '5', '[\"a@1\"]', 0)")
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    columns = {row[1] for row in connection.execute("PRAGMA table_info(bots)")}
    assert "failures" not in columns
    connection.close()
    with Store.open(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (bot,) = store.bots()
        assert bot.label == "a@1" and bot.failures == 0
        assert store.count("planned") == 1
        assert store.history("a@1") == []
        assert store.uncompressed_before(1e12) == []  # the planned set is not played: nothing to compress


def test_a_failing_migration_leaves_the_database_at_its_old_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    migrate(connection, target=1)
    broken = (MIGRATIONS[0], (MIGRATIONS[1][0], "CREATE TABLE broken ("))
    monkeypatch.setattr("competition.ladder.schema.MIGRATIONS", broken)
    with pytest.raises(sqlite3.OperationalError):
        migrate(connection, target=2)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    columns = {row[1] for row in connection.execute("PRAGMA table_info(bots)")}
    assert "failures" not in columns  # the first statement of the migration was rolled back with it


def test_a_database_from_a_newer_kierki_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    with pytest.raises(StoreError, match="upgrade kierki"):
        Store.open(path)


def test_stored_ratings_equal_openskills_own_on_the_same_results(tmp_path: Path) -> None:
    rng = random.Random(3)
    with _store(tmp_path, ("a", "b", "c", "d", "e")) as store:
        run_id = store.start_run(1, "here")
        played = _play(store, run_id, 25, rng)
        stored = store.ratings()
        # openskill itself, driven directly: one Plackett–Luce update per set, ranked by the set totals.
        model = PlackettLuce()
        current: dict[str, PlackettLuceRating] = {}
        for record in played:
            ranks = set_ranks(record)
            bots = list(ranks)
            teams = [[current.get(bot) or model.rating(name=bot)] for bot in bots]
            for bot, (updated,) in zip(bots, model.rate(teams, ranks=[float(ranks[b]) for b in bots]), strict=True):
                current[bot] = updated
        assert set(stored) == set(current)
        for bot, rating in stored.items():
            theirs = current[bot]
            assert (rating.mu, rating.sigma) == (theirs.mu, theirs.sigma)
        assert stored == rate(store.results())
        assert store.rerate() == stored


def test_sets_finished_out_of_order_rate_as_in_set_order(tmp_path: Path) -> None:
    rng = random.Random(5)
    with _store(tmp_path) as store:
        run_id = store.start_run(1, "here")
        store.plan([("a@1", "b@1", "c@1")] * 4, _seed)
        claimed = [store.claim_next(run_id, 1, "here") for _ in range(4)]
        for item in reversed(claimed):  # the last claimed finishes first, as in a parallel run
            assert item is not None
            store.record(run_id, _result(item.set_id, item.table, rng), {}, deactivate_after=3)
        assert store.ratings() == rate(store.results())
        assert [h[0] for h in store.history("a@1")] == [1, 2, 3, 4]


def test_a_set_is_recorded_and_rated_once(tmp_path: Path) -> None:
    rng = random.Random(7)
    with _store(tmp_path) as store:
        run_id = store.start_run(1, "here")
        store.plan([("a@1", "b@1", "c@1")], _seed)
        claimed = store.claim_next(run_id, 1, "here")
        assert claimed is not None and claimed.seed == _seed(claimed.set_id)
        record = _result(claimed.set_id, claimed.table, rng)
        store.record(run_id, record, {}, deactivate_after=3)
        before = store.ratings()
        with pytest.raises(StoreError, match="not claimed"):
            store.record(run_id, record, {}, deactivate_after=3)
        assert store.ratings() == before and store.ratings()["a@1"].sets == 1
        assert len(store.results()) == 1 and store.runs()[0].sets_played == 1


def test_a_dead_runs_claim_is_reclaimed_and_its_late_result_refused(tmp_path: Path) -> None:
    rng = random.Random(9)
    with _store(tmp_path) as store:
        dead = store.start_run(111, "here")
        store.plan([("a@1", "b@1", "c@1")], _seed)
        claimed = store.claim_next(dead, 111, "here")
        assert claimed is not None
        assert store.reclaim_stale(3600, lambda pid, host: True) == []  # alive and recent: left alone
        assert store.reclaim_stale(3600, lambda pid, host: pid != 111) == [claimed.set_id]
        assert store.count("planned") == 1
        late = _result(claimed.set_id, claimed.table, rng)
        with pytest.raises(StoreError):
            store.record(dead, late, {}, deactivate_after=3)  # the dead run's result never lands
        current = store.start_run(222, "here")
        again = store.claim_next(current, 222, "here")
        assert again is not None and again.set_id == claimed.set_id
        store.record(current, late, {}, deactivate_after=3)
        assert store.count("played") == 1


def test_an_old_claim_is_reclaimed_even_if_its_process_seems_alive(tmp_path: Path) -> None:
    now = [1000.0]
    store = Store.open(tmp_path / "ladder.sqlite", create=True, clock=lambda: now[0])
    with store:
        store.add_bot("a", "run a", "/")
        store.add_bot("b", "run b", "/")
        run_id = store.start_run(1, "here")
        store.plan([("a@1", "b@1")], _seed)
        assert store.claim_next(run_id, 1, "here") is not None
        now[0] += 100
        assert store.reclaim_stale(3600, lambda pid, host: True) == []
        now[0] += 7200
        assert store.reclaim_stale(3600, lambda pid, host: True) == [1]


def test_a_voided_set_is_not_rated_and_is_planned_again(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        run_id = store.start_run(1, "here")
        store.plan([("a@1", "b@1", "c@1")], _seed)
        claimed = store.claim_next(run_id, 1, "here")
        assert claimed is not None
        new_id = store.void(run_id, claimed.set_id, "the referee failed", _seed)
        assert new_id is not None and new_id != claimed.set_id
        (voided,) = store.sets("voided")
        (planned,) = store.sets("planned")
        assert voided.void_reason == "the referee failed" and planned.table == claimed.table
        assert store.ratings() == {} and store.runs()[0].sets_voided == 1


def test_consecutive_failures_deactivate_a_bot_and_a_clean_set_resets_the_count(tmp_path: Path) -> None:
    rng = random.Random(11)
    with _store(tmp_path) as store:
        run_id = store.start_run(1, "here")
        table = ("a@1", "b@1", "c@1")
        store.plan([table] * 5, _seed)
        outcomes = ["crashed", None, "crashed", "crashed", "could not start: boom"]
        deactivated = {}
        for why in outcomes:
            claimed = store.claim_next(run_id, 1, "here")
            assert claimed is not None
            deactivated = store.record(
                run_id, _result(claimed.set_id, table, rng), {"a@1": why, "b@1": None}, deactivate_after=3
            )
        assert deactivated == {"a@1": "3 sets in a row failed; the last: could not start: boom"}
        bot = store.bot("a@1")
        assert bot is not None and bot.status == "deactivated" and bot.failures == 3
        store.plan([table], _seed)
        assert store.claim_next(run_id, 1, "here") is None  # a set with a deactivated bot is never played
        assert store.sets()[-1].status == "cancelled"  # not "voided": the referee did not fail it


def test_a_new_version_retires_the_old_one_and_starts_clean(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        added = store.add_bot("a", "run a2", "/")
        bot, retired = added.bot, added.retired
        assert bot.label == "a@2" and [b.label for b in retired] == ["a@1"]
        old = store.bot("a@1")
        assert old is not None and old.status == "retired"
        assert [b.label for b in store.bots(BotStatus.ACTIVE)] == ["a@2", "b@1", "c@1"]


def test_the_models_parameters_are_stored_as_an_older_kierki_stored_them(tmp_path: Path) -> None:
    """The ``params`` column keeps its one form (json.dumps's spacing) whichever kierki wrote it, and reads back."""
    store = _store(tmp_path)
    store.rerate()
    (default,) = store.db.execute("SELECT params FROM rating_model").fetchone()
    assert default == (
        '{"mu": 25.0, "sigma": 8.333333333333334, "beta": 4.166666666666667, "kappa": 0.0001, '
        '"tau": 0.08333333333333333}'
    )
    store.set_rating_params(RatingParams(mu=30.0, tau=0.0))
    (given,) = store.db.execute("SELECT params FROM rating_model").fetchone()
    assert given == '{"mu": 30.0, "sigma": 8.333333333333334, "beta": 4.166666666666667, "kappa": 0.0001, "tau": 0.0}'
    assert store.rating_params() == RatingParams(mu=30.0, tau=0.0)
