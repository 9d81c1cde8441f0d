"""Plays, then exits with status 7 in the middle of the game."""

import sys

from _common import Message, after, run


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n >= after():
        sys.exit(7)
    return False


run(hook)
