"""Build the compiled build (setup.py's ``COMPILED``: the modules a match runs on every decision, compiled by mypyc)
into a directory of its own, beside the pure source.

    python tools/build_compiled.py [DIR]        # default build/compiled

DIR then holds a copy of the ``referee`` package whose modules listed in setup.py's ``COMPILED`` are
compiled, and the bytecode of those that are not: where Python may not write bytecode (``PYTHONDONTWRITEBYTECODE``,
as on this project's machines) every start would compile them from source again, about 14 ms of CPU per
``kierki match``, which made the compiled build slower to start than the pure one (BENCHMARKS.md). Put DIR first
on ``sys.path`` to use it: ``KIERKI_COMPILED=DIR python -m pytest ...`` (see tests/conftest.py) or
``PYTHONPATH=DIR python bench/run.py ...`` (bench/run.py honours the same variable).
Needs mypy and setuptools >= 77 (test dependencies: the build runs setup.py in this environment) and a C compiler.
"""

from __future__ import annotations

import compileall
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


STAMP = "BUILT_FROM"  # in the build directory: the digest of the source it was built from


def source_digest() -> str:
    """A digest of every Python file of the ``referee`` package (the build holds a copy of all of them)."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "referee").rglob("*.py")):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    target = Path(argv[0] if argv else ROOT / "build" / "compiled").resolve()
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ROOT / "referee", target / "referee", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    # mypyc's C and the objects in a folder of this build's own, not the checkout's build/: two builds of one
    # checkout at once (the suite's, when pytest 9 split its xdist group) shared those files, and one linked a group
    # library of 14 kB that defines no module. The load check below makes a broken build fail here, not in a test.
    with tempfile.TemporaryDirectory(prefix="kierki-mypyc-") as temp:
        env = {**os.environ, "KIERKI_MYPYC": "1", "KIERKI_MYPYC_TARGET": str(Path(temp) / "c")}
        objects = str(Path(temp) / "objects")
        command = [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(target), "--build-temp", objects]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.stderr.write(done.stdout + done.stderr)
        print(f"the mypyc build failed (exit {done.returncode}): see the compiler output above", file=sys.stderr)
        return 1
    check = subprocess.run(  # every compiled module loads (outside the checkout, so that only the build is found)
        [sys.executable, "-P", "-c", "import referee.match, referee.rules.features, referee.rules.playout"],
        cwd=target,
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
    )
    if check.returncode:
        sys.stderr.write(check.stderr[-3000:])
        print(f"the build in {target} does not load: see the error above", file=sys.stderr)
        return 1
    if not compileall.compile_dir(target / "referee", quiet=1):
        print(f"could not compile the bytecode of {target / 'referee'}", file=sys.stderr)
        return 1
    (target / STAMP).write_text(source_digest() + "\n")
    built = sorted(p.relative_to(target).as_posix() for p in target.rglob("*.so"))
    print(f"compiled into {target}: {', '.join(built)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
