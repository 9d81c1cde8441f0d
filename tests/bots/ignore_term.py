"""Ignore SIGTERM and keep running even after end of input."""

import signal
import sys

signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stdout.buffer.write(b"ready\n")
sys.stdout.buffer.flush()
sys.stdin.buffer.read()
while True:
    signal.pause()
