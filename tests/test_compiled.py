"""The mypyc-compiled rules core plays exactly the games the pure one does.

Runs only with ``KIERKI_COMPILED=DIR`` (a build from tools/build_compiled.py; .ci/run sets it): the same seeded
games, playouts and sampled worlds (tests/compiled_digest.py) in one process with the pure source and one with the
compiled build, and every event of every game (by hash of its repr) must agree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPILED = os.environ.get("KIERKI_COMPILED")
pytestmark = pytest.mark.skipif(not COMPILED, reason="set KIERKI_COMPILED to a tools/build_compiled.py build")


def digest(path: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": path}
    env.pop("KIERKI_COMPILED", None)
    script = str(ROOT / "tests" / "compiled_digest.py")
    done = subprocess.run(
        [sys.executable, "-P", script, "150"], env=env, cwd=ROOT / "tests", capture_output=True, text=True
    )
    assert done.returncode == 0, f"compiled_digest.py with PYTHONPATH={path} failed:\n{done.stderr}"
    return done.stdout.splitlines()


def test_compiled_and_pure_builds_play_identical_games() -> None:
    assert COMPILED is not None
    pure = digest(str(ROOT))
    compiled = digest(os.path.abspath(COMPILED))
    assert pure[0] == "pure" and compiled[0] == "compiled"
    assert len(pure) == len(compiled) == 151
    for ours, theirs in zip(pure[1:], compiled[1:], strict=True):
        assert ours == theirs
