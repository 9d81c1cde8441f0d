"""The ladder's database: bots, planned and played sets, the ratings cache and the runs, in one SQLite file.

SQLite in WAL mode with ``synchronous=FULL``: a commit is on disk when it returns, readers (``status``, ``site``)
never block the run, and a process killed at any instant leaves the database as of its last commit. The schema is
versioned by ``PRAGMA user_version``; each migration runs in one transaction with the version bump, so a database is
always at exactly one version.

A set moves ``planned -> claimed -> played`` (or ``voided``). Its result (a ``SetRecord``) and its status are
committed in one ``BEGIN IMMEDIATE`` transaction, together with its rating update, which only happens on the
``claimed -> played`` transition of the run that holds the claim: a set is rated once or not at all. Results are the
truth and ratings a cache: ``rerate`` recomputes them from the results with the stored model parameters.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from competition.model import SetRecord, decode_set, encode_set
from competition.ratings import Rating, RatingParams, rate_steps

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Bot",
    "ClaimedSet",
    "RunInfo",
    "SetRow",
    "Store",
    "StoreError",
    "migrate",
]

BotStatus = Literal["active", "retired", "deactivated"]
SetStatus = Literal["planned", "claimed", "played", "voided"]
MODEL = "openskill.PlackettLuce"

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: the first schema
        """CREATE TABLE bots (
            id INTEGER PRIMARY KEY,
            label TEXT NOT NULL UNIQUE,  -- name@version: the bot's name in set records and ratings
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            owner TEXT,
            command TEXT NOT NULL,
            cwd TEXT NOT NULL,
            program TEXT,  -- the program file the command names, when it names one
            program_hash TEXT,
            status TEXT NOT NULL CHECK (status IN ('active', 'retired', 'deactivated')),
            reason TEXT,
            created REAL NOT NULL,
            UNIQUE (name, version))""",
        """CREATE TABLE sets (
            id INTEGER PRIMARY KEY,
            status TEXT NOT NULL CHECK (status IN ('planned', 'claimed', 'played', 'voided')),
            seed TEXT NOT NULL,
            bots TEXT NOT NULL,  -- JSON list of labels, in the seat order of the set's first game
            planned REAL NOT NULL,
            claim_run INTEGER,
            claim_pid INTEGER,
            claim_host TEXT,
            claimed REAL,
            result TEXT,  -- the SetRecord as JSON, once played
            played REAL,
            void_reason TEXT,
            replaces INTEGER REFERENCES sets(id))""",
        "CREATE INDEX sets_by_status ON sets (status, id)",
        """CREATE TABLE ratings (
            bot_id INTEGER PRIMARY KEY REFERENCES bots(id),
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            sets INTEGER NOT NULL)""",
        """CREATE TABLE rating_model (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            model TEXT NOT NULL,
            params TEXT NOT NULL,
            rated_through INTEGER NOT NULL DEFAULT 0)""",
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            started REAL NOT NULL,
            finished REAL,
            pid INTEGER NOT NULL,
            host TEXT NOT NULL,
            sets_played INTEGER NOT NULL DEFAULT 0,
            sets_voided INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
            message TEXT)""",
    ),
    (  # 2: consecutive failures per bot (deactivation), the rating after every set (the site's plots), and which
        # sets' replays are compressed (so a run looks only at the sets it has not compressed yet)
        "ALTER TABLE bots ADD COLUMN failures INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE sets ADD COLUMN compressed INTEGER NOT NULL DEFAULT 0",
        """CREATE TABLE rating_history (
            set_id INTEGER NOT NULL REFERENCES sets(id),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            PRIMARY KEY (set_id, bot_id))""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(RuntimeError):
    """The database cannot be opened or is from a newer kierki; the message says what to do."""


@dataclass(frozen=True)
class Bot:
    id: int
    label: str
    name: str
    version: int
    owner: str | None
    command: str
    cwd: str
    program: str | None
    program_hash: str | None
    status: BotStatus
    reason: str | None
    created: float
    failures: int


@dataclass(frozen=True)
class ClaimedSet:
    set_id: int
    seed: str
    table: tuple[str, ...]


@dataclass(frozen=True)
class SetRow:
    set_id: int
    status: SetStatus
    table: tuple[str, ...]
    record: SetRecord | None
    played: float | None
    void_reason: str | None


@dataclass(frozen=True)
class RunInfo:
    id: int
    started: float
    finished: float | None
    pid: int
    host: str
    sets_played: int
    sets_voided: int
    status: str
    message: str | None


def migrate(connection: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the database up to schema ``target``, one transaction per migration; returns the version before."""
    before = cast(int, connection.execute("PRAGMA user_version").fetchone()[0])
    if before > SCHEMA_VERSION:
        raise StoreError(
            f"the ladder database has schema version {before}, newer than this kierki knows ({SCHEMA_VERSION}): "
            "upgrade kierki"
        )
    for version in range(before + 1, target + 1):
        connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in MIGRATIONS[version - 1]:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {version}")  # transactional: it lives in the header page
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")
    return before


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, durable commits, waiting on locks."""
    try:
        connection = sqlite3.connect(path, isolation_level=None, timeout=60.0)
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as error:
        raise StoreError(f"cannot open the ladder database {path}: {error}") from None
    return connection


class Store:
    def __init__(self, connection: sqlite3.Connection, *, clock: Callable[[], float] = time.time) -> None:
        self.db = connection
        self.clock = clock

    @classmethod
    def open(cls, path: Path, *, create: bool = False, clock: Callable[[], float] = time.time) -> Store:
        if not create and not path.exists():
            raise StoreError(f"{path} does not exist: create the ladder with `kierki ladder init`")
        connection = connect(path)
        migrate(connection)
        return cls(connection, clock=clock)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE``: the write lock is taken at once, so two writers never both read and then update."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # --- bots --------------------------------------------------------------------------------------------------

    def add_bot(
        self,
        name: str,
        command: str,
        cwd: str,
        *,
        owner: str | None = None,
        program: str | None = None,
        program_hash: str | None = None,
    ) -> tuple[Bot, list[Bot]]:
        """Register a new version of ``name``; earlier active versions are retired (kept, with their results)."""
        with self.transaction() as db:
            earlier = [
                self._bot(row) for row in db.execute(_BOT_SELECT + " WHERE name = ? AND status = 'active'", (name,))
            ]
            db.execute(
                "UPDATE bots SET status = 'retired', reason = 'a new version was added'"
                " WHERE name = ? AND status = 'active'",
                (name,),
            )
            version = cast(
                int, db.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM bots WHERE name = ?", (name,)).fetchone()[0]
            )
            db.execute(
                "INSERT INTO bots (label, name, version, owner, command, cwd, program, program_hash, status, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)",
                (f"{name}@{version}", name, version, owner, command, cwd, program, program_hash, self.clock()),
            )
            bot = self._bot(db.execute(_BOT_SELECT + " WHERE name = ? AND version = ?", (name, version)).fetchone())
        return bot, earlier

    def bots(self, status: BotStatus | None = None) -> list[Bot]:
        if status is None:
            rows = self.db.execute(_BOT_SELECT + " ORDER BY name, version")
        else:
            rows = self.db.execute(_BOT_SELECT + " WHERE status = ? ORDER BY name, version", (status,))
        return [self._bot(row) for row in rows]

    def bot(self, label: str) -> Bot | None:
        row = self.db.execute(_BOT_SELECT + " WHERE label = ?", (label,)).fetchone()
        return None if row is None else self._bot(row)

    def retire(self, name: str) -> list[Bot]:
        """Retire every active version of ``name`` (it is never scheduled again; its results stay)."""
        with self.transaction() as db:
            bots = [
                self._bot(row) for row in db.execute(_BOT_SELECT + " WHERE name = ? AND status = 'active'", (name,))
            ]
            db.execute(
                "UPDATE bots SET status = 'retired', reason = 'retired by the organiser'"
                " WHERE name = ? AND status = 'active'",
                (name,),
            )
        return bots

    def deactivate(self, label: str, reason: str) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE bots SET status = 'deactivated', reason = ? WHERE label = ? AND status = 'active'",
                (reason, label),
            )

    @staticmethod
    def _bot(row: Sequence[Any]) -> Bot:
        return Bot(*row)

    # --- sets --------------------------------------------------------------------------------------------------

    def plan(
        self, tables: Iterable[Sequence[str]], seed_for: Callable[[int], str], *, replaces: int | None = None
    ) -> list[int]:
        """Add planned sets, one per table; each set's seed is ``seed_for(its id)``."""
        ids = []
        with self.transaction() as db:
            for table in tables:
                cursor = db.execute(
                    "INSERT INTO sets (status, seed, bots, planned, replaces) VALUES ('planned', '', ?, ?, ?)",
                    (json.dumps(list(table)), self.clock(), replaces),
                )
                set_id = cast(int, cursor.lastrowid)
                db.execute("UPDATE sets SET seed = ? WHERE id = ?", (seed_for(set_id), set_id))
                ids.append(set_id)
        return ids

    def count(self, status: SetStatus) -> int:
        return cast(int, self.db.execute("SELECT COUNT(*) FROM sets WHERE status = ?", (status,)).fetchone()[0])

    def pending_tables(self) -> list[tuple[str, ...]]:
        """The tables of the sets planned or claimed and not yet played (matchmaking counts them)."""
        rows = self.db.execute("SELECT bots FROM sets WHERE status IN ('planned', 'claimed') ORDER BY id")
        return [tuple(json.loads(row[0])) for row in rows]

    def claim_next(self, run_id: int, pid: int, host: str) -> ClaimedSet | None:
        """Claim the oldest planned set whose bots are all still active; sets with a bot that left are voided."""
        with self.transaction() as db:
            active = {row[0] for row in db.execute("SELECT label FROM bots WHERE status = 'active'")}
            for set_id, seed, bots in db.execute(
                "SELECT id, seed, bots FROM sets WHERE status = 'planned' ORDER BY id"
            ).fetchall():
                table = tuple(json.loads(bots))
                gone = sorted(set(table) - active)
                if gone:
                    db.execute(
                        "UPDATE sets SET status = 'voided', void_reason = ? WHERE id = ?",
                        (f"{', '.join(gone)} left the ladder before the set was played", set_id),
                    )
                    continue
                db.execute(
                    "UPDATE sets SET status = 'claimed', claim_run = ?, claim_pid = ?, claim_host = ?, claimed = ?"
                    " WHERE id = ?",
                    (run_id, pid, host, self.clock(), set_id),
                )
                return ClaimedSet(set_id, seed, table)
        return None

    def reclaim_stale(self, timeout_s: float, alive: Callable[[int, str], bool]) -> list[int]:
        """Claimed sets whose run died (its process is gone, or the claim is older than ``timeout_s``): planned
        again, to be played from the start."""
        now = self.clock()
        with self.transaction() as db:
            stale = [
                set_id
                for set_id, pid, host, claimed in db.execute(
                    "SELECT id, claim_pid, claim_host, claimed FROM sets WHERE status = 'claimed'"
                ).fetchall()
                if now - claimed > timeout_s or not alive(pid, host)
            ]
            for set_id in stale:
                db.execute(
                    "UPDATE sets SET status = 'planned', claim_run = NULL, claim_pid = NULL, claim_host = NULL,"
                    " claimed = NULL WHERE id = ? AND status = 'claimed'",
                    (set_id,),
                )
        return stale

    def record(
        self,
        run_id: int,
        record: SetRecord,
        failures: dict[str, str | None],
        *,
        deactivate_after: int,
    ) -> dict[str, str]:
        """Commit a played set: its result, its status, its rating update, the bots' failure counts, the run's count.

        ``failures`` holds, per bot of the set, why it failed the set (a crash, a start failure, a forfeit) or None.
        Returns the bots deactivated by this set (label -> reason). Raises StoreError when the set is not claimed by
        ``run_id`` (a stale run whose claim was taken over): nothing is then written.
        """
        deactivated: dict[str, str] = {}
        with self.transaction() as db:
            row = db.execute("SELECT status, claim_run FROM sets WHERE id = ?", (record.set_id,)).fetchone()
            if row is None or row[0] != "claimed" or row[1] != run_id:
                raise StoreError(f"set {record.set_id} is not claimed by run {run_id}: its result is not recorded")
            db.execute(
                "UPDATE sets SET status = 'played', result = ?, played = ? WHERE id = ?",
                (encode_set(record).decode().rstrip("\n"), self.clock(), record.set_id),
            )
            db.execute("UPDATE runs SET sets_played = sets_played + 1 WHERE id = ?", (run_id,))
            for label, why in failures.items():
                if why is None:
                    db.execute("UPDATE bots SET failures = 0 WHERE label = ?", (label,))
                    continue
                db.execute("UPDATE bots SET failures = failures + 1 WHERE label = ?", (label,))
                count, status = db.execute("SELECT failures, status FROM bots WHERE label = ?", (label,)).fetchone()
                if count >= deactivate_after and status == "active":
                    reason = f"{count} {'set' if count == 1 else 'sets in a row'} failed; the last: {why}"
                    db.execute("UPDATE bots SET status = 'deactivated', reason = ? WHERE label = ?", (reason, label))
                    deactivated[label] = reason
            self._rate_locked(db, record)
        return deactivated

    def release(self, run_id: int) -> list[int]:
        """A run that stops in the middle of a set gives its claim back: the set is planned again."""
        with self.transaction() as db:
            rows = db.execute("SELECT id FROM sets WHERE status = 'claimed' AND claim_run = ?", (run_id,))
            ids = [row[0] for row in rows.fetchall()]
            db.execute(
                "UPDATE sets SET status = 'planned', claim_run = NULL, claim_pid = NULL, claim_host = NULL,"
                " claimed = NULL WHERE status = 'claimed' AND claim_run = ?",
                (run_id,),
            )
        return ids

    def void(self, run_id: int, set_id: int, reason: str, seed_for: Callable[[int], str]) -> int | None:
        """The referee failed (not a bot): the set is voided, never rated, and a new set with the same table is
        planned in its place (another id, so other deals). Returns the new set's id (None: not ours to void)."""
        with self.transaction() as db:
            row = db.execute("SELECT status, claim_run, bots FROM sets WHERE id = ?", (set_id,)).fetchone()
            if row is None or row[0] != "claimed" or row[1] != run_id:
                return None
            db.execute("UPDATE sets SET status = 'voided', void_reason = ? WHERE id = ?", (reason, set_id))
            db.execute("UPDATE runs SET sets_voided = sets_voided + 1 WHERE id = ?", (run_id,))
            cursor = db.execute(
                "INSERT INTO sets (status, seed, bots, planned, replaces) VALUES ('planned', '', ?, ?, ?)",
                (row[2], self.clock(), set_id),
            )
            new_id = cast(int, cursor.lastrowid)
            db.execute("UPDATE sets SET seed = ? WHERE id = ?", (seed_for(new_id), new_id))
        return new_id

    def sets(self, status: SetStatus | None = None) -> list[SetRow]:
        query = "SELECT id, status, bots, result, played, void_reason FROM sets"
        rows = self.db.execute(
            query + (" WHERE status = ? ORDER BY id" if status else " ORDER BY id"), (status,) if status else ()
        )
        return [
            SetRow(set_id, state, tuple(json.loads(bots)), decode_set(result.encode()) if result else None, played, why)
            for set_id, state, bots, result, played, why in rows
        ]

    def uncompressed_before(self, cutoff: float) -> list[int]:
        """Played sets finished before ``cutoff`` whose replay logs are not compressed yet."""
        rows = self.db.execute(
            "SELECT id FROM sets WHERE status = 'played' AND compressed = 0 AND played < ? ORDER BY id", (cutoff,)
        )
        return [row[0] for row in rows]

    def mark_compressed(self, set_id: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE sets SET compressed = 1 WHERE id = ?", (set_id,))

    def results(self) -> list[SetRecord]:
        """Every played set's record, in id order: the truth the ratings are computed from."""
        rows = self.db.execute("SELECT result FROM sets WHERE status = 'played' ORDER BY id")
        return [decode_set(row[0].encode()) for row in rows]

    # --- ratings -----------------------------------------------------------------------------------------------

    def rating_params(self) -> RatingParams:
        row = self.db.execute("SELECT params FROM rating_model WHERE id = 1").fetchone()
        return RatingParams() if row is None else RatingParams(**json.loads(row[0]))

    def set_rating_params(self, params: RatingParams) -> None:
        """Store the model's parameters and recompute every rating with them."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO rating_model (id, model, params) VALUES (1, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET model = excluded.model, params = excluded.params",
                (MODEL, json.dumps(vars(params))),
            )
            self._rerate_locked(db)

    def rerate(self) -> dict[str, Rating]:
        """Recompute every rating (and the history) from the results."""
        with self.transaction() as db:
            self._rerate_locked(db)
        return self.ratings()

    def ratings(self) -> dict[str, Rating]:
        rows = self.db.execute("SELECT b.label, r.mu, r.sigma, r.sets FROM ratings r JOIN bots b ON b.id = r.bot_id")
        return {label: Rating(mu, sigma, sets) for label, mu, sigma, sets in rows}

    def history(self, label: str) -> list[tuple[int, float, float]]:
        """The bot's (set id, μ, σ) after each of its rated sets."""
        rows = self.db.execute(
            "SELECT h.set_id, h.mu, h.sigma FROM rating_history h JOIN bots b ON b.id = h.bot_id"
            " WHERE b.label = ? ORDER BY h.set_id",
            (label,),
        )
        return [(set_id, mu, sigma) for set_id, mu, sigma in rows]

    def _rate_locked(self, db: sqlite3.Connection, record: SetRecord) -> None:
        """Rate one newly played set: incrementally when it is the newest rated set (the usual case), else from
        scratch, so the cache always equals ``rate(results)`` in set-id order."""
        through = db.execute("SELECT rated_through FROM rating_model WHERE id = 1").fetchone()
        if through is None or record.set_id < through[0]:
            self._rerate_locked(db)
            return
        current = self._ratings_locked(db)
        start = {bot: current[bot] for bot in record.bots if bot in current}
        self._write_steps(db, rate_steps([record], self._params_locked(db), start))
        db.execute("UPDATE rating_model SET rated_through = ? WHERE id = 1", (record.set_id,))

    def _rerate_locked(self, db: sqlite3.Connection) -> None:
        if db.execute("SELECT 1 FROM rating_model WHERE id = 1").fetchone() is None:
            db.execute(
                "INSERT INTO rating_model (id, model, params) VALUES (1, ?, ?)",
                (MODEL, json.dumps(vars(RatingParams()))),
            )
        db.execute("DELETE FROM ratings")
        db.execute("DELETE FROM rating_history")
        records = [decode_set(row[0].encode()) for row in db.execute("SELECT result FROM sets WHERE status = 'played'")]
        self._write_steps(db, rate_steps(records, self._params_locked(db)))
        through = max((r.set_id for r in records), default=0)
        db.execute("UPDATE rating_model SET rated_through = ? WHERE id = 1", (through,))

    def _write_steps(self, db: sqlite3.Connection, steps: Iterable[tuple[int, dict[str, Rating]]]) -> None:
        ids = dict(db.execute("SELECT label, id FROM bots").fetchall())
        for set_id, updated in steps:
            for label, rating in updated.items():
                bot_id = ids[label]
                db.execute(
                    "INSERT INTO ratings (bot_id, mu, sigma, sets) VALUES (?, ?, ?, ?) ON CONFLICT (bot_id)"
                    " DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, sets = excluded.sets",
                    (bot_id, rating.mu, rating.sigma, rating.sets),
                )
                # The primary key (set_id, bot_id) is a second guard: rating a set twice would fail here.
                db.execute(
                    "INSERT INTO rating_history (set_id, bot_id, mu, sigma) VALUES (?, ?, ?, ?)",
                    (set_id, bot_id, rating.mu, rating.sigma),
                )

    def _ratings_locked(self, db: sqlite3.Connection) -> dict[str, Rating]:
        rows = db.execute("SELECT b.label, r.mu, r.sigma, r.sets FROM ratings r JOIN bots b ON b.id = r.bot_id")
        return {label: Rating(mu, sigma, sets) for label, mu, sigma, sets in rows}

    def _params_locked(self, db: sqlite3.Connection) -> RatingParams:
        row = db.execute("SELECT params FROM rating_model WHERE id = 1").fetchone()
        return RatingParams() if row is None else RatingParams(**json.loads(row[0]))

    # --- runs --------------------------------------------------------------------------------------------------

    def start_run(self, pid: int, host: str) -> int:
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO runs (started, pid, host, status) VALUES (?, ?, ?, 'running')", (self.clock(), pid, host)
            )
        return cast(int, cursor.lastrowid)

    def finish_run(self, run_id: int, status: Literal["finished", "failed"], message: str | None = None) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE runs SET finished = ?, status = ?, message = ? WHERE id = ?",
                (self.clock(), status, message, run_id),
            )

    def last_run(self) -> RunInfo | None:
        row = self.db.execute(_RUN_SELECT + " ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else RunInfo(*row)

    def runs(self) -> list[RunInfo]:
        return [RunInfo(*row) for row in self.db.execute(_RUN_SELECT + " ORDER BY id")]


_BOT_SELECT = (
    "SELECT id, label, name, version, owner, command, cwd, program, program_hash, status, reason, created, failures"
    " FROM bots"
)
_RUN_SELECT = "SELECT id, started, finished, pid, host, sets_played, sets_voided, status, message FROM runs"
