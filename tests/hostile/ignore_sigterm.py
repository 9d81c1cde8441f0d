"""Ignores SIGTERM, plays correctly, and does not leave when told "bye" or when its input ends."""

import signal
import time

from _common import run

signal.signal(signal.SIGTERM, signal.SIG_IGN)
run()
while True:
    time.sleep(60)
