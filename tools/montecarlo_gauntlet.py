"""The Monte Carlo bot's margin over the heuristic sample bot: a gauntlet of duplicate sets, then the paired figure.

    python tools/montecarlo_gauntlet.py GAME [--sets N] --out DIR [--seed TEXT] [--command CMD] [TOURNAMENT OPTIONS]
    python tools/montecarlo_gauntlet.py --report DIR [DIR ...]

The first form runs (or, with ``--resume`` among the tournament options, continues: a larger ``--sets`` adds sets)

    kierki tournament --format gauntlet --candidate mc mc=sample:montecarlo h=sample:heuristic \\
        --game GAME [--players 6] --sets N --jobs 1 --seed TEXT --out DIR

in which ``mc`` sits at every table and ``h`` fills every other seat, each set dealing the same cards under every
seat rotation; then it prints the report of the second form. The report, per results folder: the sets and games,
the candidate's faults, and its **margin**: per set, the heuristic seats' mean points per game less the candidate's
(Hearts, Cancellation: lower is better) or the candidate's less theirs (Kierki), positive when the Monte Carlo
bot did better, as a mean over sets with its 95% Student-t interval (the set is the independent unit: its games
share their deals). ``--json`` prints the same as one JSON object per folder.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from competition.results_file import read_results  # noqa: E402
from competition.stats import mean_interval  # noqa: E402

CANDIDATE = "mc"
FIELD = "h"
PLAYERS = {"kierki": 4, "kierki3": 3, "hearts": 4, "cancellation": 6}


def margin_report(folder: Path) -> dict[str, object]:
    records, _ = read_results(folder / "results.jsonl")
    margins = []
    games = 0
    faults: dict[str, int] = {}
    for record in records:
        mine = record.mean_per_game(CANDIDATE)
        theirs = record.mean_per_game(FIELD)
        margins.append(mine - theirs if record.higher_is_better else theirs - mine)
        for game in record.games:
            games += 1
            for seat, name in enumerate(game.seats):
                if name == CANDIDATE and seat < len(game.faults):
                    for code, count in game.faults[seat].items():
                        faults[code] = faults.get(code, 0) + count
    interval = mean_interval(margins)
    return {
        "folder": str(folder),
        "game": records[0].game if records else None,
        "players": records[0].players if records else None,
        "sets": len(records),
        "games": games,
        "faults": faults,
        "margin": round(interval.mean, 2),
        "half_width": None if not math.isfinite(interval.half_width) else round(interval.half_width, 2),
        "excludes_zero": interval.low > 0 or interval.high < 0,
    }


def show(report: dict[str, object]) -> str:
    half = report["half_width"]
    shown = "± –" if half is None else f"± {half}"
    faults = sum(report["faults"].values()) if isinstance(report["faults"], dict) else 0
    return (
        f"{report['game']} ({report['players']} players): montecarlo over heuristic {report['margin']:+} {shown} "
        f"points a game (positive: montecarlo better; 95% interval over sets), {report['sets']} sets, "
        f"{report['games']} games, {faults} faults of montecarlo"
        + (", the interval excludes 0" if report["excludes_zero"] else "")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("game", nargs="?", choices=sorted(PLAYERS), help="the game to run a gauntlet of")
    parser.add_argument("--sets", type=int, default=20)
    parser.add_argument(
        "--command",
        default="sample:montecarlo",
        help="the candidate's command (default sample:montecarlo; e.g. a frozen copy of the bot while you edit it)",
    )
    parser.add_argument("--seed", default=None, help="the tournament's seed (default: the tournament's own)")
    parser.add_argument("--out", type=Path, help="the tournament's folder")
    parser.add_argument("--report", type=Path, nargs="+", metavar="DIR", help="only report these results folders")
    parser.add_argument("--json", action="store_true", help="one JSON object per folder")
    args, extra = parser.parse_known_args(argv)  # anything else goes to `kierki tournament` (--resume, --option ...)
    folders = args.report
    if folders is None:
        if args.game is None or args.out is None:
            parser.error("give GAME and --out DIR to run a gauntlet, or --report DIR to report one")
        command = [
            str(Path(sys.executable).with_name("kierki")),
            "tournament",
            "--format",
            "gauntlet",
            "--candidate",
            CANDIDATE,
            f"{CANDIDATE}={args.command}",
            f"{FIELD}=sample:heuristic",
            "--game",
            args.game,
            "--players",
            str(PLAYERS[args.game]),
            "--sets",
            str(args.sets),
            "--jobs",
            "1",
            "--out",
            str(args.out),
            *(["--seed", args.seed] if args.seed else []),
            *extra,
        ]
        print("$", " ".join(command), file=sys.stderr, flush=True)
        done = subprocess.run(command, check=False)
        if done.returncode:
            return done.returncode
        folders = [args.out]
    for folder in folders:
        report = margin_report(folder)
        print(json.dumps(report) if args.json else show(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
