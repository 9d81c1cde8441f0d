"""Read one line, then exit with status 3 without answering."""

import sys

sys.stdin.buffer.readline()
sys.exit(3)
