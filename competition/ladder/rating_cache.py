"""The ladder's ratings cache: the ``ratings``, ``rating_history`` and ``rating_model`` tables, always equal to
``rate(results)`` over the played sets in set-id order (`competition.ratings`).

Results are the truth and ratings a cache: a newly played set is rated incrementally when it is the newest rated
set (the usual case), else every rating is recomputed from the results. Each function runs inside the caller's
transaction (`competition.ladder.store.Store.transaction`), so a set's result and its rating update are committed
together or not at all.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

import msgspec

from competition.model import SetRecord, decode_set
from competition.ratings import Rating, RatingParams, rate_steps

__all__ = ["MODEL", "rate_set", "rerate", "store_params", "stored_params", "stored_ratings"]

MODEL = "openskill.PlackettLuce"


def stored_params(db: sqlite3.Connection) -> RatingParams:
    """The model's parameters as stored (the defaults before any are)."""
    row = db.execute("SELECT params FROM rating_model WHERE id = 1").fetchone()
    return RatingParams() if row is None else msgspec.json.decode(row[0], type=RatingParams)


def store_params(db: sqlite3.Connection, params: RatingParams) -> None:
    """Store the model's parameters; the caller rerates with them."""
    db.execute(
        "INSERT INTO rating_model (id, model, params) VALUES (1, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET model = excluded.model, params = excluded.params",
        (MODEL, _params_json(params)),
    )


def _params_json(params: RatingParams) -> str:
    """The ``params`` column: msgspec's fields, laid out as the column has always held them (``{"mu": 25.0, ...}``,
    json.dumps's spacing), so a database keeps one form of it whichever kierki wrote the row."""
    return json.dumps(msgspec.to_builtins(params))


def stored_ratings(db: sqlite3.Connection) -> dict[str, Rating]:
    rows = db.execute("SELECT b.label, r.mu, r.sigma, r.sets FROM ratings r JOIN bots b ON b.id = r.bot_id")
    return {label: Rating(mu, sigma, sets) for label, mu, sigma, sets in rows}


def rate_set(db: sqlite3.Connection, record: SetRecord) -> None:
    """Rate one newly played set: incrementally when it is the newest rated set (the usual case), else from
    scratch, so the cache always equals ``rate(results)`` in set-id order."""
    through = db.execute("SELECT rated_through FROM rating_model WHERE id = 1").fetchone()
    if through is None or record.set_id < through[0]:
        rerate(db)
        return
    current = stored_ratings(db)
    start = {bot: current[bot] for bot in record.bots if bot in current}
    _write_steps(db, rate_steps([record], stored_params(db), start))
    db.execute("UPDATE rating_model SET rated_through = ? WHERE id = 1", (record.set_id,))


def rerate(db: sqlite3.Connection) -> None:
    """Recompute every rating and the whole history from the played sets' results."""
    if db.execute("SELECT 1 FROM rating_model WHERE id = 1").fetchone() is None:
        db.execute(
            "INSERT INTO rating_model (id, model, params) VALUES (1, ?, ?)",
            (MODEL, _params_json(RatingParams())),
        )
    db.execute("DELETE FROM ratings")
    db.execute("DELETE FROM rating_history")
    records = [decode_set(row[0].encode()) for row in db.execute("SELECT result FROM sets WHERE status = 'played'")]
    _write_steps(db, rate_steps(records, stored_params(db)))
    through = max((r.set_id for r in records), default=0)
    db.execute("UPDATE rating_model SET rated_through = ? WHERE id = 1", (through,))


def _write_steps(db: sqlite3.Connection, steps: Iterable[tuple[int, dict[str, Rating]]]) -> None:
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
