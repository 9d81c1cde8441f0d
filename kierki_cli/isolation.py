"""The options for per-bot limits and isolation, gathered into one ``Isolation`` argument: the one table of them,
shared by ``kierki match``, ``tournament``, ``sprt``, ``check-bot`` and ``ladder init``, so that an option means the
same everywhere (``--limit-cpu 0`` is no limit; left out, 600 CPU seconds per game). A command chooses only the
sandbox's default and the words that explain it (a ladder runs strangers' bots: bwrap by default).

What each option does is in SECURITY.md.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import click

from kierki_cli.common import parse_pairs
from referee.bots.fairplay import FAIR_PLAY_MODES, FairPlay, FairPlayMode, fair_play_problem
from referee.bots.sandbox import (
    DEFAULT_CPU_S_PER_GAME,
    DEFAULT_FILE_MB,
    DEFAULT_MEMORY_MB,
    DEFAULT_PROCESSES,
    SANDBOXES,
    Limits,
    SandboxKind,
)

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Isolation:
    """The options' values, as a match and check-bot take them. (A plain class: read once, never compared,
    and a dataclass costs about half a millisecond at every ``kierki`` start.)"""

    __slots__ = ("bot_env", "bot_ro", "fair_play", "limits", "sandbox")

    def __init__(
        self,
        limits: Limits,
        sandbox: SandboxKind,
        bot_env: tuple[tuple[str, str], ...],
        bot_ro: tuple[Path, ...] = (),
        fair_play: FairPlay | None = None,
    ) -> None:
        self.limits = limits
        self.sandbox = sandbox
        self.bot_env = bot_env
        self.bot_ro = bot_ro
        self.fair_play = FairPlay() if fair_play is None else fair_play


FAIR_PLAY_HELP = (
    "auto: each bot in a control group of its own where one can be made (its deadline judged on its own CPU time, "
    "frozen while not to move, memory and processes limited per bot), else the wall clock, with a note. "
    "cgroup: refuse to run without. none: the wall clock. See SECURITY.md."
)

SANDBOX_HELP = (
    "none: scrubbed environment, private directory OUT/seatN and the limits. bwrap: also bubblewrap "
    "(no network; only the system folders, the bot's own program folders and --bot-ro paths, read-only; "
    "logs, deal files and other seats hidden). See SECURITY.md."
)


def _options(sandbox_default: str, sandbox_help: str) -> tuple[Callable[[Any], Any], ...]:
    return (
        click.option(
            "--limit-memory",
            type=click.IntRange(0),
            default=DEFAULT_MEMORY_MB,
            show_default=True,
            metavar="MB",
            help="Memory per bot: its control group's resident memory with --fair-play, else its address space "
            "(RLIMIT_AS, which JVMs and some runtimes exceed at start); 0: no limit.",
        ),
        click.option(
            "--limit-cpu",
            type=click.IntRange(0),
            default=None,
            metavar="S",
            help=f"CPU seconds per bot over the whole match (RLIMIT_CPU) [default: {DEFAULT_CPU_S_PER_GAME} per game]; "
            "0: no limit.",
        ),
        click.option(
            "--limit-processes",
            type=click.IntRange(0),
            default=DEFAULT_PROCESSES,
            show_default=True,
            metavar="N",
            help="Processes and threads per bot: its control group's pids.max with --fair-play, else what it may add "
            "to the user's count (RLIMIT_NPROC, shared per user, no effect as root); 0: no limit.",
        ),
        click.option(
            "--limit-file",
            type=click.IntRange(0),
            default=DEFAULT_FILE_MB,
            show_default=True,
            metavar="MB",
            help="Largest file a bot may write (RLIMIT_FSIZE); 0: no limit.",
        ),
        click.option(
            "--limit-disk",
            type=click.IntRange(0),
            default=0,
            show_default=True,
            metavar="MB",
            help="With --sandbox bwrap: the bot's private directory is a tmpfs of this size, so a bot that fills it "
            "fills only its own space; 0: its real directory OUT/seatN.",
        ),
        click.option(
            "--sandbox",
            type=click.Choice(SANDBOXES),
            default=sandbox_default,
            show_default=True,
            help=sandbox_help,
        ),
        click.option(
            "--fair-play",
            "fair_play",
            type=click.Choice(FAIR_PLAY_MODES),
            default="auto",
            show_default=True,
            help=FAIR_PLAY_HELP,
        ),
        click.option(
            "--no-freeze",
            "no_freeze",
            is_flag=True,
            help="With control groups: let bots run while it is not their turn (pondering, for trusted bots); their "
            "deadlines are still their own CPU time.",
        ),
        click.option(
            "--bot-ro",
            "bot_ro",
            multiple=True,
            type=click.Path(exists=True, path_type=Path),
            metavar="PATH",
            help="With --sandbox bwrap: a folder or file every bot may read (data a bot needs outside its program "
            "folder); repeat for several.",
        ),
        click.option(
            "--bot-env",
            "bot_env",
            multiple=True,
            metavar="NAME=VALUE",
            help="An environment variable for every bot (bots get only PATH, LANG, LC_ALL, HOME and TMPDIR otherwise); "
            "repeat for several.",
        ),
    )


def note_fair_play(fair_play: FairPlay) -> None:
    """With ``--fair-play auto`` where no control group can be made: one line on stderr that says so and what
    follows (the match runs as before)."""
    if fair_play.mode != "auto":
        return
    problem = fair_play_problem(fair_play)
    if problem is not None:
        click.echo(
            f"note: no control groups here ({problem}): bots are timed on the wall clock, not frozen between turns, "
            'and limited per process (SECURITY.md, "Fair play"); --fair-play none silences this',
            err=True,
        )


def isolation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the options to a click command, which receives them as one ``isolation: Isolation`` argument."""
    return isolation_options_for()(command)


def isolation_options_for(
    sandbox_default: SandboxKind = "none", sandbox_help: str = SANDBOX_HELP
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``isolation_options`` with another default sandbox, explained in ``sandbox_help``: the one thing a command
    may choose (``kierki ladder init``: bwrap); every limit means the same for every command."""
    return functools.partial(_add_options, sandbox_default=sandbox_default, sandbox_help=sandbox_help)


def _add_options(command: Callable[..., Any], *, sandbox_default: SandboxKind, sandbox_help: str) -> Callable[..., Any]:
    @functools.wraps(command)
    def wrapper(
        *args: Any,
        limit_memory: int,
        limit_cpu: int | None,
        limit_processes: int,
        limit_file: int,
        limit_disk: int,
        sandbox: str,
        fair_play: str,
        no_freeze: bool,
        bot_env: tuple[str, ...],
        bot_ro: tuple[Path, ...],
        **kwargs: Any,
    ) -> Any:
        if (limit_disk or bot_ro) and sandbox != "bwrap":
            raise click.UsageError("--limit-disk and --bot-ro apply inside a sandbox: add --sandbox bwrap")
        if no_freeze and fair_play == "none":
            raise click.UsageError("--no-freeze applies to bots in control groups: leave out --fair-play none")
        kwargs["isolation"] = Isolation(
            limits=Limits(
                memory_mb=limit_memory,
                cpu_s=limit_cpu,
                processes=limit_processes,
                file_mb=limit_file,
                disk_mb=limit_disk,
            ),
            sandbox=cast(SandboxKind, sandbox),
            bot_env=tuple(parse_pairs(bot_env, "--bot-env", "OMP_NUM_THREADS=1", metavar="NAME=VALUE", keys=_ENV_NAME)),
            bot_ro=bot_ro,
            fair_play=FairPlay(mode=cast(FairPlayMode, fair_play), freeze=not no_freeze),
        )
        return command(*args, **kwargs)

    decorated: Callable[..., Any] = wrapper
    for option in reversed(_options(sandbox_default, sandbox_help)):
        decorated = option(decorated)
    return decorated
