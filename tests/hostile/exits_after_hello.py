"""Says hello, then exits cleanly (status 0) before its first decision."""

import json
import sys

from _common import hello

hello(json.loads(sys.stdin.readline()), "hostile-exits-after-hello")
