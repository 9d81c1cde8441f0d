"""Tries to read the organiser's files that hold every hand: a deal file, a replay resumed from, earlier logs.

usage: read_files.py [AFTER]. The paths come in ``$KIERKI_SNOOP_PATHS`` (absolute, separated by ``:``), so they
are not on its command line (where the sandbox would take them for its own files). It plays correctly and writes
what each read gave to ``$HOME/read.json``: a test reads that report.
"""

import json
import os
from pathlib import Path
from typing import Any

from _common import Message, run

home = Path(os.environ.get("HOME", "."))


def probe(path: str) -> dict[str, Any]:
    try:
        if os.path.isdir(path):
            return {"ok": True, "value": sorted(os.listdir(path))}
        return {"ok": True, "value": Path(path).read_text(errors="replace")[:5000]}
    except OSError as error:
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def read(msg: Message, reply: Message, n: int) -> bool:
    paths = [p for p in os.environ.get("KIERKI_SNOOP_PATHS", "").split(":") if p]
    (home / "read.json").write_text(json.dumps({path: probe(path) for path in paths}))
    return False


run(read)
