"""The tutorial's bot (docs/bots/tutorial.md): Python's standard library only. It plays the lowest legal card,
passes its highest cards, names its longest suit as trump and lets the others take the moon points.

Check it: kierki check-bot -- python3 examples/tutorial_bot.py
"""

import json
import sys
from typing import Any

RANKS = "23456789TJQKA"


def rank(card: str) -> int:
    return RANKS.index(card[0])


def answer(msg: dict[str, Any]) -> dict[str, Any]:
    kind = msg["type"]
    if kind == "hello":
        return {"name": "tutorial", "version": "1", "protocol": 2}
    if kind == "pass":
        return {"cards": sorted(msg["hand"], key=rank)[-msg["count"] :]}
    if kind == "trump":
        suits = [choice for choice in msg["choices"] if choice != "NT"] or msg["choices"]
        return {"suit": max(suits, key=lambda suit: sum(card[1] == suit for card in msg["cards"]))}
    if kind == "play":
        return {"card": min(msg["legal"], key=rank)}
    if kind == "moon":
        return {"choice": "others"}
    return {}  # a request type this bot does not know: answer it anyway, with its type and id


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "bye":
        break
    if "id" in msg:  # every message with an "id" is a request; the rest are events, never answered
        reply = answer(msg)
        reply.update(type=msg["type"], id=msg["id"])
        print(json.dumps(reply), flush=True)  # flush: a buffered answer never reaches the referee
    else:
        print("event:", msg["type"], file=sys.stderr)  # logs go to stderr, never stdout
