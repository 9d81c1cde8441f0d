"""Answers hello as a bot of protocol version 3 would, with a field versions 1 and 2 do not have.

The referee must say the bot speaks another protocol version (and tell it so with ``bye protocol_mismatch``),
not that its hello is malformed.
"""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        answer = {"type": "hello", "id": msg["id"], "name": "v3", "version": "3.0", "protocol": 3, "features": ["x"]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    elif msg["type"] == "bye":
        sys.stderr.write(f"bye {msg['reason']}\n")
        break
