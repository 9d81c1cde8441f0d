"""Answers hello as a bot of protocol version 2 would, with a field version 1 does not have.

The referee must say the bot speaks another protocol version (and tell it so with ``bye protocol_mismatch``),
not that its hello is malformed.
"""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        answer = {"type": "hello", "id": msg["id"], "name": "v2", "version": "2.0", "protocol": 2, "features": ["x"]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    elif msg["type"] == "bye":
        sys.stderr.write(f"bye {msg['reason']}\n")
        break
