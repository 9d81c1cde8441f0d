"""The ladder's disk: a full one said as what it is, a reserve that lets a run record that it stopped on it, the
free-space floor a run starts above, what the ladder's folder holds, and reading the database on a full disk.

A run keeps ``DIR/.disk-reserve`` (a few MiB of zeros). When a write fails for want of space, whether in the
referee, in SQLite or in a file operation, the run removes the reserve, gives its set back, records in its row of
the runs table that it stopped on a full disk, and ends with one line; the next run that finds enough space makes
the reserve again. The commands that only read (``status``, ``standings``, ``logs``, ``results``) open the
database without needing space: SQLite's shared-memory index of the write-ahead log is a file, which a full disk
cannot grow, so they fall back to exclusive locking, which keeps that index in memory.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

from competition.ladder.config import DATABASE_NAME
from competition.ladder.ladder import LadderError, open_store
from competition.ladder.schema import StoreError, connect_reading
from competition.ladder.store import Store

__all__ = [
    "FULL_MARGIN_BYTES",
    "RESERVE_NAME",
    "DiskFull",
    "check_free_space",
    "disk_used",
    "free_bytes",
    "free_reserve",
    "is_disk_full",
    "make_reserve",
    "open_for_reading",
]

RESERVE_NAME = ".disk-reserve"
RESERVE_BYTES = 4 * 1024 * 1024
# Less free than this when a write failed: the failure is the full disk's, whatever the message said (the referee
# reports a replay it could not write as a game it could not play, SQLite a short write as "disk I/O error").
FULL_MARGIN_BYTES = 1024 * 1024
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}


class DiskFull(LadderError):
    """No space left on the device under the ladder's folder; the message says where and what failed."""


def free_bytes(folder: Path) -> int:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return 0


def is_disk_full(error: BaseException, folder: Path) -> bool:
    """Whether ``error`` (or what caused it) is a full disk under ``folder``. The chain is walked once: one
    exception raised again while it is handled (a Dask future's, re-raised on every result) can make it a cycle."""
    seen: BaseException | None = error
    walked: set[int] = set()
    while seen is not None and id(seen) not in walked:
        walked.add(id(seen))
        if isinstance(seen, DiskFull):
            return True
        if isinstance(seen, OSError) and seen.errno in _FULL_ERRNOS:
            return True
        if isinstance(seen, sqlite3.Error) and getattr(seen, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
            return True
        seen = seen.__cause__ or seen.__context__
    return free_bytes(folder) < FULL_MARGIN_BYTES


def disk_full(folder: Path, error: BaseException) -> DiskFull:
    detail = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return DiskFull(f"no space left on device under {folder}: {detail}")


def make_reserve(folder: Path) -> None:
    """Write the reserve if it is missing or short (a full disk: DiskFull, and no partial reserve is left)."""
    path = folder / RESERVE_NAME
    try:
        if path.stat().st_size == RESERVE_BYTES:
            return
    except FileNotFoundError:
        pass
    temporary = path.with_name(RESERVE_NAME + ".tmp")
    try:
        with temporary.open("wb") as file:
            chunk = bytes(1024 * 1024)
            for _ in range(RESERVE_BYTES // len(chunk)):
                file.write(chunk)  # written, not allocated sparse: the blocks must be ours to give back
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        if error.errno in _FULL_ERRNOS:
            raise disk_full(folder, error) from None
        raise


def free_reserve(folder: Path) -> bool:
    """Give the reserve's space back (so that the run can record why it stops); whether there was one."""
    try:
        (folder / RESERVE_NAME).unlink()
    except OSError:
        return False
    return True


def check_free_space(folder: Path, min_free_mb: int) -> None:
    """A run starts only with ``min_free_mb`` free under the ladder's folder (its reserve counted as free)."""
    if min_free_mb <= 0:
        return
    reserve = folder / RESERVE_NAME
    free = free_bytes(folder) + (reserve.stat().st_size if reserve.exists() else 0)
    if free < min_free_mb * 1024 * 1024:
        raise DiskFull(
            f"only {free // (1024 * 1024)} MB free under {folder}, below retention.min_free_mb = {min_free_mb}: "
            "free some space (retention.keep_days or keep_sets prune old replay logs) and the next run goes on"
        )


def disk_used(folder: Path) -> int:
    """Bytes in the ladder's folder (the site, if it is elsewhere, not counted); files that vanish meanwhile skipped."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


def open_for_reading(folder: Path) -> Store:
    """The store, for a command that only reads it, even on a full disk (see the module's docstring)."""
    try:
        return open_store(folder)
    except (StoreError, sqlite3.Error) as error:
        if free_bytes(folder) >= FULL_MARGIN_BYTES:
            raise
        try:
            return Store(connect_reading(folder / DATABASE_NAME))
        except (StoreError, sqlite3.Error):
            raise disk_full(folder, error) from None
