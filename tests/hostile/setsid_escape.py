"""Starts a child that leaves its session with setsid() and sleeps; then plays correctly.

Killing a bot's process group and session cannot find such a child; only a pid namespace (--sandbox bwrap) or
cgroups can. The child's command line carries the bot's arguments, so a test can find it.
"""

import os
import time

from _common import Message, run


def escape(msg: Message) -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            time.sleep(120)
        os._exit(0)


run(on_hello=escape)
