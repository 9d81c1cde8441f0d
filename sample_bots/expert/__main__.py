"""python -m sample_bots.expert [--share F] [--playouts N] [--seed N] [--verbose]

With ``KIERKI_COMPILED=DIR`` in the environment the rules core is taken from the compiled build in DIR
(``tools/build_compiled.py``), as the tests and benchmarks do."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a file (sample:expert): make the package importable by its name
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
if os.environ.get("KIERKI_COMPILED"):  # the mypyc build of tools/build_compiled.py, ahead of the source
    sys.path.insert(0, os.environ["KIERKI_COMPILED"])

from protocol.bot import run
from sample_bots.expert.bot import DEFAULT_SHARE, ExpertBot


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


def share(text: str) -> float:
    value = float(text)
    if not 0 < value <= 0.9:
        raise argparse.ArgumentTypeError(f"{text} is not a share of the move's time between 0 and 0.9")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sample_bots.expert",
        description="The expert bot for kierki, kierki3, hearts and cancellation (speaks PROTOCOL.md).",
    )
    parser.add_argument(
        "--share",
        type=share,
        default=DEFAULT_SHARE,
        help="share of each move's time to think, in CPU time (default %(default)s; a 20th of the bank is added, "
        "and it always stops well short of the request's time_ms)",
    )
    parser.add_argument(
        "--playouts",
        type=positive,
        help="exactly this many playouts per decision, no clock read (with --seed: repeatable play; still stops "
        "short of time_ms)",
    )
    parser.add_argument(
        "--no-inference",
        action="store_true",
        help="weigh every sampled world alike (default: by how likely the others' plays of the deal were in it)",
    )
    parser.add_argument(
        "--cpu-clock",
        action="store_true",
        help="the referee times this bot's CPU (kierki's --fair-play cgroup): let the wall clock run past the CPU "
        "budget on a loaded machine, up to 75%% of the referee's wall cap (late under --fair-play none)",
    )
    parser.add_argument("--seed", type=int, help="seed of the bot's own random choices (default: unpredictable)")
    parser.add_argument("--verbose", action="store_true", help="one line per decision on stderr: worlds, playouts, ms")
    args = parser.parse_args(argv)
    bot = ExpertBot(
        share=args.share,
        playouts=args.playouts,
        seed=args.seed,
        verbose=args.verbose,
        infer=not args.no_inference,
        cpu_clock=args.cpu_clock,
    )
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the referee went away, or Ctrl-C
        run(bot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
