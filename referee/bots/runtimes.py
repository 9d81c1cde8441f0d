"""A language runtime that could not start, told by what it printed: the JVM, .NET, Go and Node print their
start-up failures (often on stdout, where the referee takes them for broken answers) in words of their own.

check-bot and a match's failed handshake name the runtime and the usual cause (its memory limit) instead of
"a debug print on stdout?".
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["RUNTIME_HINT", "runtime_failure"]

_FAILURES: Final = (
    ("the JVM", re.compile(rb"^(Error occurred during initialization of VM|Error: Could not create the Java Virtual)")),
    ("the JVM", re.compile(rb"^Could not (allocate|reserve|create) ")),
    ("the JVM", re.compile(rb"^#? ?There is insufficient memory for the Java Runtime Environment")),
    ("the JVM", re.compile(rb"^\[[0-9.]+s\]\[(warning|error) *\]\[(os,thread|gc *)\]")),
    ("the JVM", re.compile(rb"^Invalid (maximum|initial) heap size")),
    (".NET", re.compile(rb"^(Failed to create CoreCLR|GC heap initialization failed)")),
    (
        "the Go runtime",
        re.compile(rb"^(fatal error: runtime: |runtime: (failed to create new OS thread|out of memory))"),
    ),
    ("Node.js", re.compile(rb"^(FATAL ERROR: |# Fatal process out of memory)")),
)

RUNTIME_HINT: Final = (
    "the bot's runtime could not start under its limits. Where the referee runs each bot in a control group "
    "(--fair-play, the default where one can be made) the memory limit is resident memory and runtimes start with "
    "their default flags; without control groups it is address space (RLIMIT_AS), which a default JVM, .NET or Go "
    "program reserves more of than it uses: raise --limit-memory, or start the JVM with -Xmx256m "
    "-XX:CompressedClassSpaceSize=64m -XX:ReservedCodeCacheSize=64m -XX:+UseSerialGC"
)


def runtime_failure(line: bytes) -> str | None:
    """The runtime that says, in ``line``, that it could not start (e.g. "the JVM"), or None."""
    text = line.strip()
    for runtime, pattern in _FAILURES:
        if pattern.match(text):
            return runtime
    return None
