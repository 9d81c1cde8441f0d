"""A bot that plays legally but prints a debug line on stdout before each card it plays."""

import json
import sys


def answer(msg):
    kind = msg.get("type")
    if kind == "hello":
        return {"name": "broken-debug-print", "version": "0", "protocol": 1}
    if kind == "pass":
        return {"cards": msg["hand"][: msg["count"]]}
    if kind == "trump":
        return {"suit": msg["choices"][0]}
    if kind == "play":
        print(f"thinking about {len(msg['legal'])} legal cards", flush=True)  # the bug: debug text on stdout
        return {"card": msg["legal"][0]}
    if kind == "moon":
        return {"choice": "others"}
    return None


for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "bye":
        break
    reply = answer(msg)
    if reply is not None:
        reply.update(type=msg["type"], id=msg["id"])
        print(json.dumps(reply), flush=True)
