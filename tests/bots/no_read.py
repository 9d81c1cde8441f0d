"""Say ready, then never read stdin."""

import signal
import sys

sys.stdout.buffer.write(b"ready\n")
sys.stdout.buffer.flush()
while True:
    signal.pause()
