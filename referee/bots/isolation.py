"""How a match isolates its bots, as one value: the per-bot limits, the sandbox, the variables every bot gets, the
paths a sandboxed bot may also read and fair play (a control group per bot, freezing: ``referee.bots.fairplay``;
SECURITY.md says what each does).

`Isolation` checks itself as it is made (a `referee.vocabulary.setting_error.SettingError`), the one check for every
source of it: the command line's isolation options (``kierki_cli.shared_options``), ladder.toml's ``[isolation]``
(``competition.ladder.config``), a library caller. A match takes it whole (``MatchConfig.isolation``), and so does
every configuration above one, so a setting added here reaches every bot without being passed along by hand: add
the field (with a default that changes nothing), its check in ``__post_init__``, where it takes effect
(`Isolation.prepare`, or the process's start in ``referee.match``), and its option in ``kierki_cli.shared_options``
(ladder.toml's ``[isolation]`` and a tournament's stored configuration, ``competition.tournament_config``, take
every field by its name; there a field added later is left out while it is its default).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Literal

import msgspec

from referee.bots.limits import ResourceLimits
from referee.bots.sandbox import DEFAULT_DISK_MB, SANDBOXES, Limits, PreparedBot, SandboxKind, check_bwrap, prepare
from referee.vocabulary.setting_error import SettingError, check_declared, declared_minimums

__all__ = ["ENV_NAME", "FAIR_PLAY_MODES", "LIMIT_MINIMUMS", "LIMIT_SETTINGS", "FairPlayMode", "Isolation"]

ENV_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # an environment variable's name, as a shell takes it
LIMIT_SETTINGS: Final = ("memory_mb", "cpu_s", "processes", "file_mb", "disk_mb")  # the fields of `Limits`
LIMIT_MINIMUMS: Final = declared_minimums(Limits)  # the least each may be, as `Limits` declares: 0 turns it off

# How bots share the machine (referee/bots/fairplay.py): "auto" a control group per bot where one can be made, else
# the wall clock with a note; "cgroup" refuse to run without; "none" never.
FairPlayMode = Literal["auto", "cgroup", "none"]
FAIR_PLAY_MODES: Final[tuple[FairPlayMode, ...]] = ("auto", "cgroup", "none")


class Isolation(msgspec.Struct, frozen=True):
    """The isolation of every bot of a match: its limits, the sandbox, extra variables, read-only paths and fair
    play (``fair_play``: a control group per bot, timed on its CPU time; ``freeze``: frozen while not to move)."""

    limits: Limits = msgspec.field(default_factory=Limits)
    sandbox: SandboxKind = "none"  # "none" or "bwrap" (bubblewrap)
    bot_env: tuple[tuple[str, str], ...] = ()  # variables every bot gets (a bot's own come after them)
    bot_ro: tuple[Path, ...] = ()  # folders or files a sandboxed bot may read besides its own program's
    fair_play: FairPlayMode = "auto"  # a control group per bot (referee/bots/fairplay.py)
    freeze: bool = True  # in a control group, a bot is frozen while not to move (False: trusted bots may ponder)

    def __post_init__(self) -> None:
        """The one check of an isolation, whoever makes it: a `SettingError` naming the setting (a limit by its
        `Limits` field, ``memory_mb``), which each front end words as its own (``--limit-memory``,
        ``isolation.memory_mb``)."""
        if self.sandbox not in SANDBOXES:
            raise SettingError("sandbox", self.sandbox, f"use one of {', '.join(SANDBOXES)}")
        check_declared(self.limits)  # cpu_s may be None: the default, DEFAULT_CPU_S_PER_GAME per game
        for name, value in self.bot_env:
            if not isinstance(name, str) or not ENV_NAME.fullmatch(name):
                raise SettingError("bot_env", name, "a variable's name is letters, digits and _, not a digit first")
            if not isinstance(value, str):
                raise SettingError("bot_env", value, f"the value of {name} must be text")
        for path in self.bot_ro:
            if not isinstance(path, Path) or not str(path):
                raise SettingError("bot_ro", path, "give a path")
        if self.fair_play not in FAIR_PLAY_MODES:
            raise SettingError("fair_play", self.fair_play, f"use one of {', '.join(FAIR_PLAY_MODES)}")
        if not isinstance(self.freeze, bool):
            raise SettingError("freeze", self.freeze, "must be true or false")

    def unapplied(self) -> tuple[str, ...]:
        """The settings given that take effect only inside the sandbox, while the sandbox is "none" (``disk_mb``
        other than its default or 0: the bot's tmpfs; ``bot_ro``: what the sandbox shows). A command refuses them; a
        ladder refuses ``bot_ro`` and warns of ``disk_mb`` at every run (a hand-edited ladder.toml must not stop
        cron). The default ``disk_mb`` is the sandbox's own, so it is no setting given."""
        if self.sandbox == "bwrap":
            return ()
        disk = self.limits.disk_mb not in (0, DEFAULT_DISK_MB)
        return (*(("disk_mb",) if disk else ()), *(("bot_ro",) if self.bot_ro else ()))

    def check_here(self) -> None:
        """Raise `SandboxError` unless this machine can apply it (bubblewrap works here, when it is asked for)."""
        if self.sandbox == "bwrap":
            check_bwrap()

    def resource_limits(self, games: int) -> ResourceLimits:
        """The kernel limits of each bot of a match of ``games`` games (`Limits.resource_limits`), all of them: a
        match or check-bot with control groups asks ``FairPlaySetup.resource_limits``, which leaves out the memory
        and process limits the groups hold instead."""
        return self.limits.resource_limits(games)

    def prepare(
        self,
        argv: Sequence[str],
        *,
        user_cwd: Path,
        private_dir: Path,
        out_dir: Path,
        own_env: Sequence[tuple[str, str]] = (),
        hidden: Sequence[Path] = (),
    ) -> PreparedBot:
        """One bot's command, folder and environment under this isolation (`referee.bots.sandbox.prepare`):
        ``own_env`` are the bot's own variables (after ``bot_env``), ``hidden`` files of match data to mask."""
        return prepare(
            argv,
            user_cwd=user_cwd,
            private_dir=private_dir,
            out_dir=out_dir,
            sandbox=self.sandbox,
            extra_env=(*self.bot_env, *own_env),
            read_only=self.bot_ro,
            hidden=hidden,
            disk_mb=self.limits.disk_mb,
        )
