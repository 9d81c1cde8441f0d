"""Optional compiled build of the per-decision hot path (the rules core, the referee's loop and wire, the search
library); everything else is configured in pyproject.toml.

A plain ``pip install .`` needs no compiler and installs pure Python. With ``KIERKI_MYPYC=1`` the rules core and
the referee's per-decision path between it and the bots (`COMPILED`: `wire.py` and `wire_requests.py` build the
messages, `game_loop.py` plays the loop, `projection.py` decides what each seat sees; the transport `bots/lines.py`,
`polling.py`, `process.py`, the conversation `bots/seat.py` and its clock `bots/seat_clock.py`, the replay
`writer.py`, `match.py` and its `decision.py`; the search library's hot loop, `search/rollout.py`, `exact.py`,
`inference.py` and `pimc.py`, 3.3 times the playouts a CPU second, docs/bots/expert.md) are compiled with mypyc
from the same source, for speed. Classes that other code reads as plain data or subclasses from a builtin stay in
modules of their own that are not compiled (`bots/time_control.py`, `replay/errors.py`, the msgspec Structs):

    pip install mypy msgspec "setuptools>=77" wheel && KIERKI_MYPYC=1 pip install --no-build-isolation .

Without build isolation pip installs nothing before this file runs, so mypy (which compiles) and msgspec (whose
types the compiled modules use) must be there already, and a C compiler.

`tools/build_compiled.py` builds the same modules into a separate directory instead (CI and benchmarks).
"""

from __future__ import annotations

import importlib.util
import os

from setuptools import setup

COMPILED = [
    "referee/rules/cards.py",
    "referee/rules/dealing.py",
    "referee/rules/kierki_scoring.py",
    "referee/rules/results.py",
    "referee/rules/table.py",
    "referee/rules/state.py",
    "referee/rules/playout.py",
    "referee/rules/legality.py",
    "referee/rules/lottery.py",
    "referee/rules/tricks.py",
    "referee/rules/exchange.py",
    "referee/rules/fallback.py",
    "referee/rules/observation.py",
    "referee/rules/features.py",
    "referee/rules/projection.py",
    "referee/wire.py",
    "referee/wire_requests.py",
    "referee/game_loop.py",
    "referee/bots/lines.py",
    "referee/bots/polling.py",
    "referee/bots/process.py",
    "referee/bots/seat.py",
    "referee/bots/seat_clock.py",
    "referee/replay/writer.py",
    "referee/decision.py",
    "referee/match.py",
    "referee/search/rollout.py",
    "referee/search/exact.py",
    "referee/search/inference.py",
    "referee/search/pimc.py",
]

ext_modules = []
if os.environ.get("KIERKI_MYPYC") == "1":
    missing = [name for name in ("mypy", "msgspec") if importlib.util.find_spec(name) is None]
    if missing:
        raise SystemExit(
            f"KIERKI_MYPYC=1: the mypyc build needs {' and '.join(missing)} installed first: "
            'pip install mypy msgspec "setuptools>=77" wheel, then KIERKI_MYPYC=1 pip install --no-build-isolation .'
        )
    from mypyc.build import mypycify

    # tools/build_compiled.py names a folder of its own for the generated C (default: build/).
    ext_modules = mypycify(COMPILED, opt_level="3", target_dir=os.environ.get("KIERKI_MYPYC_TARGET", "build"))

setup(ext_modules=ext_modules)
