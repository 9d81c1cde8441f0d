"""The replay writer's error, in a module of its own: the writer is compiled with mypyc (setup.py ``COMPILED``),
and a compiled module cannot define a subclass of a builtin exception such as ``OSError``."""

from __future__ import annotations

__all__ = ["ReplayWriteError"]


class ReplayWriteError(OSError):
    """The replay log could not be written (a full disk, a lost mount): the game cannot be recorded, so it stops."""
