"""Plays correctly until its AFTER-th decision (a later deal), then kills the referee (its parent) with SIGKILL.

Without a sandbox this succeeds: what the replay log holds then is what the referee had flushed, a deal at a time.
"""

import os
import signal

from _common import Message, after, run


def hook(msg: Message, reply: Message, decision: int) -> bool:
    if decision == after():
        os.kill(os.getppid(), signal.SIGKILL)
    return False


run(hook)
