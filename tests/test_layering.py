"""The layering is enforced: import-linter's contracts (pyproject, [tool.importlinter]) hold, and each one fails
when a forbidden import is added to a copy of the tree, so a contract that checks nothing cannot pass unnoticed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from tools.import_graph import PACKAGES, edges

ROOT = Path(__file__).resolve().parents[1]


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the tree at ``root`` (its packages first on the path, ahead of the installed ones)."""
    env = {**os.environ, "PYTHONPATH": str(root), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_layering_contracts_hold() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("referee/rules/cards.py", "import referee.wire", "referee.rules imports nothing of ours"),
        ("referee/rules/state.py", "from protocol import codec", "referee.rules imports nothing of ours"),
        ("referee/rules/cards.py", "import kierki_cli", "referee.rules imports nothing of ours"),
        ("protocol/codec.py", "import referee.rules", "protocol imports nothing of ours"),
        ("referee/bots/process.py", "import protocol.codec", "the bot transport and sandbox know neither"),
        ("referee/bots/sandbox.py", "from referee.rules import cards", "the bot transport and sandbox know neither"),
        # Indirect: the dealfile module imports the rules.
        ("referee/bots/process.py", "import referee.dealfile", "the bot transport and sandbox know neither"),
        ("referee/match.py", "import kierki_cli.common", "kierki_cli -> competition -> referee -> protocol"),
        ("competition/__init__.py", "import kierki_cli.main", "kierki_cli -> competition -> referee -> protocol"),
        ("referee/wire.py", "import competition", "kierki_cli -> competition -> referee -> protocol"),
        ("sample_bots/random_bot.py", "import protocol.messages", "sample bots speak only PROTOCOL.md"),
        ("referee/learning/encoding.py", "import referee.wire", "referee.learning imports only the rules core"),
        ("referee/learning/env.py", "import competition.model", "referee.learning imports only the rules core"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(tmp_path: Path, module: str, line: str, contract: str) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "*.c"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with open(tmp_path / module, "a") as file:
        file.write(f"\n{line}  # the break under test\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    # A contract with ignored imports reports them after its verdict: "... BROKEN (3 ignored imports)".
    broken = [row for row in result.stdout.splitlines() if re.search(r" BROKEN( \(.*\))?$", row.rstrip())]
    assert any(row.startswith(contract) for row in broken), result.stdout


def test_the_graph_tool_agrees_with_grimp() -> None:
    """tests/tools/import_graph.py (which can read an old commit's tree) sees the edges import-linter sees."""
    graph = grimp.build_graph(*PACKAGES)
    theirs = {(m, imported) for m in graph.modules for imported in graph.find_modules_directly_imported_by(m)}
    assert set(edges(ROOT)) == theirs
