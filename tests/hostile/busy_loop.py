"""Plays, then hangs in a busy loop (100% of a core, never reads or answers again)."""

from _common import Message, after, run


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n >= after():
        while True:
            pass
    return False


run(hook)
