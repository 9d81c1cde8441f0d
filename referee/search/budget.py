"""How long a search may run: a playout count (repeatable: no clock is read), CPU milliseconds of this process
(``time.process_time``, the clock a referee with control groups measures), and optionally a wall-clock cap (the
clock of a referee without them). Whichever runs out first stops the search."""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["Budget", "Meter"]


@dataclass(frozen=True)
class Budget:
    """At least one of ``playouts`` and ``cpu_ms``. With ``playouts`` alone the search never reads a clock, so the
    same seed gives the same evaluation on any machine; ``cpu_ms`` counts this process's CPU time; ``wall_ms``
    (optional, with either) also stops at that much elapsed time."""

    playouts: int | None = None
    cpu_ms: int | None = None
    wall_ms: int | None = None

    def __post_init__(self) -> None:
        if self.playouts is None and self.cpu_ms is None:
            raise ValueError("a search budget needs a playout count or CPU milliseconds (or both)")
        for name in ("playouts", "cpu_ms", "wall_ms"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"a search budget's {name} cannot be negative ({value})")

    def start(self) -> Meter:
        return Meter(self)


class Meter:
    """A budget being spent: ``used`` playouts so far, ``spent()`` once any limit is reached."""

    def __init__(self, budget: Budget) -> None:
        self.playouts = budget.playouts
        self.used = 0
        self.cpu_deadline = None if budget.cpu_ms is None else time.process_time() + budget.cpu_ms / 1000.0
        self.wall_deadline = None if budget.wall_ms is None else time.monotonic() + budget.wall_ms / 1000.0

    def spent(self) -> bool:
        if self.playouts is not None and self.used >= self.playouts:
            return True
        if self.cpu_deadline is not None and time.process_time() >= self.cpu_deadline:
            return True
        return self.wall_deadline is not None and time.monotonic() >= self.wall_deadline
