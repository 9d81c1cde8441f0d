"""The referee's own memory while bots flood it: peak RSS and tracemalloc peak, flood against a normal match.

    python bench/memory.py                 # 3 repeats of each scenario, one JSON object per line, then a summary
    python bench/memory.py --repeats 1 --markdown

Scenarios (one Kierki match, same seed, sample bots in the other seats):

* ``normal``: four sample bots.
* ``flood``: seat 0 writes one 100 MB line with no newline (tests/hostile/huge_line.py), seat 1 writes to stderr
  as fast as it can for the whole match (tests/hostile/stderr_flood.py).

Each scenario runs in a fresh ``python bench/memory.py --child SCENARIO`` process, which reports its own peak
RSS, ``VmHWM`` from ``/proc/self/status``: the referee's alone (bots are its children and are not counted), and
no run inherits another's heap. (Not ``ru_maxrss``: a child started by ``subprocess`` inherits its parent's
value, so a small child would report the parent's peak.) A second child
per scenario runs under ``tracemalloc`` for the Python-level peak (tracemalloc slows allocation, so RSS is taken
from the untraced run). The child also counts the bytes the referee read from the bots' pipes, to show how much
it was sent. The claim under test is the ratio: flood / normal stays near 1, whatever a bot writes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.bots import process as bot_process  # noqa: E402
from referee.bots.time_control import TimeControl  # noqa: E402
from referee.match import Match  # noqa: E402
from referee.match_config import (  # noqa: E402
    BotSpec,
    MatchConfig,
    MatchSpec,
    RulesetSpec,
    default_bots,
)
from referee.rules import Ruleset  # noqa: E402

HOSTILE = ROOT / "tests" / "hostile"
SCENARIOS = ("normal", "flood")
MIB = 1024 * 1024


def bots(scenario: str) -> tuple[BotSpec, ...]:
    chosen = list(default_bots(4))
    if scenario == "flood":
        chosen[0] = BotSpec((sys.executable, str(HOSTILE / "huge_line.py"), "2"))
        chosen[1] = BotSpec((sys.executable, str(HOSTILE / "stderr_flood.py")))
    return tuple(chosen)


def peak_rss_kib() -> int:
    """This process's own peak resident set size (``VmHWM``), in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("/proc/self/status has no VmHWM line: the memory benchmark needs Linux")


def child(scenario: str, traced: bool) -> dict[str, Any]:
    """Run one match in this process and report this process's memory (the referee's)."""
    read_bytes = 0
    real_read = os.read

    def counting_read(fd: int, size: int, /) -> bytes:
        nonlocal read_bytes
        data = real_read(fd, size)
        read_bytes += len(data)
        return data

    bot_process.os.read = counting_read  # type: ignore[attr-defined]  # the referee's reads of bot pipes only
    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        spec = MatchSpec(
            rules=RulesetSpec.of(Ruleset.create("kierki")),
            bots=bots(scenario),
            seed="7",
            time=TimeControl(move_ms=2000, startup_ms=10_000),
        )
        config = MatchConfig.from_spec(spec, Path(out))
        result = Match(config).run()
        stderr_logged = sum(p.stat().st_size for p in Path(out).glob("seat*.stderr.log"))
    seconds = time.perf_counter() - started
    traced_peak = tracemalloc.get_traced_memory()[1] if traced else None
    return {
        "scenario": scenario,
        "peak_rss_kib": peak_rss_kib(),
        "tracemalloc_peak_bytes": traced_peak,
        "bytes_read_from_bots": read_bytes,
        "stderr_logged_bytes": stderr_logged,
        "faults": [s.faults for s in result.seats],
        "seconds": round(seconds, 3),
    }


def run_child(scenario: str, traced: bool) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", scenario]
    if traced:
        command.append("--traced")
    done = subprocess.run(command, capture_output=True, check=True, timeout=600)
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", action="store_true", help="also print a table for BENCHMARKS.md")
    parser.add_argument("--child", choices=SCENARIOS, help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.traced)))
        return 0
    summary = measure(args.repeats, lambda report: print(json.dumps(report), flush=True))
    print(json.dumps(summary))
    if args.markdown:
        print(markdown(summary))
    return 0


def measure(repeats: int, each: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Run every scenario ``repeats`` times, untraced and traced, each in a fresh child; return the summary."""
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in SCENARIOS}
    traced: dict[str, list[dict[str, Any]]] = {s: [] for s in SCENARIOS}
    for _ in range(repeats):
        for scenario in SCENARIOS:
            for traced_run, into in ((False, runs), (True, traced)):
                report = run_child(scenario, traced_run)
                into[scenario].append(report)
                if each is not None:
                    each({"traced": traced_run, **report})
    return summarize(runs, traced)


def summarize(runs: dict[str, list[dict[str, Any]]], traced: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    def median(reports: list[dict[str, Any]], key: str) -> float:
        return float(statistics.median(float(r[key]) for r in reports))

    rss = {s: median(runs[s], "peak_rss_kib") / 1024 for s in SCENARIOS}
    heap = {s: median(traced[s], "tracemalloc_peak_bytes") / MIB for s in SCENARIOS}
    return {
        "name": "referee_memory_under_flood",
        "peak_rss_mib": {s: round(v, 1) for s, v in rss.items()},
        "rss_ratio": round(rss["flood"] / rss["normal"], 3),
        "tracemalloc_peak_mib": {s: round(v, 2) for s, v in heap.items()},
        "tracemalloc_ratio": round(heap["flood"] / heap["normal"], 3),
        "read_from_bots_mib": {s: round(median(runs[s], "bytes_read_from_bots") / MIB, 2) for s in SCENARIOS},
        "stderr_logged_mib": {s: round(median(runs[s], "stderr_logged_bytes") / MIB, 2) for s in SCENARIOS},
        "match_seconds": {s: median(runs[s], "seconds") for s in SCENARIOS},
        "repeats": len(runs["normal"]),
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
    }


def markdown(summary: dict[str, Any]) -> str:
    rss, heap = summary["peak_rss_mib"], summary["tracemalloc_peak_mib"]
    read, logged = summary["read_from_bots_mib"], summary["stderr_logged_mib"]
    rows = [
        "| scenario | referee peak RSS (MiB) | tracemalloc peak (MiB) | read from bots (MiB) | stderr logged (MiB) |",
        "|---|---|---|---|---|",
    ]
    for scenario in SCENARIOS:
        rows.append(f"| {scenario} | {rss[scenario]} | {heap[scenario]} | {read[scenario]} | {logged[scenario]} |")
    rows.append(f"| **flood / normal** | **{summary['rss_ratio']}** | **{summary['tracemalloc_ratio']}** | | |")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
