"""The Hypothesis profiles select as documented: CI derandomized without a database, deep with more examples."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import hypothesis_profiles
from hypothesis import settings
hypothesis_profiles.load()
print(settings.default.derandomize, settings.default.database is None, hypothesis_profiles.examples(3))
"""


@pytest.mark.parametrize("in_ci", [False, True], ids=["local", "in-a-CI-job"])
@pytest.mark.parametrize(
    ("profile", "expected"),
    [("ci", "True True 3"), ("dev", "False False 3"), ("deep", "False False 30"), (None, "False False 3")],
)
def test_profile_from_the_environment(profile: str | None, expected: str, in_ci: bool) -> None:
    # Hypothesis loads its own derandomized profile when it sees CI=...; ours must not inherit it.
    env = {k: v for k, v in os.environ.items() if k not in ("HYPOTHESIS_PROFILE", "CI", "GITHUB_ACTIONS")}
    if in_ci:
        env["CI"] = "true"
    if profile is not None:
        env["HYPOTHESIS_PROFILE"] = profile
    env["PYTHONPATH"] = str(Path(__file__).parent)
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.split() == expected.split()


def test_an_unknown_profile_is_refused() -> None:
    env = {**os.environ, "HYPOTHESIS_PROFILE": "fast", "PYTHONPATH": str(Path(__file__).parent)}
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert result.returncode != 0 and "fast" in result.stderr
