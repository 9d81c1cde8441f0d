"""Double-fork a grandchild into its own process group that keeps our pipes open.

The grandchild prints its pid and ignores SIGTERM. With --exit-now the bot itself exits
right away; otherwise it waits for end of input like a well-behaved bot.
"""

import os
import signal
import sys

signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = os.fork()
if child == 0:
    if os.fork() == 0:
        os.setpgid(0, 0)
        os.write(1, b"%d\n" % os.getpid())
        while True:
            signal.pause()
    os._exit(0)
os.waitpid(child, 0)
if "--exit-now" not in sys.argv:
    sys.stdin.buffer.read()
