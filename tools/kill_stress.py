"""SIGKILL `kierki tournament` and `kierki ladder run` at random instants, and check what is left.

Not a test: a hunt for the rare worker that outlives its killed coordinator. This process makes itself a child
subreaper, so every descendant of a killed run that outlives it (a worker, the forkserver, the resource tracker,
a Dask nanny or worker, a bot) becomes our child: after each kill we wait, within a bound, for our children to be
gone, and record any that are not (with their command line, state and wait channel) before killing them.

Modes (``--modes``, comma-separated): ``tournament`` and ``ladder`` play on the local pool (``--jobs 2``);
``dask-tournament`` (``--executor dask-local --workers 2``) and ``dask-ladder`` (``ladder.toml``'s ``[run]`` with
``executor = "dask-local"`` and ``workers = 2``) on a ``distributed.LocalCluster``, whose scheduler lives in the
coordinator and whose worker processes (and the bots they start) must go with it. Then:

- tournament: the next run is ``--resume`` on the same folder (refused as locked: a stale lock); once a run
  finishes, ``results.jsonl`` must hold each of the ``--sets`` sets exactly once, each with its replays in place.
- ladder: the next ``ladder run`` must not find the lock held; every played set has its result, its folder and
  one rating update per bot (the ratings' set counts add up to the played sets' seats).

    python tools/kill_stress.py --kills 200 --load 2 --work /tmp/kill-stress
    python tools/kill_stress.py --modes dask-tournament,dask-ladder --kills 200 --load 1

Found so far: 4 of 30 local-pool kills left a worker behind (fixed in ``competition/runner.py``, 023c0fe; then 1,000
kills, none left). The dask-local modes, at ``--load 1`` on a shared 2-core machine, two runs (seeds 12 and 13): 800
kills (tournament 383, ladder 417), none left a process, a held lock or a set lost or counted twice; 516 of them
came with the worker processes up, 252 with bots running too; 84 uninterrupted finishes checked (55 tournaments of 4
sets, 29 ladder runs over 340 played sets); the slowest clean-up 2.9 s. Before that, 186 kills of a run without the
final checks and 10 in smoke runs: none left.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from referee.bots.procfs import process_stat
from referee.bots.reaper import become_subreaper

BOTS = ["a=sample:random", "b=sample:random", "c=sample:heuristic", "d=sample:heuristic"]
SETS = 4
MODES = ("tournament", "ladder", "dask-tournament", "dask-ladder")
# How each mode plays its games: the tournament's options, and the ladder's [run] keys (ladder.toml, as init wrote it).
TOURNAMENT_EXECUTOR = {"tournament": ["--jobs", "2"], "dask-tournament": ["--executor", "dask-local", "--workers", "2"]}
LADDER_RUN = {
    "ladder": {},
    "dask-ladder": {'executor = "local"': 'executor = "dask-local"', "workers = 0": "workers = 2"},
}
STARTUP_S = {
    "tournament": 1.5,
    "ladder": 1.5,
    "dask-tournament": 3.0,
    "dask-ladder": 3.0,
}  # a LocalCluster starts slower
LEFT_WAIT_S = 60.0  # a killed run's descendants must be gone within this (generous under load)


@dataclass
class Tally:
    kills: int = 0
    by_mode: dict[str, int] = field(default_factory=dict)
    finished_unkilled: int = 0
    leftovers: list[str] = field(default_factory=list)
    stale_locks: list[str] = field(default_factory=list)
    bad_results: list[str] = field(default_factory=list)
    verified: int = 0
    fresh_starts: int = 0
    # How many of the killed run's processes were alive at the kill (it included): how much a kill had to take down.
    alive_at_kill: dict[int, int] = field(default_factory=dict)
    slowest_gone_s: float = 0.0  # the longest a killed run's processes took to be gone (none left)
    final_runs: int = 0  # each mode's last folder, run once more to its end after the kills


def descendants() -> set[int]:
    """Every live process below this one (a stuck worker is the forkserver's child while the forkserver lives)."""
    found: set[int] = set()
    todo = [os.getpid()]
    while todo:
        pid = todo.pop()
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{pid}/task").iterdir():
                with contextlib.suppress(OSError):
                    below = {int(child) for child in (task / "children").read_text().split()} - found
                    found |= below
                    todo.extend(below)
    return found


def reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def describe(pid: int) -> str:
    def read(name: str) -> str:
        try:
            return Path(f"/proc/{pid}/{name}").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError as error:
            return f"<{error.strerror}>"

    fields = process_stat(pid)
    state = [field.decode() for field in fields[:4]] if fields is not None else "<gone>"
    threads = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            threads.append(f"{task.name}:{(task / 'wchan').read_text().strip()}")
    return f"pid {pid} state {state} cmd {read('cmdline')[:160]!r} threads {threads}"


def wait_children_gone(exclude: set[int], limit_s: float) -> list[int]:
    deadline = time.monotonic() + limit_s
    while True:
        reap()
        left = sorted(descendants() - exclude)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def start_load(cores: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(cores)]


def verify_tournament(folder: Path, tally: Tally) -> None:
    lines = (folder / "results.jsonl").read_text().splitlines()
    ids = [json.loads(line)["set_id"] for line in lines]
    if sorted(ids) != list(range(1, SETS + 1)):
        tally.bad_results.append(f"{folder}: set ids {ids}")
    for line in lines:
        for game in json.loads(line)["games"]:
            if not (folder / game["replay"]).is_file():
                tally.bad_results.append(f"{folder}: missing {game['replay']}")
    tally.verified += 1


def verify_ladder(folder: Path, tally: Tally) -> None:
    with contextlib.closing(sqlite3.connect(folder / "ladder.sqlite")) as db:
        played = db.execute("SELECT id, bots, result FROM sets WHERE status = 'played'").fetchall()
        seats = sum(len(json.loads(bots)) for _, bots, _ in played)
        rated = db.execute("SELECT COALESCE(SUM(sets), 0) FROM ratings").fetchone()[0]
        history = db.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0]
        claimed = db.execute("SELECT COUNT(*) FROM sets WHERE status = 'claimed'").fetchone()[0]
    problems = []
    if rated != seats or history != seats:
        problems.append(f"seats {seats} rated {rated} history {history}")
    if claimed:
        problems.append(f"{claimed} sets still claimed after a finished run")
    for set_id, _, result in played:
        if result is None:
            problems.append(f"set {set_id} played without a result")
        elif not (folder / "sets" / f"{set_id:06d}").is_dir():
            problems.append(f"set {set_id} has no folder")
    if problems:
        tally.bad_results.append(f"{folder}: {'; '.join(problems)}")
    tally.verified += 1


def kill_at(
    process: subprocess.Popen[bytes],
    output: Path,
    rng: random.Random,
    horizon_s: float,
    startup_s: float,
    exclude: set[int],
    tally: Tally,
) -> str:
    """SIGKILL ``process`` at a random instant: early (startup), at a random time, or just after an output line."""
    how = rng.choice(["startup", "uniform", "uniform", "after-line"])
    if how == "startup":
        delay = rng.uniform(0.0, startup_s)  # the coordinator and its workers starting
    elif how == "uniform":
        delay = rng.uniform(0.0, horizon_s)
    else:
        delay = -1.0
    if delay >= 0:
        try:
            process.wait(delay)
            return "finished"
        except subprocess.TimeoutExpired:
            pass
    else:  # the output goes to a file (a pipe would be held open by a leftover worker, and reading it would hang)
        lines = rng.randint(1, 8)
        while process.poll() is None and output.read_bytes().count(b"\n") < lines:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.03))
    if process.poll() is not None:
        return "finished"
    alive = len(descendants() - exclude)
    tally.alive_at_kill[alive] = tally.alive_at_kill.get(alive, 0) + 1
    process.kill()
    process.wait()
    return how


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--load", type=int, default=2, help="busy loops to run meanwhile")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kill-stress"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default="tournament,ladder", help=f"some of {', '.join(MODES)}")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop after this long (0: after --kills)")
    parser.add_argument("--left-wait", type=float, default=LEFT_WAIT_S, help="seconds a killed run's processes get")
    parser.add_argument("--horizon", type=float, default=5.0, help="kill within this many seconds (uniform)")
    args = parser.parse_args()
    modes = args.modes.split(",")
    if not modes or not set(modes) <= set(MODES):
        parser.error(f"--modes takes some of {', '.join(MODES)}, comma-separated; not {args.modes!r}")
    if not become_subreaper():  # the referee's own: every descendant a kill orphans becomes ours
        raise SystemExit("cannot become a child subreaper (Linux 3.4+ only)")
    rng = random.Random(args.seed)
    kierki = shutil.which("kierki") or str(Path(sys.executable).parent / "kierki")  # a venv not activated
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    load = start_load(args.load)
    exclude = {p.pid for p in load}
    tally = Tally()
    generation = {mode: 0 for mode in modes}
    horizon = {
        mode: args.horizon * (0.75 if "ladder" in mode else 1.0) * (1.5 if "dask" in mode else 1.0) for mode in modes
    }
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    log = (args.work / "log.txt").open("a")
    try:
        end = time.monotonic() + args.minutes * 60 if args.minutes else float("inf")
        # Then each mode's last folder once more, not killed: its sets (and for a ladder, the sets that its killed
        # runs left claimed) are checked even when the kills came too fast for any run to finish.
        finals = iter(modes)
        while True:
            final = tally.kills >= args.kills or time.monotonic() >= end
            mode = next(finals, "") if final else rng.choice(modes)
            if not mode:
                break
            folder = args.work / f"{mode}{generation[mode]}"
            if mode in TOURNAMENT_EXECUTOR:
                if folder.exists() and not (folder / "tournament.json").exists():
                    shutil.rmtree(folder)  # killed before it wrote its configuration: nothing to resume
                    tally.fresh_starts += 1
                command = [kierki, "tournament", *BOTS, "--sets", str(SETS), *TOURNAMENT_EXECUTOR[mode], "--seed", "s"]
                command += ["--out", str(folder)] + (["--resume"] if folder.exists() else [])
            else:
                if not folder.exists():
                    subprocess.run(
                        [kierki, "ladder", "init", str(folder), "--game", "kierki", "--sandbox", "none"],
                        check=True,
                        capture_output=True,
                    )
                    config = (folder / "ladder.toml").read_text()
                    for old, new in LADDER_RUN[mode].items():
                        if config.count(old) != 1:
                            raise SystemExit(f"{folder}/ladder.toml: expected one {old!r} (has ladder init changed?)")
                        config = config.replace(old, new)
                    (folder / "ladder.toml").write_text(config)
                    for name, owner, bot in (
                        ("r", "x", "sample:random"),
                        ("h", "y", "sample:heuristic"),
                        ("r2", "z", "sample:random"),
                        ("h2", "w", "sample:heuristic"),
                    ):
                        subprocess.run(
                            [kierki, "ladder", "add", str(folder), name, "--owner", owner, "--", bot],
                            check=True,
                            capture_output=True,
                        )
                command = [kierki, "ladder", "run", str(folder), "--sets", "3", "--jobs", "2"]
            out_path = args.work / "output.txt"
            with out_path.open("wb") as out_file:
                process = subprocess.Popen(command, stdout=out_file, stderr=subprocess.STDOUT, env=env)
            if final:
                process.wait()
                how = "finished"
                tally.final_runs += 1
            else:
                how = kill_at(process, out_path, rng, horizon[mode], STARTUP_S[mode], exclude, tally)
            output = out_path.read_text(errors="replace")
            if how == "finished":
                tally.finished_unkilled += 1
                if "another run holds" in output or "another kierki tournament is writing" in output:
                    tally.stale_locks.append(f"{folder}: {output.strip()[-300:]}")
                if mode in TOURNAMENT_EXECUTOR and process.returncode == 0:
                    verify_tournament(folder, tally)
                    generation[mode] += 1
                elif mode in LADDER_RUN and process.returncode == 0:
                    verify_ladder(folder, tally)
                    if rng.random() < 0.3:
                        generation[mode] += 1
                elif process.returncode != 0:
                    tally.bad_results.append(f"{folder}: exit {process.returncode}: {output.strip()[-400:]}")
            else:
                tally.kills += 1
                tally.by_mode[f"{mode}/{how}"] = tally.by_mode.get(f"{mode}/{how}", 0) + 1
            waited = time.monotonic()
            left = wait_children_gone(exclude, args.left_wait)
            if how != "finished" and not left:
                tally.slowest_gone_s = max(tally.slowest_gone_s, round(time.monotonic() - waited, 2))
            if left:
                report = [describe(pid) for pid in left]
                tally.leftovers.append(f"kill {tally.kills} {mode}/{how}: " + " | ".join(report))
                print("LEFT:", *report, sep="\n  ", file=log, flush=True)
                for pid in left:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                wait_children_gone(exclude, args.left_wait)
            print(f"{tally.kills} {mode} {how} rc={process.returncode} left={len(left)}", file=log, flush=True)
    finally:
        for p in load:
            p.kill()
            p.wait()
        log.close()
    print(json.dumps(tally.__dict__, indent=1))
    return 1 if tally.leftovers or tally.stale_locks or tally.bad_results else 0


if __name__ == "__main__":
    sys.exit(main())
