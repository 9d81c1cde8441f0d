"""Fixtures shared by several test modules."""

from __future__ import annotations

from pathlib import Path

import pytest
from bot_helpers import build_c_bot


@pytest.fixture(scope="session")
def c_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_bots/c built once per session (skips where cc or cJSON is missing)."""
    return build_c_bot(tmp_path_factory.mktemp("c_bot"))
