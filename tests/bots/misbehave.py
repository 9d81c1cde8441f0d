#!/usr/bin/env python3
"""A bot that plays legally (first legal card) until its N-th decision, then misbehaves one way.

usage: misbehave.py MODE [N]   MODE: timeout, late, illegal, garbage, crash, wrong_type, wrong_id,
                                     hang_forever, exit_code, slow_start, bad_version, stuck_child
"""

import json
import os
import sys
import time

mode = sys.argv[1]
after = int(sys.argv[2]) if len(sys.argv) > 2 else 3
decisions = 0
late_pending = None

if mode == "slow_start":
    time.sleep(30)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def answer(msg):
    t = msg["type"]
    if t == "pass":
        return {"type": "pass", "id": msg["id"], "cards": msg["hand"][:3]}
    if t == "trump":
        return {"type": "trump", "id": msg["id"], "suit": msg["choices"][0]}
    if t == "play":
        return {"type": "play", "id": msg["id"], "card": msg["legal"][0]}
    if t == "moon":
        return {"type": "moon", "id": msg["id"], "choice": "others"}
    return None


for line in sys.stdin:
    msg = json.loads(line)
    t = msg.get("type")
    if t == "hello":
        send(
            {
                "type": "hello",
                "id": msg["id"],
                "name": f"misbehave-{mode}",
                "version": "0",
                "protocol": 3 if mode == "bad_version" else 1,
            }
        )
        continue
    if t == "bye":
        break
    reply = answer(msg)
    if reply is None:
        continue
    decisions += 1
    if decisions < after:
        send(reply)
        continue
    if mode == "timeout":
        continue  # never answers again; keeps reading
    if mode == "late":
        if late_pending is not None:
            send(late_pending)  # the answer to the previous request, now too late
        late_pending = reply
        time.sleep(0.4)
        continue
    if mode == "illegal":
        if t == "play":
            held = set(msg["hand"]) - set(msg["legal"])
            reply["card"] = sorted(held)[0] if held else "ZZ"
            if not held:
                reply["card"] = "AS" if "AS" not in msg["hand"] else "2C"
        send(reply)
        continue
    if mode == "escape_garbage":  # terminal escapes in what the referee quotes back in its fault message
        sys.stdout.write("\x1b[2J\x1b]0;pwned\x07 not json\n")
        sys.stdout.flush()
        continue
    if mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        continue
    if mode == "wrong_type":
        send({"type": "moon", "id": msg["id"], "choice": "self"} if t != "moon" else reply)
        continue
    if mode == "wrong_id":
        reply["id"] = msg["id"] + 1000
        send(reply)
        continue
    if mode == "crash":
        os._exit(3)
    if mode == "stuck_child":
        if os.fork() == 0:
            time.sleep(600)  # keeps the pipes open
            os._exit(0)
        os._exit(0)
    if mode == "hang_forever":
        while True:
            pass
    send(reply)
