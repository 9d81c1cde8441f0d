"""Places from totals: equal totals share a place (competition ranking: 1, 1, 3, 4)."""

from __future__ import annotations

from collections.abc import Sequence


def places(totals: Sequence[int], *, highest_wins: bool) -> tuple[int, ...]:
    sign = -1 if highest_wins else 1
    result = []
    for mine in totals:  # loops, not generators: this runs at the end of every game, also in playouts
        place = 1
        for other in totals:
            if sign * other < sign * mine:
                place += 1
        result.append(place)
    return tuple(result)
