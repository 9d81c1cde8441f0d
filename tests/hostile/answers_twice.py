"""Sends every answer twice: the second copy answers a request that is already answered."""

from _common import Message, run, send


def hook(msg: Message, reply: Message, n: int) -> bool:
    send(reply)
    send(reply)
    return True


run(hook)
