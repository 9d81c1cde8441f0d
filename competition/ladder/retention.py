"""How long a ladder keeps its sets' logs: ``[retention]`` in ladder.toml.

A played set's folder (``DIR/sets/NNNNNN/``: its replay logs, its bots' stderr and transcript logs) is removed once
it is older than ``keep_days`` days or than the newest ``keep_sets`` played sets (0 turns a limit off); its result,
its rating update and everything the site counts stay in the database. The folder is removed first and then marked
pruned, so a kill in between only makes the next run remove what is left of it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from competition.ladder.config import RetentionSettings
from competition.ladder.store import Store

__all__ = ["prune_old_sets", "set_folder"]


def set_folder(folder: Path, set_id: int) -> Path:
    return folder / "sets" / f"{set_id:06d}"


def prune_old_sets(folder: Path, store: Store, retention: RetentionSettings) -> int:
    """Remove the logs of the sets the limits leave out; returns how many sets' logs were removed."""
    if not retention.keep_days and not retention.keep_sets:
        return 0
    before = store.clock() - retention.keep_days * 86400.0 if retention.keep_days else None
    sets = store.prunable(before, retention.keep_sets)
    for set_id in sets:
        shutil.rmtree(set_folder(folder, set_id), ignore_errors=True)
        store.mark_pruned(set_id)
    return len(sets)
