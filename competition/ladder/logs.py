"""A bot's stderr logs in the ladder's sets, newest first: what ``kierki ladder logs`` prints and the site's fault
list links. A set's logs are ``DIR/sets/NNNNNN/gameG.seatS.stderr.log`` (a bot that wrote nothing leaves none);
the retention rules may have pruned them, which is said rather than passed over."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from competition.ladder.ladder import LadderError, log_tail
from competition.ladder.store import Store
from competition.model import GameRecord

__all__ = ["LOG_TAIL_BYTES", "BotLog", "bot_logs", "fault_summary", "stderr_log"]

LOG_TAIL_BYTES = 64 * 1024  # of each log, the end shown


@dataclass(frozen=True)
class BotLog:
    set_id: int
    game: int  # 1-based
    seat: int
    label: str
    path: str  # relative to the ladder's folder
    size: int  # bytes (0 once pruned)
    pruned: bool  # the retention rules removed the set's logs
    faults: str  # what went wrong for the bot in that game ("" when nothing did)


def stderr_log(set_id: int, game: int, seat: int) -> str:
    return f"sets/{set_id:06d}/game{game}.seat{seat}.stderr.log"


def fault_summary(game: GameRecord, seat: int) -> str:
    """The seat's trouble in the game, in words: could not start, forfeited, its faults by code."""
    parts = []
    if seat < len(game.start_failed) and game.start_failed[seat]:
        parts.append("could not start")
    elif seat < len(game.forfeited) and game.forfeited[seat]:
        parts.append("forfeited")
    faults = game.faults[seat] if seat < len(game.faults) else {}
    parts.extend(f"{code} x{count}" for code, count in sorted(faults.items()))
    return ", ".join(parts)


def bot_logs(
    folder: Path, store: Store, name: str, *, set_id: int | None = None, last: int | None = None
) -> list[BotLog]:
    """The logs the bot wrote (``name``: every version, or one ``NAME@V``), newest set first, at most ``last``;
    a game in which it wrote nothing to stderr left none. A pruned set's games are listed, marked pruned."""
    labels = {bot.label for bot in store.bots() if name in (bot.name, bot.label)}
    if not labels:
        raise LadderError(f"no bot named {name!r}; `kierki ladder standings {folder} --all` lists them")
    found: list[BotLog] = []
    sat = False
    for row in reversed(store.sets("played")):
        record = row.record
        if record is None or (set_id is not None and record.set_id != set_id) or not labels & set(record.bots):
            continue
        sat = True
        pruned = store.is_pruned(record.set_id)
        for game in sorted(record.games, key=lambda g: -g.index):
            for seat, label in enumerate(game.seats):
                if label not in labels:
                    continue
                relative = stderr_log(record.set_id, game.index + 1, seat)
                size = 0 if pruned else log_tail(folder / relative, 0)[1]
                if not size and not pruned:
                    continue  # it wrote nothing to stderr in that game
                found.append(
                    BotLog(
                        record.set_id, game.index + 1, seat, label, relative, size, pruned, fault_summary(game, seat)
                    )
                )
        if last is not None and len(found) >= last:
            return found[:last]
    if set_id is not None and not sat:
        raise LadderError(f"{name} played no recorded set {set_id}")
    return found
