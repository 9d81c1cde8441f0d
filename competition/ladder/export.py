"""The ladder's results as rows, one per seat per game: what ``kierki ladder results`` prints as a table, CSV or
JSON. The results in the database (each played set's ``SetRecord``) are the source; the replay path is the file
as it is now (plain, compressed since, or pruned by the retention rules: then empty)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from competition.ladder.config import ConfigError, parse_duration
from competition.ladder.ladder import replay_file
from competition.ladder.store import Store

__all__ = ["FIELDS", "ResultRow", "iso_time", "parse_since", "result_rows"]


@dataclass(frozen=True)
class ResultRow:
    set: int
    game: int  # 1-based, as the set's folder names its files
    time: str  # when the set was recorded, ISO-8601 with the UTC offset
    seat: int  # 0-based, as the replay log numbers seats
    bot: str  # the label, name@version
    name: str
    version: int
    owner: str
    points: int
    place: int
    faults: dict[str, int]
    start_failed: bool
    forfeited: bool
    replay: str  # relative to the ladder's folder; "" when the retention rules pruned it


FIELDS = tuple(ResultRow.__dataclass_fields__)


def iso_time(timestamp: float) -> str:
    """A moment as ISO-8601 in local time with its UTC offset, to the second: unambiguous in a log read months on."""
    return datetime.datetime.fromtimestamp(timestamp).astimezone().isoformat(timespec="seconds")


def parse_since(text: str, now: float) -> float:
    """``--since``: an ISO-8601 date or time (local time unless it gives an offset) or a duration back from now."""
    try:
        return now - parse_duration(text)
    except ConfigError:
        pass
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ConfigError(
            f"--since {text!r}: give an ISO-8601 date or time (2026-05-01, 2026-05-01T12:00) or a duration (7d)"
        ) from None
    return moment.astimezone().timestamp() if moment.tzinfo is None else moment.timestamp()


def result_rows(folder: Path, store: Store, *, since: float | None = None, bot: str | None = None) -> list[ResultRow]:
    """Every seat of every game of the played sets, oldest first; ``since``: recorded then or later; ``bot``: a
    name (every version) or a label."""
    bots = {b.label: b for b in store.bots()}
    rows = []
    for played in store.sets("played"):
        record = played.record
        if record is None or played.played is None or (since is not None and played.played < since):
            continue
        when = iso_time(played.played)
        for game in record.games:
            replay = replay_file(folder, game.replay) if game.replay else None
            relative = replay.relative_to(folder).as_posix() if replay is not None else ""
            for seat, label in enumerate(game.seats):
                known = bots.get(label)
                if bot is not None and label != bot and (known is None or known.name != bot):
                    continue
                rows.append(
                    ResultRow(
                        set=record.set_id,
                        game=game.index + 1,
                        time=when,
                        seat=seat,
                        bot=label,
                        name=known.name if known else label.partition("@")[0],
                        version=known.version if known else 0,
                        owner=(known.owner or "") if known else "",
                        points=game.totals[seat],
                        place=game.places[seat],
                        faults={str(code): count for code, count in sorted(game.faults[seat].items())}
                        if seat < len(game.faults)
                        else {},
                        start_failed=seat < len(game.start_failed) and game.start_failed[seat],
                        forfeited=seat < len(game.forfeited) and game.forfeited[seat],
                        replay=relative,
                    )
                )
    return rows
