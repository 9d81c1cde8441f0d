"""At its AFTER-th decision fills every place a program may write to, its private directory (HOME), ``/tmp`` and
``/dev/shm``: first with 1 MiB blocks until a write fails, then with empty files (inodes) until one cannot be made,
and says on stderr, as one JSON line, how much each took and how it stopped. Then it plays on.
"""

import json
import os
import sys

from _common import Message, after, run

done = False


def fill(place: str) -> dict[str, object]:
    folder = os.path.join(place, f"fill-{os.getpid()}")
    written = files = 0
    stopped = None
    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "big.bin"), "wb") as big:
            block = b"\1" * (1024 * 1024)
            while written < 2048 * len(block):
                big.write(block)
                big.flush()
                written += len(block)
    except OSError as error:
        stopped = error.strerror
    try:
        while files < 1_000_000:
            open(os.path.join(folder, f"f{files}"), "wb").close()
            files += 1
    except OSError as error:
        return {"bytes": written, "stopped": stopped, "files": files, "files_stopped": error.strerror}
    return {"bytes": written, "stopped": stopped, "files": files, "files_stopped": None}


def hook(msg: Message, reply: Message, n: int) -> bool:
    global done
    if n >= after() and not done:
        done = True
        report = {place: fill(place) for place in (os.environ["HOME"], "/tmp", "/dev/shm")}
        sys.stderr.write(json.dumps(report) + "\n")
        sys.stderr.flush()
    return False


run(hook)
