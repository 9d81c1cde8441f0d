"""``KIERKI_COMPILED=DIR`` honoured for a user's own script: the rules core from the compiled build in DIR.

tools/build_compiled.py writes the compiled build (mypyc) into a directory of its own. A script that imports
``referee.learning`` with ``KIERKI_COMPILED`` set to that directory runs the compiled modules: `use_compiled_build`
puts DIR first on ``sys.path`` (the compiled modules' shared library lives there) and DIR's ``referee`` first on
the package's path, before the rules core is imported, so that ``referee.rules`` and the other compiled modules
come from the build while this package (which is not compiled) comes from the checkout. A build made from other
source than the checkout's, or a rules core already imported from the source, is an error that says what to do.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import referee

STAMP = "BUILT_FROM"  # tools/build_compiled.py's stamp: the digest of the source the build was made from


def source_digest(package: Path) -> str:
    """tools/build_compiled.py's digest of the ``referee`` package's Python files."""
    digest = hashlib.sha256()
    root = package.parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def use_compiled_build(directory: str) -> None:
    build = Path(directory).resolve()
    compiled = build / "referee"
    if str(compiled) in referee.__path__:
        return
    source = Path(referee.__file__).resolve().parent
    if compiled == source:  # (the build itself is on sys.path already: PYTHONPATH=DIR)
        return
    stamp = build / STAMP
    if not stamp.is_file() or not compiled.is_dir():
        raise RuntimeError(
            f"KIERKI_COMPILED={directory} holds no compiled build: run tools/build_compiled.py {directory}"
        )
    if stamp.read_text().strip() != source_digest(source):
        raise RuntimeError(
            f"KIERKI_COMPILED={directory} was built from other source than {source}: "
            f"run tools/build_compiled.py {directory} again"
        )
    if "referee.rules" in sys.modules:
        raise RuntimeError(
            "KIERKI_COMPILED is set but the rules core was imported from the source already: "
            "import referee.learning first (or put the build on PYTHONPATH)"
        )
    sys.path.insert(0, str(build))
    referee.__path__.insert(0, str(compiled))


if os.environ.get("KIERKI_COMPILED"):
    use_compiled_build(os.environ["KIERKI_COMPILED"])
