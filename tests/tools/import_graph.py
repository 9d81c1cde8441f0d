"""Print the import graph between our own modules: one ``importer -> imported`` edge a line, sorted.

    python tests/tools/import_graph.py [ROOT]            # ROOT: a checkout (default: this one)
    python tests/tools/import_graph.py --cycles [ROOT]   # the modules of each import cycle, one cycle a line

Reads the source with ``ast`` and imports nothing, so it works on any tree, e.g. an old commit unpacked with
``git archive COMMIT | tar -x -C DIR``. Every import counts, also those inside functions and ``if TYPE_CHECKING``.
``from package import name`` is an edge to ``package.name`` when that is a module, else to ``package``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Collection, Iterable, Iterator
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


def cycles(graph: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The import cycles of a graph given by its edges: each strongly connected component of more than one
    module (Tarjan's algorithm, iteratively), its modules sorted; the components sorted."""
    successors: dict[str, list[str]] = {}
    for importer, imported in graph:
        successors.setdefault(importer, []).append(imported)
        successors.setdefault(imported, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(successors):
        if root in index:
            continue
        work = [(root, iter(successors[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            step = next(pending, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(successors[step])))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def main(argv: list[str]) -> int:
    args = argv[1:]
    only_cycles = "--cycles" in args
    args = [a for a in args if a != "--cycles"]
    root = Path(args[0]) if args else Path(__file__).resolve().parents[2]
    if only_cycles:
        sys.stdout.write("".join(", ".join(cycle) + "\n" for cycle in cycles(edges(root))))
        return 0
    sys.stdout.write("".join(f"{importer} -> {imported}\n" for importer, imported in edges(root)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
