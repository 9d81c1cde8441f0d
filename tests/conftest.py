"""Fixtures shared by several test modules, the Hypothesis profile (tests/hypothesis_profiles.py), and the
compiled build on request.

``KIERKI_COMPILED=DIR`` runs the tests against the compiled build of tools/build_compiled.py (setup.py's
``COMPILED``: the modules a match runs on every decision, compiled with mypyc):
DIR goes first on ``sys.path``, ahead of the checkout, before anything imports ``referee``; the session then
fails at once unless the compiled modules are the ones imported and were built from the current source.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path


def _use_compiled_build(directory: str) -> None:
    build = Path(directory).resolve()
    spec = importlib.util.spec_from_file_location(
        "build_compiled", Path(__file__).parent.parent / "tools/build_compiled.py"
    )
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    stamp = build / builder.STAMP
    if not stamp.exists() or stamp.read_text().strip() != builder.source_digest():
        raise RuntimeError(
            f"KIERKI_COMPILED={directory} is missing or older than the source: run tools/build_compiled.py"
        )
    sys.path.insert(0, str(build))
    from referee.rules import state

    if state.__file__ is None or state.__file__.endswith(".py"):
        raise RuntimeError(f"KIERKI_COMPILED={directory} holds no compiled build: run tools/build_compiled.py")


if os.environ.get("KIERKI_COMPILED"):
    _use_compiled_build(os.environ["KIERKI_COMPILED"])

import hypothesis_profiles  # noqa: E402  (after the compiled build is put first: these may import referee)
import pytest  # noqa: E402
from bot_helpers import build_c_bot, build_java_bot  # noqa: E402

hypothesis_profiles.load()


def pytest_report_header() -> str:
    return f"hypothesis profile: {hypothesis_profiles.PROFILE} (HYPOTHESIS_PROFILE)"


@pytest.fixture(scope="session")
def viewer_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A log of each game for the replay viewers' tests (html_helpers.viewer_logs), written once per session."""
    from html_helpers import viewer_logs as logs  # here: it imports the referee, after the compiled build is put first

    return logs(tmp_path_factory.mktemp("viewer_logs"))


@pytest.fixture(scope="session")
def java_bot(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...]:
    """sample_bots/java built once per session: the command that runs it (skips where javac is missing)."""
    return build_java_bot(tmp_path_factory.mktemp("java_bot"))


@pytest.fixture(scope="session")
def c_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_bots/c built once per session (skips where cc or cJSON is missing)."""
    return build_c_bot(tmp_path_factory.mktemp("c_bot"))
