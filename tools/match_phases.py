"""Where the wall time of a whole ``kierki match`` goes, phase by phase (BENCHMARKS.md, ``match_wall``).

    python tools/match_phases.py [RUNS]         # default 11; prints the median of each phase in ms

Runs ``kierki match --seed 7 --json --out DIR`` with four trivial C bots (``bench/trivial_bot.c``, compiled with
``cc``) RUNS times, each in a fresh interpreter that does what the installed script does
(`kierki_cli.launch.main`), with a clock reading (``time.time``, the same clock in both processes) at each phase:
the interpreter's start (from the moment this process starts it to the first line of the script), the imports
(click and the group, then the match command's modules), the match's own phases (wrapped methods of
`referee.match.Match`), and the exit (from the command's end until this process sees the child gone).
The wrapping costs a few microseconds; the figures are wall time, so run it on an otherwise idle machine.
"""

from __future__ import annotations

import ast
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import time
marks = [("script", time.time())]
import functools, os, sys
import kierki_cli.entry
marks.append(("import click and the group", time.time()))
import kierki_cli.main
marks.append(("import the match command's modules", time.time()))
from referee.match import Match

spans = {}
def timed(name, label):
    method = getattr(Match, name)
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        start = time.time()
        try:
            return method(*args, **kwargs)
        finally:
            spans[label] = spans.get(label, 0.0) + time.time() - start
    setattr(Match, name, wrapper)

for name, label in [("_start_bots", "start four bots"), ("_handshake", "hello to each bot"),
                    ("_play_game", "the game"), ("_close_all", "bye, stop and reap the bots")]:
    timed(name, label)
sys.argv[0] = "kierki"
try:
    from kierki_cli.launch import main
    main()
finally:
    marks.append(("command", time.time()))
    os.write(2, ("PHASES " + repr((marks, spans)) + "\n").encode())
"""


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    parts: dict[str, list[float]] = {}

    def add(label: str, seconds: float) -> None:
        parts.setdefault(label, []).append(seconds * 1e3)

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bot = work / "trivial_bot"
        subprocess.run(["cc", "-O2", "-o", str(bot), str(ROOT / "bench" / "trivial_bot.c")], check=True)
        for run in range(runs):
            argv = ["match", "--seed", "7", "--json", "--out", str(work / f"out{run}"), *[str(bot)] * 4]
            started = time.time()
            done = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True, cwd=tmp)
            ended = time.time()
            line = next((x for x in done.stderr.splitlines() if x.startswith("PHASES ")), None)
            if done.returncode != 0 or line is None:
                sys.exit(f"the match failed:\n{done.stderr}")
            marks, spans = ast.literal_eval(line[len("PHASES ") :])
            add("interpreter start", marks[0][1] - started)
            for (_, before), (label, at) in itertools.pairwise(marks[:-1]):
                add(label, at - before)
            in_match = 0.0
            for label, seconds in spans.items():
                add(f"  {label}", seconds)
                in_match += seconds
            rest = marks[-1][1] - marks[-2][1] - in_match
            add("  the rest (options, setup, pinning, result files, output)", rest)
            add("exit", ended - marks[-1][1])
            add("total", ended - started)
    for label, values in parts.items():
        print(f"{label:62s} {statistics.median(values):7.1f} ms")


if __name__ == "__main__":
    main()
