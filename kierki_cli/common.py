"""Options shared by several commands, defined once so their defaults and help never drift apart."""

from __future__ import annotations

import click

from referee.bots.seat import TimeControl

time_per_move_option = click.option(
    "--time-per-move",
    type=click.IntRange(1),
    default=TimeControl.move_ms,
    show_default=True,
    help="Deadline per decision (ms).",
)
startup_time_option = click.option(
    "--startup-time",
    type=click.IntRange(1),
    default=TimeControl.startup_ms,
    show_default=True,
    help="Deadline for the answer to hello (ms).",
)
