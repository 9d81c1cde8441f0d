"""python -m sample_bots.montecarlo [--budget-ms MS] [--playouts N] [--seed N] [--verbose]

With ``KIERKI_COMPILED=DIR`` in the environment the rules core is taken from the compiled build in DIR
(``tools/build_compiled.py``), as the tests and benchmarks do."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a file (sample:montecarlo): make the package importable by its name
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
if os.environ.get("KIERKI_COMPILED"):  # the mypyc build of tools/build_compiled.py, ahead of the source
    sys.path.insert(0, os.environ["KIERKI_COMPILED"])

from protocol.bot import run
from sample_bots.montecarlo.bot import MonteCarloBot


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sample_bots.montecarlo",
        description="A Monte Carlo bot for kierki, kierki3, hearts and cancellation (speaks PROTOCOL.md).",
    )
    parser.add_argument(
        "--budget-ms",
        type=positive,
        help="thinking time per decision (default: a quarter of each request's time_ms; never more than 80%% of "
        "it, and always at least 100 ms short of it)",
    )
    parser.add_argument(
        "--playouts", type=positive, help="at most this many playouts per decision (with --seed: repeatable play)"
    )
    parser.add_argument("--seed", type=int, help="seed of the bot's own random choices (default: unpredictable)")
    parser.add_argument("--verbose", action="store_true", help="one line per decision on stderr: worlds, playouts, ms")
    args = parser.parse_args(argv)
    bot = MonteCarloBot(budget_ms=args.budget_ms, playouts=args.playouts, seed=args.seed, verbose=args.verbose)
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the referee went away, or Ctrl-C
        run(bot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
