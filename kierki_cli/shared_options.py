"""The options several commands take, each declared once here with one help text, as click decorators that hand
the command one value: the rules (``--game``, ``--players``, ``--option``) as `RuleOptions`, the clock
(``--time-per-move``, ``--startup-time``, ``--time-bank``, ``--increment``) as a `TimeControl`, the isolation
(``--limit-*``, ``--sandbox``, ``--fair-play``, ``--no-freeze``, ``--bot-ro``, ``--bot-env``) as an `Isolation`.
``kierki match``, ``tournament``, ``sprt``, ``check-bot``, ``ladder init`` (and ``play``, for the rules and the bots'
deadline) use them, so an option means the same everywhere (``--limit-cpu 0`` is no limit; left out, 600 CPU seconds
per game). A command chooses only its defaults where it must (the game of ``play``, the sandbox of ``ladder init``: a
ladder runs strangers' bots) and which clock settings it takes (``check-bot``: no bank; ``play``: the deadline).

The values check themselves (`referee.vocabulary.setting_error.SettingError`); an option's range is the value's
own minimum, so that ``--help`` shows it. What each isolation option does is in SECURITY.md.

Each is declared once, by `kierki_cli.options.shared_option`, as are the options of a run and of its output that
need nothing of the referee (``--seed``, ``--out``, ``--json``...: `kierki_cli.options`, so that ``kierki replay``
imports none of this module's referee).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import click

from kierki_cli.common import parse_pairs
from kierki_cli.options import Decorator, shared_option
from referee.api import (
    DEFAULT_CPU_S_PER_GAME,
    DEFAULT_DISK_MB,
    DEFAULT_FILE_MB,
    DEFAULT_MEMORY_MB,
    DEFAULT_PROCESSES,
    FAIR_PLAY_MODES,
    FILES_PER_MB,
    LIMIT_MINIMUMS,
    SANDBOXES,
    TIME_MINIMUMS,
    FairPlayMode,
    Isolation,
    Limits,
    SandboxKind,
    SettingError,
    TimeControl,
    fair_play_problem,
)
from referee.rules import Game, RulesError, Ruleset

__all__ = [
    "FAIR_PLAY_HELP",
    "GAMES",
    "SANDBOX_HELP",
    "RuleOptions",
    "game_option",
    "isolation_options",
    "isolation_options_for",
    "max_strikes_option",
    "note_fair_play",
    "rules_options",
    "time_options",
]

GAMES = tuple(g.value for g in Game)


def _apply(command: Callable[..., Any], options: Sequence[Decorator]) -> Callable[..., Any]:
    for option in reversed(options):
        command = option(command)
    return command


# --- the rules ------------------------------------------------------------------------------------------------


class RuleOptions:
    """``--game``, ``--players`` and ``--option`` as given (``game`` None: the command's "every game"). (A plain
    class: read once, never compared, and a dataclass costs about half a millisecond at every ``kierki`` start.)"""

    __slots__ = ("game", "options", "players")

    def __init__(self, game: str | None, players: int | None = None, options: Mapping[str, str] | None = None) -> None:
        self.game = game
        self.players = players
        self.options: Mapping[str, str] = options or {}

    @property
    def narrowed(self) -> bool:
        """Whether ``--players`` or ``--option`` was given."""
        return self.players is not None or bool(self.options)

    def ruleset(self) -> Ruleset:
        """The rules they name; a usage error (exit 2) saying what is wrong with them."""
        assert self.game is not None
        try:
            return Ruleset.create(self.game, self.players, dict(self.options))
        except RulesError as error:
            raise click.UsageError(str(error)) from None


def game_option(*, default: str | None = "kierki", required: bool = False, every_game: str | None = None) -> Decorator:
    """``--game``: a command chooses the default game (or makes it ``required``); with ``every_game`` (the words
    shown as the default) leaving it out means every game."""
    return shared_option(
        "--game",
        type=click.Choice(GAMES),
        default=default,
        required=required,
        show_default=default is not None,
        text="Which game.",
        more=f"  [default: {every_game}]" if every_game else "",  # as click shows one
    )


def rules_options(
    *, default: str | None = "kierki", required: bool = False, every_game: str | None = None
) -> Decorator:
    """``--game``, ``--players`` and ``--option``, handed to the command as one ``rules: RuleOptions``. The game's
    default is `game_option`'s; where leaving ``--game`` out means every game, ``--players`` and ``--option`` are
    refused."""
    options: list[Decorator] = [
        game_option(default=default, required=required, every_game=every_game),
        shared_option(
            "--players",
            type=int,
            default=None,
            text="Players (cancellation: 6-11; default: the game's, 6 for cancellation).",
        ),
        shared_option(
            "--option",
            "option_pairs",
            multiple=True,
            metavar="KEY=VALUE",
            text="A rule option; repeat for several. `kierki options` lists them all.",
        ),
    ]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def wrapper(
            *args: Any, game: str | None, players: int | None, option_pairs: tuple[str, ...], **kwargs: Any
        ) -> Any:
            pairs = dict(parse_pairs(option_pairs, "--option", "target=50", strip=True))
            rules = RuleOptions(game, players, pairs)
            if game is None and rules.narrowed:
                raise click.UsageError(
                    "--players and --option set one game's rules: add --game, e.g. --game cancellation"
                )
            return command(*args, rules=rules, **kwargs)

        return _apply(wrapper, options)

    return decorate


# --- the clock ------------------------------------------------------------------------------------------------

_TIME_OPTIONS: dict[str, tuple[str, str]] = {  # TimeControl field: (option, help)
    "move_ms": ("--time-per-move", "Each bot's deadline per decision (ms)."),
    "startup_ms": ("--startup-time", "Deadline for the answer to hello (ms)."),
    "bank_ms": ("--time-bank", "Extra time a bot may spend over all decisions (ms)."),
    "increment_ms": ("--increment", "Added to the bank after each decision (ms)."),
}


def time_options(*settings: str) -> Decorator:
    """The clock's options (by default all four; ``check-bot`` takes ``"move_ms", "startup_ms"``), handed to the
    command as one ``time: TimeControl`` (the settings it does not take keep their defaults)."""
    chosen = settings or tuple(_TIME_OPTIONS)
    names = {setting: _TIME_OPTIONS[setting][0].removeprefix("--").replace("-", "_") for setting in chosen}
    options = [
        shared_option(
            _TIME_OPTIONS[setting][0],
            type=click.IntRange(TIME_MINIMUMS[setting]),
            default=getattr(TimeControl(), setting),
            show_default=True,
            text=_TIME_OPTIONS[setting][1],
        )
        for setting in chosen
    ]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            given = {setting: kwargs.pop(name) for setting, name in names.items()}
            try:
                time = TimeControl(**given)
            except SettingError as error:  # (the ranges above are the same minimums)
                raise click.BadParameter(error.problem, param_hint=_TIME_OPTIONS[error.setting][0]) from None
            return command(*args, time=time, **kwargs)

        return _apply(wrapper, options)

    return decorate


# --- the isolation --------------------------------------------------------------------------------------------

SANDBOX_HELP = (
    "none: scrubbed environment, private directory OUT/seatN and the limits. bwrap: also bubblewrap "
    "(no network; only the system folders, the bot's own program folders and --bot-ro paths, read-only; "
    "logs, deal files and other seats hidden). See SECURITY.md."
)

FAIR_PLAY_HELP = (
    "auto: each bot in a control group of its own where one can be made (its deadline judged on its own CPU time, "
    "frozen while not to move, memory and processes limited per bot), else the wall clock, with a note. "
    "cgroup: refuse to run without. none: the wall clock. See SECURITY.md."
)

_LIMIT_OPTIONS = {  # Limits field: its option
    "memory_mb": "--limit-memory",
    "cpu_s": "--limit-cpu",
    "processes": "--limit-processes",
    "file_mb": "--limit-file",
    "disk_mb": "--limit-disk",
}
_ISOLATION_OPTIONS = {
    **_LIMIT_OPTIONS,
    "sandbox": "--sandbox",
    "bot_env": "--bot-env",
    "bot_ro": "--bot-ro",
    "fair_play": "--fair-play",
    "freeze": "--no-freeze",
}


def _isolation_options(sandbox_default: str, sandbox_note: str) -> list[Decorator]:
    def limit(setting: str, **settings: Any) -> Decorator:
        return shared_option(_LIMIT_OPTIONS[setting], type=click.IntRange(LIMIT_MINIMUMS[setting]), **settings)

    return [
        limit(
            "memory_mb",
            default=DEFAULT_MEMORY_MB,
            show_default=True,
            metavar="MB",
            text="Memory per bot: its control group's resident memory with --fair-play, else its address space "
            "(RLIMIT_AS, which JVMs and some runtimes exceed at start); 0: no limit.",
        ),
        limit(
            "cpu_s",
            default=None,
            metavar="S",
            text=f"CPU seconds per bot over the whole match (RLIMIT_CPU) [default: {DEFAULT_CPU_S_PER_GAME} per game]; "
            "0: no limit.",
        ),
        limit(
            "processes",
            default=DEFAULT_PROCESSES,
            show_default=True,
            metavar="N",
            text="Processes and threads per bot: its control group's pids.max with --fair-play, else what it may add "
            "to the user's count (RLIMIT_NPROC, shared per user, no effect as root); 0: no limit.",
        ),
        limit(
            "file_mb",
            default=DEFAULT_FILE_MB,
            show_default=True,
            metavar="MB",
            text="Largest file a bot may write (RLIMIT_FSIZE); 0: no limit.",
        ),
        limit(
            "disk_mb",
            default=DEFAULT_DISK_MB,
            show_default=True,
            metavar="MB",
            text="With --sandbox bwrap: the bot's private directory, /tmp and /dev/shm are each a tmpfs of this size "
            f"holding at most MB x {FILES_PER_MB} files (in its memory), so a bot that fills one gets ENOSPC in its "
            "own writes; 0: its real directory OUT/seatN. See SECURITY.md.",
        ),
        shared_option(
            "--sandbox",
            type=click.Choice(SANDBOXES),
            default=sandbox_default,
            show_default=True,
            text=SANDBOX_HELP,
            more=sandbox_note,
        ),
        shared_option(
            "--fair-play",
            "fair_play",
            type=click.Choice(FAIR_PLAY_MODES),
            default="auto",
            show_default=True,
            text=FAIR_PLAY_HELP,
        ),
        shared_option(
            "--no-freeze",
            "no_freeze",
            is_flag=True,
            text="With control groups: let bots run while it is not their turn (pondering, for trusted bots); their "
            "deadlines are still their own CPU time.",
        ),
        shared_option(
            "--bot-ro",
            "bot_ro",
            multiple=True,
            type=click.Path(exists=True, path_type=Path),
            metavar="PATH",
            text="With --sandbox bwrap: a folder or file every bot may read (data a bot needs outside its program "
            "folder); repeat for several.",
        ),
        shared_option(
            "--bot-env",
            "bot_env",
            multiple=True,
            metavar="NAME=VALUE",
            text="An environment variable for every bot (bots get only PATH, LANG, LC_ALL, HOME and TMPDIR otherwise); "
            "repeat for several.",
        ),
    ]


def isolation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the isolation options to a click command, which receives them as one ``isolation: Isolation``."""
    return isolation_options_for()(command)


def isolation_options_for(sandbox_default: SandboxKind = "none", sandbox_note: str = "") -> Decorator:
    """``isolation_options`` with another default sandbox, explained in ``sandbox_note``: the one thing a command
    may choose (``kierki ladder init``: bwrap); every limit means the same for every command."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
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
            limits = Limits(
                memory_mb=limit_memory,
                cpu_s=limit_cpu,
                processes=limit_processes,
                file_mb=limit_file,
                disk_mb=limit_disk,
            )
            if no_freeze and fair_play == "none":
                raise click.UsageError("--no-freeze applies to bots in control groups: leave out --fair-play none")
            try:
                isolation = Isolation(
                    limits=limits,
                    sandbox=cast(SandboxKind, sandbox),
                    bot_env=tuple(parse_pairs(bot_env, "--bot-env", "OMP_NUM_THREADS=1", metavar="NAME=VALUE")),
                    bot_ro=bot_ro,
                    fair_play=cast(FairPlayMode, fair_play),
                    freeze=not no_freeze,
                )
            except SettingError as error:
                raise click.BadParameter(
                    f"{error.value!r}: {error.problem}", param_hint=_ISOLATION_OPTIONS[error.setting]
                ) from None
            if isolation.unapplied():
                raise click.UsageError("--limit-disk and --bot-ro apply inside a sandbox: add --sandbox bwrap")
            return command(*args, isolation=isolation, **kwargs)

        return _apply(wrapper, _isolation_options(sandbox_default, sandbox_note))

    return decorate


def note_fair_play(isolation: Isolation) -> None:
    """With ``--fair-play auto`` where no control group can be made: one line on stderr that says so and what
    follows (the match runs as before)."""
    if isolation.fair_play != "auto":
        return
    problem = fair_play_problem(isolation.fair_play)
    if problem is not None:
        click.echo(
            f"note: no control groups here ({problem}): bots are timed on the wall clock, not frozen between turns, "
            'and limited per process (SECURITY.md, "Fair play"); --fair-play none silences this',
            err=True,
        )


# --- the fault policy -------------------------------------------------------------------------------------------

max_strikes_option = shared_option(
    "--max-strikes",
    type=click.IntRange(1),
    default=3,
    show_default=True,
    text="Faults before a seat is forfeited.",
)
