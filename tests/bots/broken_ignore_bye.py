"""A bot that plays legally but ignores bye: it keeps running until its input closes."""

import json
import sys


def answer(msg):
    kind = msg.get("type")
    if kind == "hello":
        return {"name": "broken-ignore-bye", "version": "0", "protocol": 1}
    if kind == "pass":
        return {"cards": msg["hand"][: msg["count"]]}
    if kind == "trump":
        return {"suit": msg["choices"][0]}
    if kind == "play":
        return {"card": msg["legal"][0]}
    if kind == "moon":
        return {"choice": "others"}
    return None  # the bug: "bye" is treated like any other event


for line in sys.stdin:
    msg = json.loads(line)
    reply = answer(msg)
    if reply is not None:
        reply.update(type=msg["type"], id=msg["id"])
        print(json.dumps(reply), flush=True)
