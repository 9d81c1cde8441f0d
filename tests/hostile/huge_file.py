"""At its AFTER-th decision writes an ever larger file in its working directory (stopping itself at 1 GB).

Past the file-size limit (RLIMIT_FSIZE) the kernel sends SIGXFSZ; Python ignores that signal, so the write fails
with EFBIG ("File too large") instead and the bot dies of the exception. A C program would be killed by SIGXFSZ.
"""

from _common import Message, after, run

MB = b"\x00" * (1024 * 1024)


def hook(msg: Message, reply: Message, n: int) -> bool:
    if n < after():
        return False
    with open("huge.bin", "wb") as huge:
        for _ in range(1024):
            huge.write(MB)
            huge.flush()
    return False


run(hook)
