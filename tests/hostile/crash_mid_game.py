"""Plays, then raises an exception in the middle of the game (a traceback on stderr, exit status 1)."""

from _common import Message, after, run


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n >= after():
        raise RuntimeError(f"hostile bot: crashing at decision {n}")
    return False


run(hook)
