"""Soak a ladder as cron and its strangers would: runs started tick after tick, authors uploading submissions to
the inbox (good, broken, half-uploaded, under another owner's name), some runs killed with SIGKILL at a random
instant, the disk filled for a while (a tmpfs of its own where it may mount one), and after every run the database
checked against the files on disk. Prints one line per tick and a summary; exit status 1 if anything was wrong.

    python tools/ladder_soak.py --minutes 4 [--seed 1] [--work /tmp/soak] [--disk-mb 48]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from pathlib import Path

import tomli_w

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from competition.ladder.disk import open_for_reading  # noqa: E402
from competition.ladder.store import Store  # noqa: E402
from competition.ratings import rate  # noqa: E402

SAMPLES = ROOT / "sample_bots"
HOSTILE = ROOT / "tests" / "hostile"
CLI = "import sys; from kierki_cli.main import cli; sys.exit(cli())"
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d ")
TAG = "KIERKI_SOAK_TAG"


def kierki(*args: str, **popen: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True, **popen)  # type: ignore[call-overload, no-any-return]


def family(tag: str) -> list[int]:
    marker = f"{TAG}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker in (entry / "environ").read_bytes().split(b"\0"):
                    state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
                    if state != "Z":
                        found.append(int(entry.name))
    return found


def fill(path: Path) -> None:
    """Write zeros until the disk is full."""
    with contextlib.suppress(OSError), path.open("wb") as file:  # the disk may be full already
        while True:
            file.write(bytes(1 << 16))
            file.flush()


def upload(ladder: Path, owner: str, name: str, kind: str, ready: bool = True) -> None:
    where = ladder / "inbox" / owner / name
    where.mkdir(parents=True, exist_ok=True)
    if kind == "broken":
        shutil.copy(HOSTILE / "crash_at_start.py", where / "bot.py")
        shutil.copy(HOSTILE / "_common.py", where / "_common.py")
    else:
        shutil.copy(SAMPLES / ("heuristic_bot.py" if kind == "heuristic" else "random_bot.py"), where / "bot.py")
    (where / "bot.toml").write_text('command = "python3 bot.py"\n')
    if ready:
        (where / "READY").write_text(f"{time.time()}\n")


def check(ladder: Path, finished: bool) -> list[str]:
    """The database against the files: returns what is wrong."""
    problems = []
    with open_for_reading(ladder) as store:  # the disk may be full: read as `ladder status` does
        results = store.results()
        if store.ratings() != rate(results, store.rating_params()):
            problems.append("the ratings are not those of the results")
        ids = [r.set_id for r in results]
        if len(ids) != len(set(ids)):
            problems.append("a set recorded twice")
        for record in results:
            folder = ladder / "sets" / f"{record.set_id:06d}"
            if store.is_pruned(record.set_id):
                if folder.exists():
                    problems.append(f"set {record.set_id} pruned but its folder is there")
                continue
            for game in record.games:
                if game.replay and not ((ladder / game.replay).is_file() or (ladder / (game.replay + ".gz")).is_file()):
                    problems.append(f"set {record.set_id}: its replay {game.replay} is missing")
        on_disk = {p.name for p in (ladder / "sets").iterdir()} if (ladder / "sets").is_dir() else set()
        unknown = {n for n in on_disk if not n.endswith(".partial")} - {f"{i:06d}" for i in ids}
        if unknown:
            problems.append(f"set folders of no recorded set: {sorted(unknown)}")
        if finished and store.count("claimed"):
            problems.append("a set still claimed after a finished run")
        labels = {bot.label: bot for bot in store.bots()}
        for submission in store.submissions(limit=10**6):
            answer = ladder / "inbox" / submission.owner / submission.name / "result.json"
            if submission.accepted and submission.label not in labels:
                problems.append(f"submission accepted as {submission.label}, which is not a bot")
            if submission.accepted and not (ladder / "bots" / str(submission.label)).is_dir():
                problems.append(f"{submission.label}: no copy in DIR/bots")
            if not answer.is_file():
                problems.append(f"{submission.owner}/{submission.name}: no result.json")
        rated = sum(len(set(r.bots)) for r in results)
        history = store.db.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0]
        if history != rated:
            problems.append(f"rating history {history} rows for {rated} rated seats")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kierki-soak"))
    parser.add_argument("--disk-mb", type=int, default=48)
    parser.add_argument("--budget", default="10s", help="each run's --budget")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    shutil.rmtree(args.work, ignore_errors=True)
    disk = args.work / "disk"
    disk.mkdir(parents=True)
    mounted = (
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={args.disk_mb}m", "tmpfs", str(disk)]).returncode == 0
    )
    print(f"disk: {'a ' + str(args.disk_mb) + ' MB tmpfs' if mounted else 'no tmpfs (cannot mount): no disk fill'}")
    ladder = disk / "ladder"
    made = kierki("ladder", "init", str(ladder), "--game", "hearts", "--option", "target=30", "--sandbox", "none")
    assert made.returncode == 0, made.stderr
    data = tomllib.loads((ladder / "ladder.toml").read_text())
    data["inbox"]["unsandboxed"] = True  # the soak's own sample bots: no bubblewrap needed
    data["retention"].update(min_free_mb=0, keep_sets=40)
    data["run"].update(pin=False, plan_ahead=2)
    data["bots"]["validation_deals"] = 1
    (ladder / "ladder.toml").write_text(tomli_w.dumps(data))
    for owner, kind in (("alice", "heuristic"), ("bob", "random"), ("carol", "random"), ("dave", "heuristic")):
        upload(ladder, owner, f"{owner}bot", kind)
    tally = {"ticks": 0, "killed": 0, "disk_full_stops": 0, "finished": 0, "other_exit": 0}
    problems: list[str] = []
    filled: Path | None = None
    end = time.monotonic() + args.minutes * 60
    tick = 0
    while time.monotonic() < end:
        tick += 1
        owner = rng.choice(["alice", "bob", "carol", "dave", "erin", "mallory"])
        roll = {2: 0.2, 3: 0.3}.get(tick, rng.random())  # every kind at least once: a broken one, a half upload
        if roll < 0.15:
            upload(ladder, owner, f"{owner}v", rng.choice(["heuristic", "random"]))
        elif roll < 0.22:
            upload(ladder, owner, f"{owner}broken", "broken")
        elif roll < 0.27:
            upload(ladder, "mallory", "alicebot", "random")  # another owner's name
        elif roll < 0.32:
            upload(ladder, owner, f"{owner}half", "random", ready=False)  # READY comes next tick
        elif (ladder / "inbox").is_dir():
            for half in (ladder / "inbox").glob("*/*half"):
                if not (half / "result.json").exists():  # completed once; a new READY would be a new submission
                    (half / "READY").write_text("")
        filler: threading.Timer | None = None
        if mounted and filled is None and tick % 9 == 5:
            filled = disk / "filler"
            filler = threading.Timer(rng.uniform(0.5, 6.0), fill, (filled,))  # during the run, at some instant
            filler.start()
        elif filled is not None and tick % 9 == 7:
            filled.unlink()
            filled = None
        tag = uuid.uuid4().hex
        env = {**os.environ, TAG: tag}
        process = subprocess.Popen(
            [sys.executable, "-c", CLI, "ladder", "run", str(ladder), "--budget", args.budget],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
        kill = rng.random() < 0.35
        try:
            out, err = process.communicate(timeout=rng.uniform(1.0, 8.0) if kill else 600)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            out, err = process.communicate()
            tally["killed"] += 1
            how = "killed"
        else:
            how = "exit 0" if process.returncode == 0 else f"exit {process.returncode}"
        if filler is not None:
            filler.join()
        for _ in range(600):  # its workers, forkserver and resource tracker end with it
            if not family(tag):
                break
            time.sleep(0.05)
        else:
            problems.append(f"tick {tick}: processes left after the run: {family(tag)}")
        lines = [line for line in (out + err).splitlines() if line]
        if any(not STAMP.match(line) for line in lines):
            bare = [line for line in lines if not STAMP.match(line)]
            problems.append(f"tick {tick}: a line without its time: {bare[:2]}")
        if "Traceback" in err or "resource_tracker" in err:
            problems.append(f"tick {tick}: {err.strip()[-400:]}")
        if how == "exit 1" and "no space left on device under" in err:
            tally["disk_full_stops"] += 1
        elif how == "exit 0":
            tally["finished"] += 1
        elif how != "killed":
            tally["other_exit"] += 1
            problems.append(f"tick {tick}: {how}: {err.strip()[-300:]}")
        found = check(ladder, how == "exit 0")
        problems.extend(f"tick {tick}: {p}" for p in found)
        with open_for_reading(ladder) as store:
            played = store.count("played")
        print(f"tick {tick}: {how}, {len(lines)} lines, {played} sets played{', disk full' if filled else ''}")
        tally["ticks"] += 1
    if filled is not None:
        filled.unlink()
    final = kierki("ladder", "run", str(ladder), "--sets", "2")
    if final.returncode != 0:
        problems.append(f"final run: exit {final.returncode}: {final.stderr.strip()[-300:]}")
    problems.extend(f"final: {p}" for p in check(ladder, True))
    status = kierki("ladder", "status", str(ladder)).stdout
    with Store.open(ladder / "ladder.sqlite") as store:
        submissions = store.submissions(limit=10**6)
        summary = {
            **tally,
            "sets_played": store.count("played"),
            "voided": store.count("voided"),
            "runs": len(store.runs()),
            "runs_marked_dead": sum(1 for r in store.runs() if (r.message or "").startswith("it died")),
            "submissions_accepted": sum(s.accepted for s in submissions),
            "submissions_refused": sum(not s.accepted for s in submissions),
            "problems": len(problems),
        }
        voided = [row.void_reason or "" for row in store.sets("voided")]
        refused = [f"{s.owner}/{s.name}: {s.reason}" for s in submissions if not s.accepted]
    print(status.rstrip())
    for reason in sorted(set(voided)):
        print(f"voided x{voided.count(reason)}: {reason[:160]}")
    for line in refused:
        print(f"refused {line[:160]}")
    for problem in problems:
        print("PROBLEM", problem)
    print(json.dumps(summary))
    if mounted:
        subprocess.run(["umount", "-l", str(disk)], check=False)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
