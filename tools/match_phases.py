"""Where the time of a whole ``kierki match`` goes, phase by phase (BENCHMARKS.md, ``match_wall``).

    python tools/match_phases.py [RUNS]         # default 11; prints the median of each phase in ms

Runs ``kierki match --seed 7 --json --out DIR`` with four trivial C bots (``bench/trivial_bot.c``, compiled with
``cc``) RUNS times, each in a fresh interpreter that does what the installed script does (`kierki_cli.launch`),
reading the clocks at each phase: the interpreter's start (from the moment this process starts it to the first
line of the script), the imports (click and the group, then the match command's modules), the match's own phases
(wrapped methods of `referee.match.Match` and of its bots' `referee.seating.Seating`), and the exit (from the
command's end until this process sees the child gone). Two columns: wall time (``time.time``, one clock for both
processes) and the referee process's own CPU time (``time.process_time``; the exit's from ``getrusage``, less the
bots'), which a busy machine inflates far less than the wall time. The wrapping costs a few microseconds.
"""

from __future__ import annotations

import ast
import itertools
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import time
marks = [("script", time.time(), time.process_time())]
import functools, os, resource, sys
from kierki_cli import command_table, launch

command_table.run_as_script()  # as launch.main does, so the imports below are done as the script does them
with command_table.gc_paused():
    import kierki_cli.entry
marks.append(("import click and the group", time.time(), time.process_time()))
with command_table.gc_paused():
    import kierki_cli.main
marks.append(("import the match command's modules", time.time(), time.process_time()))
from referee.match import Match
from referee.seating import Seating

spans = {}
def timed(owner, name, label):
    method = getattr(owner, name)
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        wall, cpu = time.time(), time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            was = spans.get(label, (0.0, 0.0))
            spans[label] = (was[0] + time.time() - wall, was[1] + time.process_time() - cpu)
    setattr(owner, name, wrapper)

for owner, name, label in [(Seating, "_start_bots", "start four bots"), (Seating, "_handshake", "hello to each bot"),
                           (Match, "_play_game", "the game"), (Seating, "close", "bye, stop and reap the bots")]:
    timed(owner, name, label)
sys.argv[0] = "kierki"
try:
    launch.main()
finally:
    marks.append(("command", time.time(), time.process_time()))
    bots = resource.getrusage(resource.RUSAGE_CHILDREN)  # the bots, reaped by now
    os.write(2, ("PHASES " + repr((marks, spans, bots.ru_utime + bots.ru_stime)) + "\n").encode())
"""


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    parts: dict[str, tuple[list[float], list[float]]] = {}

    def add(label: str, wall: float, cpu: float) -> None:
        walls, cpus = parts.setdefault(label, ([], []))
        walls.append(wall * 1e3)
        cpus.append(cpu * 1e3)

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bot = work / "trivial_bot"
        subprocess.run(["cc", "-O2", "-o", str(bot), str(ROOT / "bench" / "trivial_bot.c")], check=True)
        for run in range(runs):
            argv = ["match", "--seed", "7", "--json", "--out", str(work / f"out{run}"), *[str(bot)] * 4]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.time()
            done = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True, cwd=tmp)
            ended = time.time()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            line = next((x for x in done.stderr.splitlines() if x.startswith("PHASES ")), None)
            if done.returncode != 0 or line is None:
                sys.exit(f"the match failed:\n{done.stderr}")
            marks, spans, bots_cpu = ast.literal_eval(line[len("PHASES ") :])
            total_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            add("interpreter start", marks[0][1] - started, marks[0][2])
            for (_, wall_before, cpu_before), (label, wall, cpu) in itertools.pairwise(marks[:-1]):
                add(label, wall - wall_before, cpu - cpu_before)
            in_match = [0.0, 0.0]
            for label, (wall, cpu) in spans.items():
                add(f"  {label}", wall, cpu)
                in_match = [in_match[0] + wall, in_match[1] + cpu]
            command_wall, command_cpu = marks[-1][1] - marks[-2][1], marks[-1][2] - marks[-2][2]
            add(
                "  the rest (options, setup, pinning, result files)",
                command_wall - in_match[0],
                command_cpu - in_match[1],
            )
            add("exit", ended - marks[-1][1], total_cpu - bots_cpu - marks[-1][2])
            add("total (CPU: the referee's)", ended - started, total_cpu - bots_cpu)
            add("the four bots' CPU", 0.0, bots_cpu)
    print(f"median of {runs} runs; load average {os.getloadavg()[0]:.2f} at the end")
    print(f"{'':55s} {'wall ms':>8s} {'CPU ms':>8s}")
    for label, (walls, cpus) in parts.items():
        print(f"{label:55s} {statistics.median(walls):8.1f} {statistics.median(cpus):8.1f}")


if __name__ == "__main__":
    main()
