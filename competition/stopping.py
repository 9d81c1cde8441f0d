"""Stop signals (Ctrl-C, SIGTERM, SIGHUP) held across a step that must not be cut in half, then delivered.

`kierki_cli.entry` turns SIGTERM and SIGHUP into a KeyboardInterrupt, as Ctrl-C is: raised wherever the coordinator
is. Most places can take it, but not all: a worker being started, ``shutil.rmtree`` (which then closes a descriptor
twice and fails with ``OSError: Bad file descriptor``, a traceback instead of a clean stop), a Dask client's own
code, and any ``__del__`` that the garbage collector happens to run at that instant, where Python prints the
KeyboardInterrupt as "Exception ignored" and drops it (a tournament then played on to its end as if never stopped).
A coordinator's loop therefore holds them for its whole run and takes them at its own checkpoints (`Held.check`).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["STOP_SIGNALS", "Held", "stop_signals_held"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Held:
    """The stop signals that came while a `stop_signals_held` block ran, in order of arrival."""

    def __init__(self) -> None:
        self.signals: list[int] = []
        self.handlers: dict[int, Any] = {}  # the handlers the block replaced, put back as it ends

    def check(self) -> None:
        """A checkpoint: if a stop signal has come, deliver it now, to its handler (which raises the
        KeyboardInterrupt: Ctrl-C's, or ``stop_like_ctrl_c``'s), here rather than wherever it landed. Signals
        delivered here are not delivered again as the block ends; later ones are held again."""
        came, self.signals = list(dict.fromkeys(self.signals)), []
        for signum in came:
            handler = self.handlers.get(signum)
            if callable(handler):
                handler(signum, None)
            else:  # the system's default (the process ends): as it would have been
                signal.signal(signum, handler)
                signal.raise_signal(signum)


@contextlib.contextmanager
def stop_signals_held() -> Iterator[Held]:
    """Hold Ctrl-C, SIGTERM and SIGHUP until the block ends, then deliver them to their handlers as usual (a
    KeyboardInterrupt is then raised as the block ends), unless the block took them at a checkpoint
    (`Held.check`). Without checkpoints keep the block short: the stop waits for it.

    Signals can only be caught on the main thread; elsewhere (where no handler of ours raises) the block runs as it
    is. An ignored signal stays ignored, and a handler set outside Python is left alone (it cannot be put back)."""
    held = Held()
    if threading.current_thread() is not threading.main_thread():
        yield held
        return

    def hold(signum: int, frame: FrameType | None) -> None:
        held.signals.append(signum)

    for stop in STOP_SIGNALS:
        handler = signal.getsignal(stop)
        if handler is not None and handler != signal.SIG_IGN:
            held.handlers[stop] = signal.signal(stop, hold)
    try:
        yield held
    finally:
        for signum, handler in held.handlers.items():
            if signal.getsignal(signum) is hold:  # not where a handler run at a checkpoint changed it (to ignore)
                signal.signal(signum, handler)
        for signum in dict.fromkeys(held.signals):
            signal.raise_signal(signum)
