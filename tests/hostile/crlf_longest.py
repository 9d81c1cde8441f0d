"""Answers every request with a line of exactly 4,096 bytes (padded with spaces) ended by CRLF.

PROTOCOL.md §1 allows both: the limit counts the line without its line end. Nothing here is a fault.
"""

import json

from _common import Message, run, send_raw

LIMIT = 4096


def pad(msg: Message, reply: Message, n: int) -> bool:
    body = json.dumps(reply).encode()
    send_raw(body[:-1] + b" " * (LIMIT - len(body)) + b"}\r\n")
    return True


run(pad)
