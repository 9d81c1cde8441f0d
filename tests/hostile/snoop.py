"""Tries, at every decision, to learn or touch what a bot must not: other seats' files, the logs, the network.

usage: snoop.py AFTER PORT OUTSIDE_DIR. It plays correctly and writes what it managed to do to ``$HOME/snoop.json``
(its own private directory): a test reads that report. What it tries:

* list the match's --out folder (the parent of its private directory) and read seat 1's private file
  ``secret.txt`` and seat 1's stderr log;
* read the replay log being written (``*.replay.jsonl.part``), which holds every hand of every deal;
* write into the --out folder and into OUTSIDE_DIR (a folder of the user's);
* connect to 127.0.0.1:PORT (a socket the test listens on);
* read ``/etc/shadow``, which only root may read (a bot under bubblewrap never runs as root);
* report its working directory and which environment variables it was given.
"""

import glob
import json
import os
import socket
from pathlib import Path
from typing import Any

from _common import Message, arg, run

home = Path(os.environ.get("HOME", "."))
report: dict[str, Any] = {"replay_hands_seen": False}


def attempt(name: str, action: Any) -> None:
    try:
        report[name] = {"ok": True, "value": action()}
    except OSError as error:
        report[name] = {"ok": False, "error": f"{type(error).__name__}: {error}"}


def read_replays() -> int:
    found = 0
    for path in glob.glob("../*.replay.jsonl.part") + glob.glob("../*.replay.jsonl"):
        with open(path, encoding="utf-8", errors="replace") as replay:
            for line in replay:
                if '"type":"deal"' in line.replace(" ", "") and '"hands"' in line:
                    report["replay_hands_seen"] = True
                    found += 1
    return found


def connect() -> str:
    with socket.create_connection(("127.0.0.1", int(arg(0, "9"))), timeout=1):
        return "connected"


def snoop(msg: Message, reply: Message, n: int) -> bool:
    report["cwd"] = os.getcwd()
    report["env"] = sorted(os.environ)
    attempt("list_out", lambda: sorted(os.listdir("..")))
    attempt("read_other_private", lambda: Path("../seat1/secret.txt").read_text())
    attempt("read_other_stderr", lambda: len(Path("../seat1.stderr.log").read_bytes()))
    attempt("read_replay", read_replays)
    attempt("read_shadow", lambda: len(Path("/etc/shadow").read_bytes()))
    attempt("write_out", lambda: Path("../planted-by-snoop.txt").write_text("gotcha"))
    attempt("write_outside", lambda: (Path(arg(1, "/nonexistent")) / "planted-by-snoop.txt").write_text("gotcha"))
    if "connect" not in report:  # once: unanswered connections would fill the listener's backlog
        attempt("connect", connect)
    (home / "snoop.json").write_text(json.dumps(report))
    return False


run(snoop)
