"""Answers hello with a name and version full of terminal escape sequences, then plays correctly.

The name clears the screen, moves the cursor home and prints a forged table row; the version hides itself with
bidi overrides. The organiser's terminal must show the bytes, not obey them.
"""

import json
import sys

from _common import legal_answer, send

NAME = "\x1b[2J\x1b[H1  0  winner  +999  \x1b[8m"
VERSION = "\u202e1.0\u200b\x07"

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        send({"type": "hello", "id": msg["id"], "name": NAME, "version": VERSION, "protocol": 1})
    elif msg["type"] == "bye":
        break
    else:
        reply = legal_answer(msg)
        if reply is not None:
            send(reply)
