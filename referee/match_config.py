"""What a match is asked to play: the bots' commands, the ruleset, the clock, the isolation and the rest of a
match's configuration, and the errors that stop a match before or while it runs (``referee.match`` plays it)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from referee.bots.fairplay import FairPlay
from referee.bots.sandbox import Limits, SandboxKind
from referee.bots.seat import TimeControl
from referee.faults import FaultPolicy
from referee.rules import Action, DealSpec, GameEnded, Ruleset


class MatchSetupError(RuntimeError):
    """The match could not run, or had to stop: a bot that cannot be started or fails its handshake, a bad
    configuration, a replay log that cannot be written.

    ``stderr`` holds the last lines the bot concerned wrote to its stderr, when there is one (they usually say why).
    """

    def __init__(self, message: str, stderr: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.stderr = stderr


class BotSpec(msgspec.Struct, frozen=True):
    """How to start one bot: its command, folder and own environment, and its own time control if any."""

    argv: tuple[str, ...]
    cwd: Path = msgspec.field(default_factory=Path.cwd)
    env: tuple[tuple[str, str], ...] = ()  # this bot's own variables, over MatchConfig.bot_env
    time: TimeControl | None = None  # this bot's own time control, instead of MatchConfig.time

    @classmethod
    def parse(cls, command: str) -> BotSpec:
        """A shell-quoted command line, or ``sample:heuristic`` / ``sample:random`` for a sample bot."""
        if command.startswith("sample:"):
            name = command.removeprefix("sample:").removesuffix("_bot")
            if name not in SAMPLE_BOTS:
                raise MatchSetupError(
                    f"no sample bot {name!r}: use one of " + ", ".join(f"sample:{n}" for n in SAMPLE_BOTS)
                )
            return sample_bot_command(f"{name}_bot")
        try:
            argv = tuple(shlex.split(command))
        except ValueError as error:
            raise MatchSetupError(f"bot command {command!r}: {error}") from None
        if not argv:
            raise MatchSetupError("a bot command is empty; give the program to run, e.g. 'python3 bot.py'")
        return cls(argv)

    @property
    def command(self) -> str:
        return shlex.join(self.argv)


class MatchConfig(msgspec.Struct, frozen=True):
    """Everything a match is asked to play: ruleset, bots, seed, deals, clocks, fault policy, isolation."""

    ruleset: Ruleset
    bots: tuple[BotSpec, ...]
    out_dir: Path
    seed: str = "1"  # any text; see referee/rules/dealing.py
    first_game: int = 1  # the number of the first game (a resumed game keeps its number: its deals depend on it)
    games: int = 1
    deals: tuple[DealSpec, ...] = ()
    deals_source: str | None = None
    time: TimeControl = msgspec.field(default_factory=TimeControl)
    faults: FaultPolicy = msgspec.field(default_factory=FaultPolicy)
    # Per-bot isolation (referee/bots/sandbox.py, SECURITY.md): limits, "none" or "bwrap", extra environment variables.
    limits: Limits = msgspec.field(default_factory=Limits)
    sandbox: SandboxKind = "none"
    bot_env: tuple[tuple[str, str], ...] = ()
    bot_ro: tuple[Path, ...] = ()  # extra folders a sandboxed bot may read (--bot-ro)
    # Each bot in a control group of its own, timed on its CPU time, frozen while not to move (fairplay.py).
    fair_play: FairPlay = msgspec.field(default_factory=FairPlay)
    transcript: bool = False
    stderr_cap_bytes: int = 1_000_000
    # Decisions (seat, action) applied before any bot is asked, in game 1: resumes a game from a replay.
    prefix: tuple[tuple[int, Action], ...] = ()
    # A seat whose bot cannot start or fails its handshake is forfeited from the start (played by the fallback,
    # the reason in SeatResult.start_failure) instead of stopping the match: tournaments never stop for one bot.
    forfeit_unstartable: bool = False
    # Seats forfeited before the start without starting their bot, with the reason (a bot a tournament dropped).
    absent: tuple[tuple[int, str], ...] = ()
    # Each game after the first moves every bot one seat on (bot i sits at seat i + game - 1), so over a multiple of
    # the players every bot sits at every seat equally often; results stay per bot (SeatResult.seat: its first seat).
    rotate: bool = False
    # Stop each game once this many deals have ended (None: play it to its end). Only a ladder's short validation
    # game sets it: the rules are unchanged, the replay log ends with status "stopped" and no game_end, the
    # bots hear bye "aborted" after that deal_end, and places are those of the totals so far.
    deals_per_game: int | None = None


Progress = Callable[[int, int, GameEnded], None]  # game number, games, how it ended


SAMPLE_BOTS = ("heuristic", "random")


def sample_bot_command(name: str) -> BotSpec:
    """A sample bot from ``sample_bots/``, run with this Python."""
    import sample_bots

    path = Path(sample_bots.__file__).parent / f"{name}.py"
    return BotSpec((sys.executable, str(path)))


def default_bots(players: int) -> tuple[BotSpec, ...]:
    """The sample bots: heuristic and random alternating around the table."""
    return tuple(sample_bot_command("heuristic_bot" if s % 2 == 0 else "random_bot") for s in range(players))


def parse_bot_commands(commands: Sequence[str]) -> tuple[BotSpec, ...]:
    return tuple(BotSpec.parse(c) for c in commands)


def make_out_dir(out_dir: Path) -> None:
    """Create a run's output folder (and its parents); raise ``MatchSetupError`` saying why it cannot be made."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise MatchSetupError(
            f"cannot create the output folder {out_dir}: {error.strerror}; choose another with --out"
        ) from None
