"""The ladder's database: bots, planned and played sets, the ratings cache and the runs, in one SQLite file.

The file, its schema and its migrations are `competition.ladder.schema`; the ratings cache is
`competition.ladder.rating_cache`. A set moves ``planned -> claimed -> played`` (or ``voided``). Its result (a
``SetRecord``) and its status are committed in one ``BEGIN IMMEDIATE`` transaction, together with its rating update,
which only happens on the ``claimed -> played`` transition of the run that holds the claim: a set is rated once or not
at all. Results are the truth and ratings a cache: ``rerate`` recomputes them from the results with the stored model
parameters.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, cast

from competition.ladder import rating_cache
from competition.ladder.schema import MIGRATIONS, SCHEMA_VERSION, StoreError, connect, migrate
from competition.ladder.store_records import (
    Added,
    Bot,
    BotStatus,
    ClaimedSet,
    Event,
    NameTaken,
    RunInfo,
    SetRow,
    SetStatus,
    Submission,
    check_look_alike,
    check_owner,
    owner_phrase,
)
from competition.model import SetRecord, decode_set, encode_set
from competition.names import name_key, same_name_groups
from competition.ratings import Rating, RatingParams

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Added",
    "Bot",
    "ClaimedSet",
    "Event",
    "NameTaken",
    "RunInfo",
    "SetRow",
    "Store",
    "StoreError",
    "Submission",
    "check_look_alike",
    "check_owner",
    "migrate",
    "owner_phrase",
]


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
        store = cls(connection, clock=clock)
        store._finish_upgrade()
        return store

    def _finish_upgrade(self) -> None:
        """What a migration left to do in Python: the ratings recomputed once under a new rule (migration 3's
        pending ``rerate`` event), in one transaction with the event's change to ``rerated``, so that it is done
        exactly once even if a process is killed half-way."""
        if not self.db.execute("SELECT 1 FROM events WHERE event = 'rerate'").fetchone():
            return
        with self.transaction() as db:
            pending = db.execute("SELECT id, detail FROM events WHERE event = 'rerate'").fetchall()
            if not pending:
                return
            before = rating_cache.stored_ratings(db)
            rating_cache.rerate(db)
            after = rating_cache.stored_ratings(db)
            moved = sum(1 for label, rating in after.items() if before.get(label) != rating)
            played = db.execute("SELECT COUNT(*) FROM sets WHERE status = 'played'").fetchone()[0]
            for event_id, why in pending:
                db.execute(
                    "UPDATE events SET event = 'rerated', at = ?, detail = ? WHERE id = ?",
                    (self.clock(), f"ratings recomputed from {played} sets under {why}; {moved} changed", event_id),
                )

    def events(self, limit: int = 20) -> list[Event]:
        """The ladder's newest events (a bot reactivated, the ratings recomputed by an upgrade), oldest first."""
        rows = self.db.execute(
            "SELECT e.at, b.label, e.event, e.detail FROM events e LEFT JOIN bots b ON b.id = e.bot_id"
            " ORDER BY e.id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [Event(*row) for row in reversed(rows)]

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
        new_version: bool = False,
    ) -> Added:
        """Register ``name``: a name belongs to the owner of its first version (`NameTaken` for another owner); a new
        version is made only when the command or the program file's hash changed, or with ``new_version`` (earlier
        active versions are then retired, kept with their results); an unchanged bot is left as it is."""
        with self.transaction() as db:
            latest = self._latest(db, name)
            if latest is None:
                check_look_alike(name, self._look_alike(db, name))
            else:
                check_owner(latest, owner)
                if not new_version and (latest.command, latest.program_hash) == (command, program_hash):
                    return Added(latest, [], unchanged=True)
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
        return Added(bot, earlier)

    def latest(self, name: str) -> Bot | None:
        """The newest version of ``name``, whatever its status."""
        return self._latest(self.db, name)

    def _latest(self, db: sqlite3.Connection, name: str) -> Bot | None:
        row = db.execute(_BOT_SELECT + " WHERE name = ? ORDER BY version DESC LIMIT 1", (name,)).fetchone()
        return None if row is None else self._bot(row)

    def look_alike(self, name: str) -> Bot | None:
        """The newest version of another name that a reader could take for ``name`` (`competition.names`)."""
        return self._look_alike(self.db, name)

    def _look_alike(self, db: sqlite3.Connection, name: str, *, active: bool = False) -> Bot | None:
        key = name_key(name)
        where = " WHERE name != ?" + (" AND status = 'active'" if active else "")
        for row in db.execute(_BOT_SELECT + where + " ORDER BY version DESC", (name,)):
            if name_key(row[2]) == key:
                return self._bot(row)
        return None

    def look_alike_names(self) -> list[list[Bot]]:
        """The groups of names a reader could take for one another (a ladder from before the rule), each as the
        newest version of every name of the group."""
        newest = {bot.name: bot for bot in self.bots()}  # ordered by version: the last is the newest
        return [[newest[name] for name in group] for group in same_name_groups(newest)]

    def reactivate(self, name: str, reason: str) -> Bot:
        """Bring back a deactivated or retired bot (``name``: its newest version; ``name@N``: that one) with its
        rating and results; its failure count starts again and the reason is logged. A `StoreError` says why not
        (no such bot, already active, another version of it active)."""
        with self.transaction() as db:
            bot = self._bot_row(db, name) if "@" in name else self._latest(db, name)
            if bot is None:
                raise StoreError(f"no bot {name!r} in this ladder")
            if bot.status == BotStatus.ACTIVE:
                raise StoreError(f"{bot.label} is active already")
            other = db.execute(
                "SELECT label FROM bots WHERE name = ? AND status = 'active' AND id != ?", (bot.name, bot.id)
            ).fetchone()
            if other is not None:
                raise StoreError(f"{other[0]} is the active version of {bot.name}: retire it first")
            alike = self._look_alike(db, bot.name, active=True)
            if alike is not None:
                raise NameTaken(
                    f"{bot.name} cannot stand beside {alike.label} ({owner_phrase(alike)}): the two names differ only "
                    f"in case or look-alike characters; retire {alike.name} first"
                )
            db.execute("UPDATE bots SET status = 'active', reason = NULL, failures = 0 WHERE id = ?", (bot.id,))
            db.execute(
                "INSERT INTO events (at, bot_id, event, detail) VALUES (?, ?, 'reactivated', ?)",
                (self.clock(), bot.id, f"was {bot.status} ({bot.reason or 'no reason recorded'}); {reason}"),
            )
            reactivated = self._bot_row(db, bot.label)
        assert reactivated is not None
        return reactivated

    def _bot_row(self, db: sqlite3.Connection, label: str) -> Bot | None:
        row = db.execute(_BOT_SELECT + " WHERE label = ?", (label,)).fetchone()
        return None if row is None else self._bot(row)

    def bots(self, status: BotStatus | None = None) -> list[Bot]:
        if status is None:
            rows = self.db.execute(_BOT_SELECT + " ORDER BY name, version")
        else:
            rows = self.db.execute(_BOT_SELECT + " WHERE status = ? ORDER BY name, version", (status,))
        return [self._bot(row) for row in rows]

    def bot(self, label: str) -> Bot | None:
        return self._bot_row(self.db, label)

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
        bot = Bot(*row)
        return dataclasses.replace(bot, status=BotStatus(bot.status))

    def next_version(self, name: str) -> int:
        """The version the next ``add_bot`` of ``name`` gets (the inbox names its copy's folder after it)."""
        query = "SELECT COALESCE(MAX(version), 0) + 1 FROM bots WHERE name = ?"
        return cast(int, self.db.execute(query, (name,)).fetchone()[0])

    # --- the inbox's submissions -------------------------------------------------------------------------------

    def record_submission(self, submission: Submission) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO submissions (owner, name, stamp, taken, accepted, label, reason, stderr)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    submission.owner,
                    submission.name,
                    submission.stamp,
                    submission.taken,
                    int(submission.accepted),
                    submission.label,
                    submission.reason,
                    json.dumps(list(submission.stderr)),
                ),
            )

    def submission(self, owner: str, name: str, stamp: str) -> Submission | None:
        row = self.db.execute(
            _SUBMISSION_SELECT + " WHERE owner = ? AND name = ? AND stamp = ?", (owner, name, stamp)
        ).fetchone()
        return None if row is None else _submission(row)

    def submissions(self, name: str | None = None, limit: int = 50) -> list[Submission]:
        """The newest first; ``name``: of that bot name only."""
        where, args = (" WHERE name = ?", (name,)) if name is not None else ("", ())
        rows = self.db.execute(_SUBMISSION_SELECT + where + " ORDER BY id DESC LIMIT ?", (*args, limit))
        return [_submission(row) for row in rows]

    # --- sets --------------------------------------------------------------------------------------------------

    def plan(
        self, tables: Iterable[Sequence[str]], seed_for: Callable[[int], str], *, replaces: int | None = None
    ) -> list[int]:
        """Add planned sets, one per table; each set's seed is ``seed_for(its id)``."""
        ids = []
        with self.transaction() as db:
            for table in tables:
                ids.append(self._insert_planned(db, json.dumps(list(table)), seed_for, replaces))
        return ids

    def _insert_planned(
        self, db: sqlite3.Connection, table_json: str, seed_for: Callable[[int], str], replaces: int | None
    ) -> int:
        """One planned set; its seed is derived from the id SQLite gives it, so it is written second."""
        cursor = db.execute(
            "INSERT INTO sets (status, seed, bots, planned, replaces) VALUES ('planned', '', ?, ?, ?)",
            (table_json, self.clock(), replaces),
        )
        set_id = cast(int, cursor.lastrowid)
        db.execute("UPDATE sets SET seed = ? WHERE id = ?", (seed_for(set_id), set_id))
        return set_id

    def count(self, status: SetStatus) -> int:
        stored, cancelled = _stored_status(status)
        query = "SELECT COUNT(*) FROM sets WHERE status = ?" + ("" if cancelled is None else " AND cancelled = ?")
        values = (stored,) if cancelled is None else (stored, cancelled)
        return cast(int, self.db.execute(query, values).fetchone()[0])

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
                why = f"{', '.join(gone)} left the ladder before the set was played" if gone else None
                if len(set(table)) < len(table):  # planned by an older kierki: a bot never sits twice at a table
                    why = "a bot was seated twice at its table"
                if why is not None:
                    db.execute(
                        "UPDATE sets SET status = 'voided', cancelled = 1, void_reason = ? WHERE id = ?", (why, set_id)
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
                db.execute(_UNCLAIM + " AND id = ?", (set_id,))
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
                if count >= deactivate_after and status == BotStatus.ACTIVE:
                    reason = f"{count} {'set' if count == 1 else 'sets in a row'} failed; the last: {why}"
                    db.execute("UPDATE bots SET status = 'deactivated', reason = ? WHERE label = ?", (reason, label))
                    deactivated[label] = reason
            rating_cache.rate_set(db, record)
        return deactivated

    def release(self, run_id: int) -> list[int]:
        """A run that stops in the middle of a set gives its claim back: the set is planned again."""
        with self.transaction() as db:
            rows = db.execute("SELECT id FROM sets WHERE status = 'claimed' AND claim_run = ?", (run_id,))
            ids = [row[0] for row in rows.fetchall()]
            db.execute(_UNCLAIM + " AND claim_run = ?", (run_id,))
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
            return self._insert_planned(db, row[2], seed_for, set_id)

    def sets(self, status: SetStatus | None = None) -> list[SetRow]:
        query = "SELECT id, status, cancelled, bots, result, played, void_reason FROM sets"
        if status is None:
            rows = self.db.execute(query + " ORDER BY id")
        else:
            stored, cancelled = _stored_status(status)
            where = " WHERE status = ?" + ("" if cancelled is None else " AND cancelled = ?")
            rows = self.db.execute(
                query + where + " ORDER BY id", (stored,) if cancelled is None else (stored, cancelled)
            )
        return [
            SetRow(
                set_id,
                "cancelled" if cancelled else state,
                tuple(json.loads(bots)),
                decode_set(result.encode()) if result else None,
                played,
                why,
            )
            for set_id, state, cancelled, bots, result, played, why in rows
        ]

    def uncompressed_before(self, cutoff: float) -> list[int]:
        """Played sets finished before ``cutoff`` whose replay logs are not compressed yet."""
        rows = self.db.execute(
            "SELECT id FROM sets WHERE status = 'played' AND compressed = 0 AND played < ? ORDER BY id", (cutoff,)
        )
        return [row[0] for row in rows]

    def prunable(self, played_before: float | None, keep_newest: int) -> list[int]:
        """Played sets whose logs are not pruned yet and that either limit leaves out: played before
        ``played_before`` (None: no such limit), or older than the newest ``keep_newest`` played (0: no limit)."""
        query = "SELECT id, played FROM sets WHERE status = 'played' ORDER BY id DESC"
        rows = self.db.execute(query).fetchall()
        pruned = {row[0] for row in self.db.execute("SELECT id FROM sets WHERE pruned = 1")}
        old = [
            set_id
            for number, (set_id, played) in enumerate(rows)
            if set_id not in pruned
            and ((played_before is not None and played < played_before) or (keep_newest and number >= keep_newest))
        ]
        return sorted(old)

    def mark_pruned(self, set_id: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE sets SET pruned = 1, compressed = 1 WHERE id = ?", (set_id,))

    def is_pruned(self, set_id: int) -> bool:
        row = self.db.execute("SELECT pruned FROM sets WHERE id = ?", (set_id,)).fetchone()
        return bool(row and row[0])

    def mark_compressed(self, set_id: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE sets SET compressed = 1 WHERE id = ?", (set_id,))

    def results(self) -> list[SetRecord]:
        """Every played set's record, in id order: the truth the ratings are computed from."""
        rows = self.db.execute("SELECT result FROM sets WHERE status = 'played' ORDER BY id")
        return [decode_set(row[0].encode()) for row in rows]

    # --- ratings -----------------------------------------------------------------------------------------------

    def rating_params(self) -> RatingParams:
        return rating_cache.stored_params(self.db)

    def set_rating_params(self, params: RatingParams) -> None:
        """Store the model's parameters and recompute every rating with them."""
        with self.transaction() as db:
            rating_cache.store_params(db, params)
            rating_cache.rerate(db)

    def rerate(self) -> dict[str, Rating]:
        """Recompute every rating (and the history) from the results."""
        with self.transaction() as db:
            rating_cache.rerate(db)
        return self.ratings()

    def ratings(self) -> dict[str, Rating]:
        return rating_cache.stored_ratings(self.db)

    def history(self, label: str) -> list[tuple[int, float, float]]:
        """The bot's (set id, μ, σ) after each of its rated sets."""
        rows = self.db.execute(
            "SELECT h.set_id, h.mu, h.sigma FROM rating_history h JOIN bots b ON b.id = h.bot_id"
            " WHERE b.label = ? ORDER BY h.set_id",
            (label,),
        )
        return [(set_id, mu, sigma) for set_id, mu, sigma in rows]

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

    def mark_dead_runs(self, message: str) -> list[int]:
        """Runs still ``running``, found by a run that holds the run lock (so their processes are gone): failed,
        with ``message``. Returns their ids."""
        with self.transaction() as db:
            ids = [row[0] for row in db.execute("SELECT id FROM runs WHERE status = 'running' ORDER BY id")]
            db.execute(
                "UPDATE runs SET status = 'failed', message = ? WHERE status = 'running'",
                (message,),
            )
        return ids

    def last_run(self) -> RunInfo | None:
        row = self.db.execute(_RUN_SELECT + " ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else RunInfo(*row)

    def runs(self) -> list[RunInfo]:
        return [RunInfo(*row) for row in self.db.execute(_RUN_SELECT + " ORDER BY id")]


def _stored_status(status: SetStatus) -> tuple[str, int | None]:
    """The stored status and ``cancelled`` flag a status is kept as (None: either)."""
    if status == "cancelled":
        return "voided", 1
    return status, 0 if status == "voided" else None


_BOT_SELECT = (
    "SELECT id, label, name, version, owner, command, cwd, program, program_hash, status, reason, created, failures"
    " FROM bots"
)
_SUBMISSION_SELECT = "SELECT owner, name, stamp, taken, accepted, label, reason, stderr FROM submissions"


def _submission(row: Sequence[Any]) -> Submission:
    owner, name, stamp, taken, accepted, label, reason, stderr = row
    return Submission(owner, name, stamp, taken, bool(accepted), label, reason, tuple(json.loads(stderr or "[]")))


_RUN_SELECT = "SELECT id, started, finished, pid, host, sets_played, sets_voided, status, message FROM runs"
# A claimed set planned again, to be played from the start (the caller narrows it to a set or a run).
_UNCLAIM = (
    "UPDATE sets SET status = 'planned', claim_run = NULL, claim_pid = NULL, claim_host = NULL, claimed = NULL"
    " WHERE status = 'claimed'"
)
