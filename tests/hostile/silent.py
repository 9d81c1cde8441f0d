"""Never answers anything, not even the handshake; reads its input to the end."""

import sys

for _line in sys.stdin:
    pass
