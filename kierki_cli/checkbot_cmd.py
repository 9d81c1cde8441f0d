"""``kierki check-bot -- COMMAND ...``: run the conformance check of ``referee.checkbot`` and print its report.

Every piece of text the bot supplied (its lines, its name, its stderr) is printed with control characters escaped.
"""

from __future__ import annotations

import os
import shlex
import sys

import click

from kierki_cli.command_table import ExitStatus
from kierki_cli.shared_options import RuleOptions, isolation_options, note_fair_play, rules_options, time_options
from referee import checkbot
from referee.api import BotSpec, FairPlayError, Isolation, MatchSetupError, SandboxError, TimeControl, printable
from referee.checkbot import ALL_GAMES, CheckOptions, CheckResult, scenario
from referee.rules import RulesError

_CLIP = 160  # characters of one shown stderr line


def _clip(text: str) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= _CLIP else text[: _CLIP - 3] + "..."


def format_result(result: CheckResult) -> str:
    """The report line of one check, with the failure's details indented below it."""
    head = f"{result.status}  {result.name}"
    if result.detail and result.status != "FAIL":
        head += f": {printable(result.detail)}"
    if result.status != "FAIL":
        return head
    lines = [head, f"      problem: {printable(result.detail)}"]
    if result.hint:
        lines.append(f"      hint: {printable(result.hint)}")
    if result.exchange:
        lines.append("      last lines exchanged (-> to the bot, <- from the bot):")
        lines += [f"        {printable(line)}" for line in result.exchange]
    if result.stderr:
        lines.append("      the bot's stderr (last lines):")
        lines += [f"        {printable(_clip(line))}" for line in result.stderr]
    return "\n".join(lines)


def bot_argv(words: tuple[str, ...]) -> tuple[str, ...]:
    """The bot's argv: the words after ``--``, or one quoted string split like a shell would, or a sample bot
    named as in a match (``sample:heuristic``)."""
    if len(words) == 1 and words[0].startswith("sample:"):
        try:
            return BotSpec.parse(words[0]).argv
        except MatchSetupError as error:
            raise click.UsageError(str(error)) from None
    if len(words) == 1 and not os.path.exists(words[0]):
        try:
            return tuple(shlex.split(words[0]))
        except ValueError as error:
            raise click.UsageError(f"bot command {words[0]!r}: {error}") from None
    return words


@click.command(
    "check-bot",
    context_settings={"allow_interspersed_args": False, "help_option_names": ["-h", "--help"]},
)
@click.argument("command", nargs=-1, required=True, metavar="-- COMMAND...")
@rules_options(default=None, every_game="all four")
@time_options("move_ms", "startup_ms")
@click.option(
    "--exit-time",
    type=click.IntRange(1),
    default=1000,
    show_default=True,
    help="How long the bot may take to exit after bye or end of input (ms).",
)
@isolation_options
def check_bot(
    command: tuple[str, ...],
    rules: RuleOptions,
    time: TimeControl,
    exit_time: int,
    isolation: Isolation,
) -> None:
    """Check that a bot speaks the protocol (PROTOCOL.md) before it plays a match.

    Give the bot's command after `--`, e.g. `kierki check-bot -- python3 my_bot.py --level 2`, or as one quoted
    string. For each game the bot plays one real game in one seat and is asked on every one of its turns, as in
    a match; the situations worth checking are reported by name (handshake, passing, naming trump, leading and
    following, the loteryjka, the moon, Cancellation's kitty trick, void and trick nobody won), the other turns
    in one line. Every answer must come in time, flushed, well-formed, with the request's type and id, and be
    legal; a cause that repeats is shown once, then counted. The bot must ignore an unknown message type and
    unknown fields, answer no event (the error event included: only a message with an "id" is a request), and
    exit on bye and at end of input. `--players` and `--option` set the
    rules as in `kierki match` (with `--game`). The bot runs as in a match: in a private directory, with the
    match's environment, limits and (with `--sandbox bwrap`) sandbox; the isolation options are a match's.

    One PASS/FAIL line per check; a failure shows the last lines exchanged and a hint of the usual cause. A NOTE
    is worth knowing but counts against nothing: an answered event, or decisions in time on the bot's CPU time
    (fair play) that the wall clock (`--fair-play none`) would have failed. Exit status 0 when every check
    passed, 1 otherwise.
    """
    argv = bot_argv(command)
    if not argv:
        raise click.UsageError("give the bot's command after --, e.g. kierki check-bot -- python3 my_bot.py")
    games = (rules.game,) if rules.game else ALL_GAMES
    rule_options = dict(rules.options)
    if rules.game is not None:
        try:
            scenario(rules.game, rules.players, rule_options)
        except RulesError as error:
            raise click.UsageError(str(error)) from None
    options = CheckOptions(
        argv=argv,
        games=games,
        time=time,
        exit_ms=exit_time,
        players=rules.players,
        rule_options=rule_options,
        isolation=isolation,
    )
    click.echo(f"checking {shlex.join(argv)}")
    note_fair_play(isolation)
    table = f", {rules.players} players" if rules.players is not None else ""
    shown = "".join(f", {key}={value}" for key, value in rule_options.items())
    click.echo(
        f"games: {', '.join(games)}{table}{shown}; {time.move_ms} ms per move. One game each, the bot in one "
        "seat, asked on every turn as in a match."
    )

    def show(result: CheckResult) -> None:
        click.echo(format_result(result))

    try:
        report = checkbot.check_bot(options, show)
    except (SandboxError, FairPlayError) as error:
        raise click.ClickException(str(error)) from None
    passed, failed, skipped = report.count("PASS"), report.count("FAIL"), report.count("SKIP")
    notes = report.count("NOTE")
    summary = f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "")
    summary += f", {notes} note{'s' if notes > 1 else ''}" if notes else ""
    if report.ok:
        click.echo(f"OK: {summary}. The bot is ready for `kierki match`.")
        return
    click.echo(f"NOT OK: {summary}.")
    sys.exit(ExitStatus.FAILED)
