"""Bots for the fair-play tests: each plays the first legal choice, and spends CPU as its mode says.

Usage: fair.py MODE [ARGS]. Modes:

* ``think MS [pass]``: computes (spins on its own CPU clock) MS milliseconds before each answer; with ``pass``
  only before a pass. An honest bot that needs that much CPU time and nothing else.
* ``spinners N``: after hello, starts N children that each leave its session (``setsid``) and spin for ever; it
  answers at once itself. The attack: the children take the CPU the other seats are timed on.
* ``ponder``: a second thread spins all the time (thinking while it is not its turn). At bye it writes to stderr
  ``pondered MS ms over N gaps``: the CPU time that thread got between each answer and the next request, as the
  bot measured it (``time.thread_time``).
"""

import json
import os
import sys
import threading
import time

mode = sys.argv[1]
args = sys.argv[2:]


def answer(msg: dict) -> dict | None:
    kind = msg["type"]
    if kind == "hello":
        return {"name": f"fair-{mode}", "version": "1", "protocol": 1}
    if kind == "pass":
        return {"cards": msg["hand"][:3]}
    if kind == "trump":
        return {"suit": msg["choices"][0]}
    if kind == "play":
        return {"card": msg["legal"][0]}
    if kind == "moon":
        return {"choice": "others"}
    return None


def spin(seconds: float) -> None:
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def spinners(count: int) -> None:
    for _ in range(count):
        if os.fork() == 0:
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            while True:
                pass


pondered = 0.0  # the pondering thread's CPU time, as it last saw it


def ponder() -> None:
    global pondered
    while True:
        for _ in range(200):
            pass
        pondered = time.thread_time()


if mode == "ponder":
    sys.setswitchinterval(0.0002)  # the reading thread gets the interpreter back at once when a request comes
    threading.Thread(target=ponder, daemon=True).start()
mark: float | None = None
between = 0.0
gaps = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "bye":
        break
    if "id" not in msg or msg["type"] == "error":
        continue
    if mark is not None:
        between += pondered - mark
        gaps += 1
    reply = answer(msg)
    if reply is None:
        continue
    if mode == "think" and msg["type"] != "hello" and (args[1:] != ["pass"] or msg["type"] == "pass"):
        spin(int(args[0]) / 1000)
    sys.stdout.write(json.dumps({"type": msg["type"], "id": msg["id"], **reply}) + "\n")
    sys.stdout.flush()
    if mode == "spinners" and msg["type"] == "hello":
        spinners(int(args[0]))
    mark = pondered
if mode == "ponder":
    print(f"pondered {between * 1000:.3f} ms over {gaps} gaps", file=sys.stderr)
