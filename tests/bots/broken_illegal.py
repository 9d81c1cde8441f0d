"""A bot that answers every play request with an illegal card: one it holds but may not play, else one it lacks."""

import json
import sys

DECK = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]


def illegal_card(msg):
    held_not_legal = [card for card in msg["hand"] if card not in msg["legal"]]
    if held_not_legal:
        return held_not_legal[0]
    return next(card for card in DECK if card not in msg["hand"])


def answer(msg):
    kind = msg.get("type")
    if kind == "hello":
        return {"name": "broken-illegal", "version": "0", "protocol": 1}
    if kind == "pass":
        return {"cards": msg["hand"][: msg["count"]]}
    if kind == "trump":
        return {"suit": msg["choices"][0]}
    if kind == "play":
        return {"card": illegal_card(msg)}  # the bug: not one of "legal"
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
