"""Read all input and never answer."""

import sys

sys.stdin.buffer.read()
