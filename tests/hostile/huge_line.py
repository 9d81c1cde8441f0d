"""At its AFTER-th decision writes a 100 MB line, then plays on.

usage: huge_line.py AFTER [open]. By default the line ends after 100 MB; with ``open`` it never does, so the
newline of the bot's next answer is the first one the referee sees and that answer is lost with the long line.
The referee must keep only a bounded prefix, report the line as malformed and throw the rest away as it arrives.
"""

from _common import Message, after, arg, run, send_raw

MB = b"x" * (1024 * 1024)


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n != after():
        return False
    send_raw(b'{"type": "play", "id": ' + str(msg["id"]).encode() + b', "card": "')
    for _ in range(100):
        send_raw(MB)
    if arg(0) != "open":
        send_raw(b'"}\n')
    return True


run(hook)
