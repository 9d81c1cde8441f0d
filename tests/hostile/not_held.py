"""Plays a card it does not hold (one of another seat's cards, or one that is not even in play)."""

from _common import Message, after, run, send

RANKS = "23456789TJQKA"
ALL_CARDS = [rank + suit for suit in "CDHS" for rank in RANKS]


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after() or msg["type"] != "play":
        return False
    held = set(msg["hand"])
    reply["card"] = next(card for card in reversed(ALL_CARDS) if card not in held)
    send(reply)
    return True


run(hook)
