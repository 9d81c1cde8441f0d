"""The layering is enforced: import-linter's contracts (pyproject, [tool.importlinter]) hold, and each one fails
when a forbidden import is added to a copy of the tree, so a contract that checks nothing cannot pass unnoticed.
No module of the tree imports itself through others (type-checking and function-level imports count too).
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
from tools.import_graph import PACKAGES, cycles, edges

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
        # The Monte Carlo bot's exception is narrow: the bot library, the messages and referee.rules itself only.
        ("sample_bots/random_bot.py", "import referee.rules", "sample bots speak only PROTOCOL.md"),
        ("sample_bots/montecarlo/bot.py", "import referee.rules.state", "sample bots speak only PROTOCOL.md"),
        ("sample_bots/montecarlo/bot.py", "from referee.rules import playout", "sample bots speak only PROTOCOL.md"),
        ("sample_bots/montecarlo/bot.py", "import protocol.codec", "sample bots speak only PROTOCOL.md"),
        ("sample_bots/montecarlo/bot.py", "import referee.match", "sample bots speak only PROTOCOL.md"),
        ("sample_bots/montecarlo/search.py", "import competition.stats", "sample bots speak only PROTOCOL.md"),
        ("sample_bots/expert/bot.py", "import referee.match", "sample bots speak only PROTOCOL.md"),
        ("sample_bots/expert/bot.py", "from referee.search import pimc", "sample bots speak only PROTOCOL.md"),
        ("referee/search/pimc.py", "import referee.wire", "referee.search imports only the rules core"),
        ("referee/search/exact.py", "import protocol.codec", "referee.search imports only the rules core"),
        ("referee/search/budget.py", "import competition", "referee.search imports only the rules core"),
        ("referee/learning/encoding.py", "import referee.wire", "referee.learning imports only the rules core"),
        ("referee/learning/env.py", "import competition.model", "referee.learning imports only the rules core"),
        ("referee/match_config.py", "import sample_bots", "referee and competition never import sample_bots"),
        ("competition/ratings.py", "from sample_bots import random_bot", "referee and competition never import"),
        ("referee/learning/policies.py", "from sample_bots import heuristic_bot", "referee.learning imports only"),
        # The floors above reach the referee through its doors (referee.api and the documented packages) only.
        ("kierki_cli/styled.py", "import referee.match", "kierki_cli and competition import the referee only"),
        ("competition/stats.py", "from referee.bots.isolation import Isolation", "kierki_cli and competition import"),
        ("competition/ratings.py", "from referee.rules.cards import Card", "kierki_cli and competition import"),
        ("kierki_cli/replay_view.py", "from referee.replay import view", "kierki_cli and competition import"),
        # The shared vocabulary knows nothing of the conductor, and the conductor nothing of the door.
        (
            "referee/vocabulary/text.py",
            "import referee.match",
            "the referee's door above its conductor above its shared",
        ),
        (
            "referee/vocabulary/faults.py",
            "from referee.bots import seat",
            "the referee's door above its conductor above its",
        ),
        ("referee/replay/view.py", "from referee import api", "the referee's door above its conductor above its"),
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


# Cycles outside referee/ and protocol/ that predate the check, left to the layers that own them (issue 21): each
# must still exist (so the list cannot go stale) and is taken out here when it is broken.
def test_no_import_cycle_anywhere() -> None:
    graph = grimp.build_graph(*PACKAGES)
    found = cycles((m, imported) for m in graph.modules for imported in graph.find_modules_directly_imported_by(m))
    assert found == []


@pytest.mark.parametrize(
    ("module", "line", "cycle"),
    [
        (
            "referee/rules/cards.py",
            "from referee.rules import dealing",
            ["referee.rules.cards", "referee.rules.dealing"],
        ),
        # a type-checking import is a cycle too: it names the coupling, whether or not it runs
        (
            "referee/rules/legality.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from referee.rules.state import GameState",
            ["referee.rules.legality", "referee.rules.state"],
        ),
        ("protocol/messages.py", "import protocol.codec", ["protocol.codec", "protocol.messages"]),
    ],
)
def test_an_added_cycle_is_found(tmp_path: Path, module: str, line: str, cycle: list[str]) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "*.c"))
    with open(tmp_path / module, "a") as file:
        file.write(f"\n{line}  # the cycle under test\n")
    assert any(set(cycle) <= set(found) for found in cycles(edges(tmp_path)))
    assert not any(set(cycle) <= set(found) for found in cycles(edges(ROOT)))


def test_the_referee_finds_the_sample_bots_as_files_without_importing_them() -> None:
    """``sample:NAME`` and the default bots are paths beside the referee package; ``sample_bots`` is never imported."""
    code = (
        "import sys\n"
        "from referee.match_config import SAMPLE_BOTS, default_bots, sample_bot_command\n"
        "paths = [spec.argv[-1] for spec in default_bots(4)]\n"
        "paths += [sample_bot_command(name + '_bot').argv[-1] for name in SAMPLE_BOTS]\n"
        "print('\\n'.join(paths))\n"
        "assert 'sample_bots' not in sys.modules, 'imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    paths = [Path(line) for line in done.stdout.splitlines()]
    assert [path.relative_to(ROOT / "sample_bots").as_posix() for path in paths[4:]] == [
        "heuristic_bot.py",
        "random_bot.py",
        "montecarlo/__main__.py",
        "expert/__main__.py",
    ]
    assert all(path.is_file() for path in paths)
