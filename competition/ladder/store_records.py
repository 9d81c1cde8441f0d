"""What the ladder's database holds, as the `competition.ladder.store.Store` hands it out: a bot's row, a set's, a
run's, a submission's, an event of the ladder's log, and the rule that a name belongs to its owner."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from competition.ladder.schema import StoreError
from competition.model import SetRecord

__all__ = [
    "Added",
    "Bot",
    "BotStatus",
    "ClaimedSet",
    "Event",
    "NameTaken",
    "RunInfo",
    "SetRow",
    "SetStatus",
    "Submission",
    "check_look_alike",
    "check_owner",
    "owner_phrase",
]


class BotStatus(enum.StrEnum):
    """A ladder bot's status: the values are what the database's ``bots.status`` column holds."""

    ACTIVE = "active"  # plays
    RETIRED = "retired"  # replaced by a new version or retired by its organiser
    DEACTIVATED = "deactivated"  # failed too often in a row; the organiser may reactivate it


# "cancelled": a planned set one of whose bots left before it was played (stored as voided, ``cancelled = 1``);
# "voided": a set the referee failed, never a bot (it is planned again in its place).
SetStatus = Literal["planned", "claimed", "played", "voided", "cancelled"]


class NameTaken(StoreError):
    """``add`` of a name that belongs to another owner."""


@dataclass(frozen=True)
class Added:
    """What ``add`` did: the bot (the new version, or the unchanged one), the versions it retired, and whether it
    found the bot unchanged (same command and program file: nothing was touched)."""

    bot: Bot
    retired: list[Bot]
    unchanged: bool = False


@dataclass(frozen=True)
class Event:
    at: float
    label: str | None
    event: str
    detail: str | None


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


@dataclass(frozen=True)
class Submission:
    owner: str
    name: str
    stamp: str  # the READY file taken (its inode, modification time and size)
    taken: float
    accepted: bool
    label: str | None  # the version it became
    reason: str | None  # why it was refused
    stderr: tuple[str, ...]  # the last lines its validation game wrote to stderr


def check_owner(bot: Bot, owner: str | None) -> None:
    """A name belongs to the owner of its first version: another owner (or none for an owned name) is refused."""
    if bot.owner == owner:
        return
    if bot.owner is None:
        raise NameTaken(
            f"{bot.name} was added without an owner: add its new version without --owner, or choose another name"
        )
    raise NameTaken(f"{bot.name} belongs to {bot.owner}: choose another name")


def owner_phrase(bot: Bot) -> str:
    return f"{bot.owner}'s" if bot.owner is not None else "added without an owner"


def check_look_alike(name: str, alike: Bot | None) -> None:
    """A new name that a reader could take for another bot's (`competition.names`) is refused, naming its owner."""
    if alike is None:
        return
    raise NameTaken(
        f"{name} is too like {alike.name} ({owner_phrase(alike)}): names that differ only in case or look-alike "
        "characters (0 O, 1 I l, m rn) are one name here; choose another name"
    )
