"""Say ready, wait for one line, then try to allocate 2 GiB."""

import sys

sys.stdout.buffer.write(b"ready\n")
sys.stdout.buffer.flush()
sys.stdin.buffer.readline()
hog = bytearray(2 * 1024**3)
sys.stdout.buffer.write(b"allocated %d\n" % len(hog))
sys.stdout.buffer.flush()
