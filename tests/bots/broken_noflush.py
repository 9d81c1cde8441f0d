"""A bot that plays legally but never flushes stdout: its answers wait in Python's block buffer for a pipe.

The commonest mistake of all. Its answers only come out when it exits, at end of input.
"""

import json
import sys

# The bug: stdout is block-buffered (what Python does for a pipe unless PYTHONUNBUFFERED is set, which this
# reopening overrides) and never flushed. Python flushes it only at exit.
sys.stdout = open(1, "w", buffering=1 << 16, closefd=False)  # noqa: SIM115


def answer(msg):
    kind = msg.get("type")
    if kind == "hello":
        return {"name": "broken-noflush", "version": "0", "protocol": 1}
    if kind == "pass":
        return {"cards": msg["hand"][: msg["count"]]}
    if kind == "trump":
        return {"suit": msg["choices"][0]}
    if kind == "play":
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
        print(json.dumps(reply))  # the bug: no flush=True
