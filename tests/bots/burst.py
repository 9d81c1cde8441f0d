"""Write many lines in a single write(), then wait for end of input."""

import os
import sys

os.write(1, b"".join(b"line %d\n" % i for i in range(1000)))
sys.stdin.buffer.read()
