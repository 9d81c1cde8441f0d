"""Passes two cards instead of three (and plays normally otherwise)."""

from _common import Message, run, send


def hook(msg: Message, reply: Message, n: int) -> bool:
    if msg["type"] != "pass":
        return False
    reply["cards"] = reply["cards"][:2]
    send(reply)
    return True


run(hook)
