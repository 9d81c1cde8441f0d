"""Answers a pass only once N bots hold their pass request of the deal: passes asked one seat at a time deadlock.

Usage: pass_barrier.py DIR N [silent]. Each bot marks DIR/<deal>-<pid> when its pass request arrives and waits
(up to 20 s) until N marks of the deal exist. With ``silent`` it never answers a pass (and marks nothing).
Every other request gets the first legal choice.
"""

import json
import os
import sys
import time
from pathlib import Path

folder, count = Path(sys.argv[1]), int(sys.argv[2])
silent = sys.argv[3:] == ["silent"]


def barrier(deal: int) -> None:
    (folder / f"{deal}-{os.getpid()}").touch()
    give_up = time.monotonic() + 20
    while len(list(folder.glob(f"{deal}-*"))) < count and time.monotonic() < give_up:
        time.sleep(0.002)


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "bye":
        break
    if "id" not in message or kind == "error":
        continue
    answer: dict[str, object] = {"type": kind, "id": message["id"]}
    if kind == "hello":
        answer.update(name="barrier", version="1", protocol=message["protocol"])
    elif kind == "pass":
        if silent:
            continue
        barrier(message["deal"])
        answer["cards"] = message["hand"][:3]
    elif kind == "play":
        answer["card"] = message["legal"][0]
    elif kind == "moon":
        answer["choice"] = "others"
    else:
        answer["suit"] = message["choices"][0]
    print(json.dumps(answer), flush=True)
