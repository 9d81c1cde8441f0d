"""Fixtures shared by several test modules, and the Hypothesis profile (tests/hypothesis_profiles.py)."""

from __future__ import annotations

from pathlib import Path

import hypothesis_profiles
import pytest
from bot_helpers import build_c_bot

hypothesis_profiles.load()


def pytest_report_header() -> str:
    return f"hypothesis profile: {hypothesis_profiles.PROFILE} (HYPOTHESIS_PROFILE)"


@pytest.fixture(scope="session")
def c_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_bots/c built once per session (skips where cc or cJSON is missing)."""
    return build_c_bot(tmp_path_factory.mktemp("c_bot"))
