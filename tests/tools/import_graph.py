"""Print the import graph between our own modules: one ``importer -> imported`` edge a line, sorted.

    python tests/tools/import_graph.py [ROOT]        # ROOT: a checkout (default: this one)

Reads the source with ``ast`` and imports nothing, so it works on any tree, e.g. an old commit unpacked with
``git archive COMMIT | tar -x -C DIR``. Every import counts, also those inside functions and ``if TYPE_CHECKING``.
``from package import name`` is an edge to ``package.name`` when that is a module, else to ``package``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Collection, Iterator
from pathlib import Path

PACKAGES = ("kierki_cli", "competition", "referee", "protocol", "sample_bots")


def modules(root: Path) -> dict[str, Path]:
    """Every module of our packages, by dotted name (a package is named by its ``__init__``)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported_modules(name: str, path: Path, known: Collection[str]) -> Iterator[str]:
    """Our modules that one module imports: ``from p import m`` names module ``p.m`` when there is one, else ``p``."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (_ours(alias.name, known) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: ``from . import x`` in package p.q is p.q.x
                anchor = package[: len(package) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else _ours(base, known)


def _ours(dotted: str, known: Collection[str]) -> str:
    """The longest of our modules that ``dotted`` starts with, or "" for a module not ours."""
    parts = dotted.split(".")
    while parts and ".".join(parts) not in known:
        parts.pop()
    return ".".join(parts)


def edges(root: Path) -> list[tuple[str, str]]:
    known = modules(root)
    found = {
        (name, imported)
        for name, path in known.items()
        for imported in imported_modules(name, path, known)
        if imported and imported != name
    }
    return sorted(found)


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[2]
    sys.stdout.write("".join(f"{importer} -> {imported}\n" for importer, imported in edges(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
