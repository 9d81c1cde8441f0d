"""No block of code written twice (issue 31 item 7): pylint's similarity checker (``symilar``, the engine of
``pylint --enable=duplicate-code``) reads the packages, bench, tools, examples and the tests, and every pair of files
that shares a block of ``MIN_LINES`` or more lines must be on ``SHARED_LINES_ALLOWED``, a budget of today's shared
lines per pair that may only shrink.

The lines are compared as pylint compares them by default: comments, docstrings, imports and function signatures
left out, white space stripped. It pairs two files, not two places in one file: a block repeated inside one module
is not seen. The bots written as a stranger would write them (``sample_bots/*_bot.py``, and the test bots in
``tests/bots`` and ``tests/hostile``) are left out: each stands alone and speaks the protocol itself, so each
repeats the others' reading loop on purpose.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from pylint.checkers.symilar import Symilar
from tools.import_graph import PACKAGES

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (*PACKAGES, "bench", "tools", "examples", "tests")
STRANGERS = ("sample_bots/*_bot.py", "tests/bots/**/*.py", "tests/hostile/**/*.py")
MIN_LINES = 6  # as the `duplicates` command counts a pair; pylint's own default is 4

# Pairs of files that share blocks today, to the lines they share; the list only shrinks (a pair whose blocks are
# made one is taken off, one that shares fewer lines gets the lower number). A new pair, or more lines shared by a
# pair, fails: make one place serve both, or, where the repeat is on purpose, add it here with the reason.
SHARED_LINES_ALLOWED = {
    # the wire's points breakdown repeats the rules core's field by field (protocol imports nothing of ours)
    "protocol/messages.py ~ referee/rules/points.py": 11,
    # the test that the expert plays every Kierki deal names the kinds itself, not read back from the wire's type
    "protocol/messages.py ~ tests/test_expert_bot.py": 9,
    # process.py lists the results of its calls in its `__all__` too (tests/fake_transport.py and the seat's tests
    # import them from there)
    "referee/bots/pipe_results.py ~ referee/bots/process.py": 9,
    # each is run as a file: it finds its package on the path before it can import anything the two could share
    "sample_bots/expert/__main__.py ~ sample_bots/montecarlo/__main__.py": 8,
}


class SharedBlock(NamedTuple):
    """One block that two files share: the pair's name (``a.py ~ b.py``), its lines, and its first line in each."""

    pair: str
    lines: int
    where: str


def python_files(root: Path, folders: Iterable[str] = FOLDERS) -> list[Path]:
    """The Python files below ``folders`` of ``root``, less the strangers' bots."""
    strangers = {path for pattern in STRANGERS for path in root.glob(pattern)}
    return [path for folder in folders for path in sorted((root / folder).rglob("*.py")) if path not in strangers]


def shared_blocks(root: Path, files: Iterable[Path], min_lines: int = MIN_LINES) -> list[SharedBlock]:
    """Every block of at least ``min_lines`` lines that two of ``files`` share, by pylint's similarity checker."""
    checker = Symilar(
        min_lines=min_lines, ignore_comments=True, ignore_docstrings=True, ignore_imports=True, ignore_signatures=True
    )
    for path in files:
        with path.open(encoding="utf-8") as stream:
            checker.append_stream(path.relative_to(root).as_posix(), stream)
    # Each pair as the checker finds it: its report (`run`, pylint's R0801) folds a block that a third file repeats
    # into the first pair that has it, so a third copy of a shared block would not fail.
    blocks = []
    for common in checker._iter_sims():
        first, second = sorted(
            [(common.fst_lset.name, common.fst_file_start), (common.snd_lset.name, common.snd_file_start)]
        )
        where = f"{first[0]}:{first[1] + 1} ~ {second[0]}:{second[1] + 1}"  # the first line of each (from 0)
        blocks.append(SharedBlock(f"{first[0]} ~ {second[0]}", common.cmn_lines_nb, where))
    return blocks


def over_budget(blocks: Iterable[SharedBlock], allowed: dict[str, int]) -> tuple[list[str], list[str]]:
    """The blocks of each pair that shares more lines than ``allowed`` lets it, and the pairs that share fewer."""
    blocks = list(blocks)
    found: dict[str, int] = {}
    for block in blocks:
        found[block.pair] = found.get(block.pair, 0) + block.lines
    grown = [
        f"{block.where} ({block.lines} lines; the pair shares {found[block.pair]}, allowed {budget})"
        for block in blocks
        if found[block.pair] > (budget := allowed.get(block.pair, 0))
    ]
    shrunk = [f"{pair}: {found.get(pair, 0)}" for pair, lines in allowed.items() if found.get(pair, 0) < lines]
    return sorted(grown), sorted(shrunk)


def test_no_block_is_written_twice() -> None:
    grown, shrunk = over_budget(shared_blocks(ROOT, python_files(ROOT)), SHARED_LINES_ALLOWED)
    assert grown == [], (
        "written twice: make one place serve both (or, if on purpose, add the pair to the budget):\n" + "\n".join(grown)
    )
    assert shrunk == [], "fixed: lower the budget in SHARED_LINES_ALLOWED to these:\n" + "\n".join(shrunk)


def _block(name: str, lines: int) -> str:
    return f"def {name}(values):\n" + "".join(f"    total_{i} = sum(v * {i} for v in values)\n" for i in range(lines))


def test_the_guard_finds_a_planted_block(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(_block("first", 8) + "\n\nX = 1\n")
    (tmp_path / "pkg" / "b.py").write_text("Y = 2\n\n\n" + _block("second", 8))
    (tmp_path / "pkg" / "c.py").write_text(_block("third", 3))  # too short a block to count
    blocks = shared_blocks(tmp_path, python_files(tmp_path, ["pkg"]))
    assert blocks == [SharedBlock("pkg/a.py ~ pkg/b.py", 8, "pkg/a.py:2 ~ pkg/b.py:5")]
    assert over_budget(blocks, {}) == (["pkg/a.py:2 ~ pkg/b.py:5 (8 lines; the pair shares 8, allowed 0)"], [])
    assert over_budget(blocks, {"pkg/a.py ~ pkg/b.py": 8}) == ([], [])
    assert over_budget(blocks, {"pkg/a.py ~ pkg/b.py": 9, "pkg/a.py ~ pkg/c.py": 6}) == (
        [],
        ["pkg/a.py ~ pkg/b.py: 8", "pkg/a.py ~ pkg/c.py: 0"],
    )


def test_a_third_copy_of_a_shared_block_is_a_new_pair(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.py").write_text(_block(name, 7))
    blocks = shared_blocks(tmp_path, sorted(tmp_path.glob("*.py")))
    assert sorted(block.pair for block in blocks) == ["a.py ~ b.py", "a.py ~ c.py", "b.py ~ c.py"]
    grown, _shrunk = over_budget(blocks, {"a.py ~ b.py": 7})
    assert grown == [
        "a.py:2 ~ c.py:2 (7 lines; the pair shares 7, allowed 0)",
        "b.py:2 ~ c.py:2 (7 lines; the pair shares 7, allowed 0)",
    ]


def test_the_strangers_bots_are_left_out() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in python_files(ROOT)}
    assert "sample_bots/heuristic_bot.py" not in names
    assert not any(name.startswith(("tests/bots/", "tests/hostile/")) for name in names)
    assert {"sample_bots/expert/__main__.py", "tests/test_duplicates.py", "referee/match.py"} <= names
