"""Write 10 MB without a newline, then a normal line."""

import sys

out = sys.stdout.buffer
for _ in range(10):
    out.write(b"x" * 1_000_000)
out.write(b"\nok\n")
out.flush()
sys.stdin.buffer.read()
