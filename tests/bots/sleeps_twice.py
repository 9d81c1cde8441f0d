"""A bot that waits 300 ms (sleeping, using no CPU) on its first two play requests and answers everything else at once.

On the bot's CPU time (fair play) it is always in time; on the wall clock with a 200 ms move it is late twice.
"""

import json
import sys
import time

plays = 0
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "bye":
        break
    if "id" not in msg:  # an event: no answer
        continue
    if kind == "hello":
        reply = {"name": "sleeps-twice", "version": "0", "protocol": 2}
    elif kind == "play":
        plays += 1
        if plays <= 2:
            time.sleep(0.3)
        reply = {"card": msg["legal"][0]}
    elif kind == "pass":
        reply = {"cards": msg["hand"][: msg["count"]]}
    elif kind == "trump":
        reply = {"suit": msg["choices"][0]}
    else:
        reply = {"choice": "others"}
    reply.update(type=kind, id=msg["id"])
    print(json.dumps(reply), flush=True)
