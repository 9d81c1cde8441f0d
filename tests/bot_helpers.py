"""Helpers for the tests that run the starter bots as real processes: find an interpreter, build the C bot.

The C bot is built once per test session by the ``c_bot`` fixture (tests/conftest.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"


def need(program: str) -> str:
    """The path of ``program``, or skip the test when it is not installed."""
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"{program} is not installed; the {program} starter bot cannot run here")
    return found


def python_bot(path: Path, *args: str) -> tuple[str, ...]:
    return (sys.executable, str(path), *args)


def script_bot(language: str) -> tuple[str, ...]:
    """The command of the JavaScript or Perl starter bot (skips when node or perl is missing)."""
    program, script = {"js": ("node", SAMPLES / "js" / "bot.js"), "perl": ("perl", SAMPLES / "perl" / "bot.pl")}[
        language
    ]
    return (need(program), str(script))


def build_java_bot(out_dir: Path) -> tuple[str, ...]:
    """Compile sample_bots/java/Bot.java with javac as its comment says, warnings as errors; its command. Skips
    where javac or java is missing (.ci/run installs them)."""
    javac = shutil.which("javac")
    java = shutil.which("java")
    if javac is None or java is None:
        pytest.skip("no Java compiler (javac) or java on this machine; .ci/run installs them")
    built = subprocess.run(
        [javac, "-Xlint:all", "-Werror", "-d", str(out_dir), str(SAMPLES / "java" / "Bot.java")],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    return (java, "-cp", str(out_dir), "Bot")


def build_c_bot(out_dir: Path) -> Path:
    """Compile sample_bots/c/bot.c with cc as README says, warnings as errors; skip when cc or cJSON is missing."""
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (cc) on this machine; .ci/run installs what CI needs")
    probe = out_dir / "probe.c"
    probe.write_text("#include <cjson/cJSON.h>\nint main(void) { return cJSON_Version() == 0; }\n")
    found = subprocess.run([cc, "-o", str(out_dir / "probe"), str(probe), "-lcjson"], capture_output=True, text=True)
    if found.returncode != 0:
        pytest.skip(f"cJSON is not installed (Debian: apt-get install libcjson-dev): {found.stderr.strip()[:200]}")
    binary = out_dir / "bot"
    built = subprocess.run(
        [cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(binary), str(SAMPLES / "c" / "bot.c"), "-lcjson"],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr  # cJSON is there, so a failure is the bot's own
    return binary
