"""Forks a child that keeps stdin, stdout and stderr open (and sleeps), then exits itself mid-game."""

import os
import time

from _common import Message, after, run


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
    os._exit(0)


run(hook)
