"""Stop signals (Ctrl-C, SIGTERM, SIGHUP) held across a step that must not be cut in half, then delivered.

`kierki_cli.entry` turns SIGTERM and SIGHUP into a KeyboardInterrupt, as Ctrl-C is: raised wherever the coordinator
is. Most places can take it, but not all: a worker being started, or ``shutil.rmtree`` (which then closes a
descriptor twice and fails with ``OSError: Bad file descriptor``, a traceback instead of a clean stop).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["STOP_SIGNALS", "stop_signals_held"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def stop_signals_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP until the block ends, then deliver them to their handlers as usual (a
    KeyboardInterrupt is then raised as the block ends). Keep the block short: the stop waits for it.

    Signals can only be caught on the main thread; elsewhere (where no handler of ours raises) the block runs as it
    is. An ignored signal stays ignored, and a handler set outside Python is left alone (it cannot be put back)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    previous: dict[signal.Signals, Any] = {}
    for stop in STOP_SIGNALS:
        handler = signal.getsignal(stop)
        if handler is not None and handler != signal.SIG_IGN:
            previous[stop] = signal.signal(stop, hold)
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)
