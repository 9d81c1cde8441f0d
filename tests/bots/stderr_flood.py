"""Write 5 MB to stderr, then answer on stdout."""

import sys

for _ in range(80):
    sys.stderr.buffer.write(b"e" * 65536)
sys.stderr.buffer.flush()
sys.stdout.buffer.write(b"done\n")
sys.stdout.buffer.flush()
sys.stdin.buffer.read()
