"""At its AFTER-th decision allocates memory without end, 32 MB at a time, and writes to every page.

Under the referee's memory limit (RLIMIT_AS) an allocation soon fails and the bot dies with MemoryError. Without
any limit it would stop itself at 4 GB, so that this test can never take a machine down.
"""

from _common import Message, after, run

CHUNK = 32 * 1024 * 1024
PAGE = 4096
SELF_CAP = 4 * 1024**3
hoard: list[bytearray] = []


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    while len(hoard) * CHUNK < SELF_CAP:
        chunk = bytearray(CHUNK)
        chunk[::PAGE] = b"\x01" * (CHUNK // PAGE)  # touch every page: real memory, not just address space
        hoard.append(chunk)
    return False


run(hook)
