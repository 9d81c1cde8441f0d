"""The ladder database's schema, its migrations, and how a connection to it is opened.

SQLite in WAL mode with ``synchronous=FULL``: a commit is on disk when it returns, readers (``status``, ``site``)
never block the run, and a process killed at any instant leaves the database as of its last commit. The schema is
versioned by ``PRAGMA user_version``; each migration runs in one transaction with the version bump, so a database is
always at exactly one version. What is stored, and how it changes, is `competition.ladder.store`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import cast

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "StoreError", "connect", "connect_reading", "migrate"]

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
    (  # 3 (issue 22): a planned set cancelled because one of its bots left is told from one the referee failed
        # (voided); a log of the ladder's events (a bot reactivated, the ratings recomputed under a new rule); the
        # ratings are recomputed once under the ranking rule (a game the fallback played for a bot is its last
        # place): the pending event below, done by `competition.ladder.store.Store.open` as it opens the file
        "ALTER TABLE sets ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0",
        "UPDATE sets SET cancelled = 1"
        " WHERE status = 'voided' AND void_reason LIKE '% left the ladder before the set was played'",
        """CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            at REAL NOT NULL,
            bot_id INTEGER REFERENCES bots(id),
            event TEXT NOT NULL,  -- 'reactivated', 'rerate' (pending), 'rerated'
            detail TEXT)""",
        "INSERT INTO events (at, event, detail) SELECT CAST(strftime('%s', 'now') AS REAL), 'rerate',"
        " 'the ranking rule of issue 22: a game the fallback played (in part) for a bot is its last place'"
        " WHERE EXISTS (SELECT 1 FROM sets WHERE status = 'played')",
    ),
    (  # 4 (issue 24; issue 22 adds 3): what the inbox took from each author and what became of it (their bot
        # page shows it); `stamp` names the READY file taken, so a submission is taken once
        """CREATE TABLE submissions (
            id INTEGER PRIMARY KEY,
            owner TEXT NOT NULL,
            name TEXT NOT NULL,
            stamp TEXT NOT NULL,
            taken REAL NOT NULL,
            accepted INTEGER NOT NULL,
            label TEXT,  -- the version it became, when accepted
            reason TEXT,  -- why it was refused
            stderr TEXT,  -- JSON list: the last lines its validation game wrote to stderr
            UNIQUE (owner, name, stamp))""",
        # the set's logs were pruned by the retention rules (its result and rating stay)
        "ALTER TABLE sets ADD COLUMN pruned INTEGER NOT NULL DEFAULT 0",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(RuntimeError):
    """The database cannot be opened or is from a newer kierki; the message says what to do."""


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
    connection = None
    try:
        connection = sqlite3.connect(path, isolation_level=None, timeout=60.0)
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as error:
        if connection is not None:
            connection.close()  # a half-open connection keeps its lock (a full disk: reading falls back, `disk`)
        raise StoreError(f"cannot open the ladder database {path}: {error}") from None
    return connection


def connect_reading(path: Path) -> sqlite3.Connection:
    """A connection for reading where no file can grow (a full disk): exclusive locking, so SQLite keeps the
    write-ahead log's index in memory instead of its ``-shm`` file; the database must be at this schema already
    (a migration needs space). Held only as long as a command that reads: a run's writes wait for it."""
    try:
        connection = sqlite3.connect(path, isolation_level=None, timeout=60.0)
        connection.execute("PRAGMA locking_mode = EXCLUSIVE")
        version = cast(int, connection.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as error:
        raise StoreError(f"cannot open the ladder database {path}: {error}") from None
    if version != SCHEMA_VERSION:
        connection.close()
        raise StoreError(f"the ladder database {path} is at schema {version}; it needs space to be brought up to date")
    return connection
