"""Optional compiled build of the rules core; everything else is configured in pyproject.toml.

A plain ``pip install .`` needs no compiler and installs pure Python. With ``KIERKI_MYPYC=1`` the rules core and
the referee's per-decision path between it and the bots (`COMPILED`: `wire.py` builds the messages, `game_loop.py`
plays the loop, `projection.py` decides what each seat sees; the transport `bots/lines.py`, `polling.py`,
`process.py`, the conversation `bots/seat.py`, the replay `writer.py` and `match.py`) are compiled with mypyc from
the same source, for speed. Classes that other code reads as plain data or subclasses from a builtin stay in
modules of their own that are not compiled (`bots/time_control.py`, `replay/errors.py`, the msgspec Structs):

    KIERKI_MYPYC=1 pip install --no-build-isolation .     # needs mypy and a C compiler in the environment

`tools/build_compiled.py` builds the same modules into a separate directory instead (CI and benchmarks).
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = [
    "referee/rules/cards.py",
    "referee/rules/dealing.py",
    "referee/rules/kierki_scoring.py",
    "referee/rules/results.py",
    "referee/rules/state.py",
    "referee/rules/playout.py",
    "referee/rules/legality.py",
    "referee/rules/lottery.py",
    "referee/rules/tricks.py",
    "referee/rules/exchange.py",
    "referee/rules/fallback.py",
    "referee/rules/observation.py",
    "referee/rules/projection.py",
    "referee/wire.py",
    "referee/game_loop.py",
    "referee/bots/lines.py",
    "referee/bots/polling.py",
    "referee/bots/process.py",
    "referee/bots/seat.py",
    "referee/replay/writer.py",
    "referee/match.py",
]

ext_modules = []
if os.environ.get("KIERKI_MYPYC") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
