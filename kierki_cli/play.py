"""``kierki play``: a person takes a seat in the terminal against bots.

The person is a `kierki_cli.human_seat.HumanSeat`, a ``Transport`` in the referee process that shows them the
protocol lines a bot would get and answers with what they type; the other seats are ordinary bot processes. So the
game runs through the ordinary ``Match`` loop and its replay log is like any other (``kierki replay --verify``).
"""

from __future__ import annotations

import sys
import time as clock
from pathlib import Path

import click
from click.core import ParameterSource

from kierki_cli.command_table import ExitStatus
from kierki_cli.common import new_seed
from kierki_cli.human_seat import HumanSeat, read_line_within
from kierki_cli.options import out_option, seed_option, symbols_option
from kierki_cli.shared_options import RuleOptions, rules_options, time_options
from kierki_cli.styled import Style
from referee.api import (
    BotSpec,
    Match,
    MatchConfig,
    MatchSetupError,
    MatchSpec,
    RulesetSpec,
    TimeControl,
    Transport,
    default_bots,
    parse_bot_commands,
    printable,
)

__all__ = ["HumanSeat", "play", "read_line_within"]


@click.command()
@click.argument("bot_commands", nargs=-1, metavar="[BOT_COMMAND ...]")
@rules_options(default="hearts")
@click.option("--seat", type=click.IntRange(0), default=0, show_default=True, help="Your seat.")
@seed_option
@time_options("move_ms")
@click.option(
    "--your-time-per-move",
    type=click.IntRange(1),
    default=600_000,
    show_default=True,
    help="Your deadline per decision (ms); after it the referee plays its fallback for you.",
)
@click.option(
    "--bot-time-per-move",
    type=click.IntRange(1),
    default=None,
    hidden=True,  # the old spelling of --time-per-move here, kept working with a note
)
@click.option("--name", default="you", show_default=True, help="Your name in the replay log.")
@out_option
@symbols_option
def play(
    bot_commands: tuple[str, ...],
    rules: RuleOptions,
    seat: int,
    seed: str | None,
    time: TimeControl,
    your_time_per_move: int,
    bot_time_per_move: int | None,
    name: str,
    out_dir: Path | None,
    symbols: bool | None,
) -> None:
    """Take a seat at the table against bots (the sample bots by default), in the terminal.

    Give one BOT_COMMAND per other seat, in seat order, or none. Each time it is your turn you see your hand
    sorted by suit and numbered, the legal cards marked with *, the trick and the scores; type a card's name
    (QS, 10H, th) or its number. Passes, the trump and the moon are asked in plain words. The game is recorded
    like any other: `kierki replay FILE` shows it afterwards. Your own deadline is --your-time-per-move;
    --time-per-move is the bots', as in every command.
    """
    time_given = click.get_current_context().get_parameter_source("time_per_move") is not ParameterSource.DEFAULT
    if bot_time_per_move is not None:
        if time_given:
            raise click.UsageError("--bot-time-per-move is the old spelling of --time-per-move: give only the latter")
        click.echo("note: --bot-time-per-move is deprecated: it is --time-per-move (the bots' deadline)", err=True)
        time = TimeControl(move_ms=bot_time_per_move)
    elif time_given:  # it was the person's own deadline here before: say so once, to whoever still means that
        click.echo(
            "note: --time-per-move is the bots' deadline, as in every command; yours is --your-time-per-move", err=True
        )
    ruleset = rules.ruleset()
    count = ruleset.players
    if seat >= count:
        raise click.UsageError(f"--seat: this game has seats 0 to {count - 1}")
    try:
        others = parse_bot_commands(bot_commands) if bot_commands else None
    except MatchSetupError as error:
        raise click.UsageError(str(error)) from None
    if others is not None and len(others) != count - 1:
        raise click.UsageError(f"give {count - 1} bot commands (one per other seat) or none, got {len(others)}")
    bots = list(default_bots(count)) if others is None else [*others[:seat], BotSpec(("human",)), *others[seat:]]
    bots[seat] = BotSpec(("human",))
    if not sys.stdin.isatty():
        click.echo("note: stdin is not a terminal; reading your moves from it line by line", err=True)
    if seed is None:
        seed = new_seed()
    if out_dir is None:
        out_dir = Path("kierki-out") / clock.strftime("play-%Y%m%d-%H%M%S")
    spec = MatchSpec(rules=RulesetSpec.of(ruleset), bots=tuple(bots), seed=seed, time=time)
    config = MatchConfig.from_spec(spec, out_dir)
    style = Style.for_stream(sys.stdout)
    if symbols is not None:
        style = Style(symbols=symbols, colour=style.colour)

    def write(text: str) -> None:
        click.echo(text)

    human = HumanSeat(read_line_within(sys.stdin), write, style, your_time_per_move / 1000, printable(name))
    limits = config.spec.isolation.resource_limits(config.spec.games)
    match: Match

    def transport(at: int, spec: BotSpec) -> Transport:
        # The other seats are the ordinary bot processes, started as the match starts them.
        return human if at == seat else match.seating.start_process(at, spec, limits)

    match = Match(config, transport_factory=transport)
    click.echo(f"{ruleset.describe()}\nseed {seed}; you are seat {seat}; the log goes to {out_dir}", err=True)
    try:
        result = match.run()
    except MatchSetupError as error:
        raise click.ClickException(printable(str(error))) from None
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM/SIGHUP: exit 130 as every other command does
        click.echo(f"\nstopped: the log so far is in {out_dir}", err=True)
        sys.exit(ExitStatus.INTERRUPTED)
    replay = result.replays[0] if result.replays else None
    click.echo("")
    click.echo(f"replay: {replay}  (kierki replay {replay}; kierki replay --html game.html {replay})")
