"""Burns 100 ms of CPU before every answer, so a CPU-time limit (--limit-cpu) ends it during the game."""

import time

from _common import Message, run


def hook(msg: Message, reply: Message, n: int) -> bool:
    until = time.process_time() + 0.1
    while time.process_time() < until:
        pass
    return False


run(hook)
