"""Passes the same card twice (three cards, two of them equal)."""

from _common import Message, run, send


def hook(msg: Message, reply: Message, n: int) -> bool:
    if msg["type"] != "pass":
        return False
    first, second = reply["cards"][:2]
    reply["cards"] = [first, first, second]
    send(reply)
    return True


run(hook)
