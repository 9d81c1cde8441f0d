"""The competition layer's house, checked on the source (issue 21): one `Isolation` class, one place that builds a
match's configuration, one loop that plays a duplicate set, no module over 600 lines (import cycles:
tests/test_layering.py).

Each check reads the tree with ``ast`` and names what breaks it, so a second copy of an idea fails here with where
it is; each fails on the tree before issue 21 (two ``Isolation`` classes, ``MatchConfig`` built in six places, three
loops expanding rotations, the import cycles of the executors and of the script's help).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tools.import_graph import PACKAGES

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (*PACKAGES, "bench", "tools")  # the product and what measures it; tests build what they test by hand


def _python_files(*folders: str) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def _calls_to(name: str, *folders: str) -> list[str]:
    """Where ``name(...)`` or ``something.name(...)`` is called."""
    found = []
    for path in _python_files(*folders):
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            if isinstance(node, ast.Call):
                called = node.func
                if (isinstance(called, ast.Name) and called.id == name) or (
                    isinstance(called, ast.Attribute) and called.attr == name
                ):
                    found.append(_where(path, node))
    return found


def test_one_class_is_named_isolation() -> None:
    classes = [
        _where(path, node)
        for path in _python_files(*SOURCES)
        for node in ast.walk(ast.parse(path.read_bytes()))
        if isinstance(node, ast.ClassDef) and node.name == "Isolation"
    ]
    assert [where.split(":")[0] for where in classes] == ["referee/bots/isolation.py"], classes


def test_a_match_configuration_is_built_in_one_place() -> None:
    """``MatchConfig.from_spec`` is the one factory (it calls ``cls``); everything else states a plain `MatchSpec`.
    The one exception is bench/instructions.py's branch for counting a tree older than the factory (257d922)."""
    calls = _calls_to("MatchConfig", *SOURCES)
    assert [where for where in calls if not where.startswith("bench/instructions.py:")] == []
    assert len(calls) <= 1


def test_one_loop_expands_and_submits_a_duplicate_set() -> None:
    """The tournament (and so SPRT) and the ladder play sets through ``competition.duplicate_set.play_set``."""
    submitted = {where.split(":")[0] for where in _calls_to("submit", "competition", "kierki_cli")}
    executors = {"competition/runner.py", "competition/dask_executor.py"}  # each hands a game on to its own pool
    assert submitted - executors == {"competition/duplicate_set.py"}
    # The tournament's plan states each set's rotations up front (a paired set takes its pair's); no one else does.
    expanded = {where.split(":")[0] for where in _calls_to("set_rotations", "competition", "kierki_cli")}
    assert expanded == {"competition/duplicate_set.py", "competition/plan.py"}
    users = {where.split(":")[0] for where in _calls_to("play_set", "competition", "kierki_cli")}
    assert users == {"competition/tournament.py", "competition/ladder/play.py"}


def test_no_module_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _python_files(*PACKAGES)
        if (lines := len(path.read_bytes().splitlines())) > 600
    }
    assert long == {}
