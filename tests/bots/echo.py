"""Echo each stdin line to stdout, and note it on stderr."""

import sys

for line in sys.stdin.buffer:
    sys.stderr.buffer.write(b"echo: " + line)
    sys.stderr.buffer.flush()
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
