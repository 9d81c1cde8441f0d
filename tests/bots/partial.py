"""Write half a line, wait for one input line, then finish the line."""

import sys

sys.stdout.buffer.write(b"hel")
sys.stdout.buffer.flush()
sys.stdin.buffer.readline()
sys.stdout.buffer.write(b"lo\n")
sys.stdout.buffer.flush()
sys.stdin.buffer.read()
