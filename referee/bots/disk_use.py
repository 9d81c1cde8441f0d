"""What the bots' private directories hold, measured when the disk they share with the referee is full: the write of
the referee's that failed is charged to the seat whose directory holds the space (``referee.match``).

A bot fills only its own tmpfs under bubblewrap by default (``referee.bots.sandbox``); this is for the rest: no
sandbox, or ``--limit-disk 0``, where its private directory is a folder on the disk the logs are written to. Bytes
and files both count, so many small files (a disk out of inodes) are charged as surely as one large one. The walk is
bounded: a directory of millions of entries is counted up to ``WALK_LIMIT``, which is already enough to blame it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["HOG_BYTES", "HOG_FILES", "WALK_LIMIT", "DiskUse", "disk_use", "hog"]

HOG_BYTES: Final = 1024 * 1024  # less than this in a private directory: not the cause of a full disk
HOG_FILES: Final = 1000  # ... and fewer entries than this
WALK_LIMIT: Final = 200_000  # entries counted per directory at most
_FILE_WEIGHT: Final = 4096  # an entry weighs as much as a block, so a directory of empty files weighs something


@dataclass(frozen=True)
class DiskUse:
    """The space a directory's tree takes: its blocks' bytes and its entries (files, folders, links)."""

    bytes: int = 0
    files: int = 0

    @property
    def weight(self) -> int:
        return self.bytes + self.files * _FILE_WEIGHT

    def __str__(self) -> str:
        more = "+" if self.files >= WALK_LIMIT else ""
        return f"{self.bytes / (1024 * 1024):.1f} MB in {self.files}{more} files"


def disk_use(folder: Path) -> DiskUse:
    """The blocks and entries under ``folder`` (symlinks not followed, entries that vanish skipped, at most
    ``WALK_LIMIT`` entries); an empty `DiskUse` for a folder that is not there. A folder its bot made unreadable
    (mode 000) is made readable again, to be counted and later removed."""
    total = files = 0
    stack = [os.fspath(folder)]
    while stack and files < WALK_LIMIT:
        path = stack.pop()
        try:
            entries = os.scandir(path)
        except PermissionError:  # a bot that hides its files from its own user: they are that user's to open
            try:
                os.chmod(path, 0o700)
                entries = os.scandir(path)
            except OSError:
                continue
        except OSError:
            continue
        with entries:
            for entry in entries:
                files += 1
                try:
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                except OSError:
                    continue
                if files >= WALK_LIMIT:
                    break
    return DiskUse(total, files)


def hog(uses: Sequence[DiskUse]) -> int | None:
    """The index of the directory that holds the most, when it holds enough to have filled a disk; else None."""
    if not uses:
        return None
    index = max(range(len(uses)), key=lambda i: uses[i].weight)
    use = uses[index]
    return index if use.bytes >= HOG_BYTES or use.files >= HOG_FILES else None
