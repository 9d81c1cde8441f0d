"""The ``kierki`` commands: thin click commands that parse options, call the referee and print.

The group is `kierki_cli.entry.cli`, which imports a command's module only when it runs (``kierki match``
imports neither the replay viewer nor check-bot).
"""

from __future__ import annotations

import json
import sys
import time as clock
from collections.abc import Mapping, Sequence
from pathlib import Path

import click
import msgspec
from click.core import ParameterSource

from kierki_cli.command_table import ExitStatus
from kierki_cli.common import fresh_out_dir, make_out_dir, new_seed, parse_pairs, warn_short_seed
from kierki_cli.entry import cli as cli  # the group: the commands below register on it; others load when run
from kierki_cli.options import json_option, out_option, seed_option
from kierki_cli.progress import Leader, leaders_line, write_progress
from kierki_cli.shared_options import (
    RuleOptions,
    game_option,
    isolation_options,
    max_strikes_option,
    note_fair_play,
    rules_options,
    time_options,
)
from referee.api import (
    Consequence,
    CpuError,
    FaultCode,
    FaultPolicy,
    Isolation,
    Match,
    MatchConfig,
    MatchResult,
    MatchSetupError,
    MatchSpec,
    Prefix,
    RulesetSpec,
    SeatResult,
    TimeControl,
    check_cpu,
    choose_cpu,
    default_bots,
    parse_bot_commands,
    pinned,
    printable,
)
from referee.rules import PLAYER_COUNTS, DealSpec, Game, GameEnded, RulesError, Ruleset, option_specs, places


def parse_fault_policy(max_strikes: int, pairs: tuple[str, ...]) -> FaultPolicy:
    """``--max-strikes`` and the ``--on-fault CODE=fallback|forfeit`` pairs, over the defaults."""
    choosable = [code.value for code in FaultCode if code is not FaultCode.CRASH]
    consequences = {
        FaultCode(code): Consequence(consequence)
        for code, consequence in parse_pairs(
            pairs,
            "--on-fault",
            "timeout=forfeit (a crash always forfeits)",
            metavar="CODE=fallback|forfeit",
            keys=choosable,
            values=[c.value for c in Consequence],
        )
    }
    return FaultPolicy(max_strikes, consequences)


@cli.command()
@click.argument("bot_commands", nargs=-1, metavar="[BOT_COMMAND ...]")
@rules_options()
@seed_option
@click.option("--games", "games", type=click.IntRange(1), default=1, show_default=True, help="Games to play.")
@click.option(
    "--rotate/--no-rotate",
    default=True,
    show_default=True,
    help="Move every bot one seat on between games (fixed seats bias a multi-game result).",
)
@click.option(
    "--deals",
    "deals_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Deal file with given hands (see the docs: Rules, 'Deal files').",
)
@click.option(
    "--from",
    "from_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Resume a replay log's game: its game, options, seed and deals (see the docs: Viewers, 'Replays').",
)
@click.option("--at", type=click.IntRange(0), default=None, help="With --from: replay its first N decisions [0].")
@time_options()
@max_strikes_option
@click.option(
    "--on-fault",
    "on_fault",
    multiple=True,
    metavar="CODE=fallback|forfeit",
    help="What a fault costs: fallback (play the fallback, count a strike; the default) or forfeit at once. "
    "CODE: timeout, illegal, malformed, wrong_type; repeat for several. A crash always forfeits.",
)
@out_option
@click.option("--transcript", is_flag=True, help="Also log every raw line sent to and received from each bot.")
@isolation_options
@click.option(
    "--cpu",
    "cpu_choice",
    metavar="N|none",
    default=None,
    help="Run the referee and every bot on CPU N (a hand-off between CPUs costs several times one on the same "
    "CPU); none: let the system place them [default: one usable CPU, chosen by process id].",
)
@json_option("one result object (for scripts).")
def match(
    bot_commands: tuple[str, ...],
    rules: RuleOptions,
    seed: str | None,
    games: int,
    rotate: bool,
    deals_path: Path | None,
    from_path: Path | None,
    at: int | None,
    time: TimeControl,
    max_strikes: int,
    on_fault: tuple[str, ...],
    out_dir: Path | None,
    transcript: bool,
    cpu_choice: str | None,
    as_json: bool,
    isolation: Isolation,
) -> None:
    """Play a match between bots and print the result table.

    Each BOT_COMMAND is one quoted string, e.g. 'python3 my_bot.py --level 2', one per seat in seat order;
    sample:heuristic, sample:random, sample:montecarlo and sample:expert name the sample bots. With none, the
    sample bots play (heuristic and random, alternating). With no arguments at all this plays one full 4-player
    Kierki match.

    Exit status 0 when the match ran, whatever the bots did; 2 for a mistake on the command line; 1 when it could
    not run (with a one-line reason); 130 after Ctrl-C, with the standings of the finished games. The result is also
    written into the --out folder (result.json, result.txt).
    """
    if from_path is not None and rules.narrowed:
        raise click.UsageError(
            "--from takes the players and rule options from the replay: leave out --players and --option"
        )
    ruleset = rules.ruleset()
    deals: tuple[DealSpec, ...] = ()
    if deals_path is not None:
        from referee.api import check_deal_file, parse_deal_file  # only for --deals

        try:
            deal_file = parse_deal_file(deals_path.read_bytes())
            check_deal_file(deal_file, ruleset)
        except RulesError as error:
            raise click.ClickException(f"{deals_path}: {error}") from None
        deals = deal_file.deals
    resume = None
    first_game = 1
    if from_path is not None:
        if deals_path is not None:
            raise click.UsageError("--from takes the deals from the replay: leave out --deals")
        from kierki_cli.replay_cmd import resume_from

        resume = resume_from(from_path, at or 0)
        game_given = click.get_current_context().get_parameter_source("game") is not ParameterSource.DEFAULT
        if game_given and resume.ruleset.game.value != rules.game:
            raise click.UsageError(
                f"--from {from_path} is a {resume.ruleset.game.value} game, not {rules.game}: leave out --game"
            )
        ruleset, seed, deals = resume.ruleset, resume.seed, resume.deals
        first_game = resume.game_number
    elif at is not None:
        raise click.UsageError("--at N needs --from FILE")
    try:
        bots = parse_bot_commands(bot_commands) if bot_commands else default_bots(ruleset.players)
    except MatchSetupError as error:
        raise click.UsageError(str(error)) from None
    _check_bot_count(ruleset, len(bots), rules.players)
    faults = parse_fault_policy(max_strikes, on_fault)
    cpu = parse_cpu(cpu_choice)
    if seed is None:
        seed = new_seed()
    elif from_path is None and not as_json:
        warn_short_seed(seed)
    if out_dir is None:
        out_dir = fresh_out_dir(Path("kierki-out") / clock.strftime("%Y%m%d-%H%M%S"))
    spec = MatchSpec(
        rules=RulesetSpec.of(ruleset),
        bots=bots,
        seed=seed,
        first_game=first_game,
        games=games,
        rotate=rotate,
        deals=deals,
        deals_source=str(deals_path or from_path) if deals_path or from_path else None,
        time=time,
        faults=faults,
        transcript=transcript,
        isolation=isolation,
        prefix=Prefix(resume.prefix if resume is not None else ()),
    )
    err = sys.stderr
    on_terminal = err.isatty()
    given = sample_names(bot_commands, ruleset.players)

    def progress(number: int, total: int, ended: GameEnded) -> None:
        if total > 1 and not as_json:
            leaders = match_leaders(runner.result_so_far().seats, ruleset, given)
            write_progress(err, leaders_line(f"game {number}/{total}", leaders), tty=on_terminal, last=number == total)

    try:
        runner = Match(MatchConfig.from_spec(spec, out_dir), progress)
    except MatchSetupError as error:
        raise click.UsageError(printable(str(error))) from None
    make_out_dir(out_dir)
    if not as_json:  # only once the match is sure to start writing into the folder, and it exists
        click.echo(f"{ruleset.describe()}\nseed {seed}, {games} game(s), logs in {out_dir}", err=True)
    note_fair_play(isolation)
    try:
        with pinned(cpu):  # before the bots start: they inherit it
            result = runner.run()
    except MatchSetupError as error:
        if error.stderr:
            shown = "\n".join(f"  {printable(line)}" for line in error.stderr)
            click.echo(f"the bot's stderr (last lines):\n{shown}", err=True)
        raise click.ClickException(printable(str(error))) from None
    except KeyboardInterrupt:
        partial = runner.result_so_far()
        _report(partial, as_json, out_dir)
        click.echo(f"interrupted: the standings above are those of the {partial.games} finished game(s)", err=True)
        sys.exit(ExitStatus.INTERRUPTED)
    _report(result, as_json, out_dir)


def sample_names(commands: Sequence[str], players: int) -> list[str | None]:
    """Per seat of game 1, the sample bot's name its command gives (``sample:heuristic``: heuristic), else None;
    with no commands, those of the default bots."""
    if not commands:
        return ["heuristic" if seat % 2 == 0 else "random" for seat in range(players)]
    return [c.removeprefix("sample:").removesuffix("_bot") if c.startswith("sample:") else None for c in commands]


def match_leaders(seats: Sequence[SeatResult], ruleset: Ruleset, given: Sequence[str | None] = ()) -> list[Leader]:
    """Each bot's total over the games so far, best first: a sample bot by its name (``given``, per seat of game 1),
    another as it calls itself in ``hello``; ``NAME#SEAT`` (its seat in game 1) where two share a name. Seats rotate
    between games, so a seat's numbers alone would say nothing."""
    names = [(given[s.seat] if s.seat < len(given) else None) or s.name or f"seat{s.seat}" for s in seats]
    shared = {name for name in names if names.count(name) > 1}
    totals = [sum(s.totals) for s in seats]
    standing = places(totals, highest_wins=ruleset.game.higher_is_better)
    order = sorted(range(len(seats)), key=lambda i: (standing[i], seats[i].seat))
    return [
        (standing[i], f"{names[i]}#{seats[i].seat}" if names[i] in shared else names[i], f"{totals[i]:+d}")
        for i in order
    ]


def _check_bot_count(ruleset: Ruleset, bots: int, players: int | None) -> None:
    """As many bot commands as seats; when the game takes that many players, say how to seat them all."""
    if bots == ruleset.players:
        return
    problem = f"{ruleset.game.value} with {ruleset.players} players needs {ruleset.players} bot commands, got {bots}"
    if players is None and bots in PLAYER_COUNTS[ruleset.game]:
        problem += f": add --players {bots} to seat them all"
    raise click.UsageError(problem)


def _report(result: MatchResult, as_json: bool, out_dir: Path) -> None:
    """Print the result, and keep it in the output folder: result.json and the table (result.txt)."""
    table = format_table(result)
    summary = msgspec.to_builtins(result.summary())
    try:
        (out_dir / "result.json").write_text(json.dumps(summary, indent=2) + "\n")
        (out_dir / "result.txt").write_text(table + "\n")
    except OSError as error:
        click.echo(f"warning: could not write the result into {out_dir}: {error.strerror or error}", err=True)
    click.echo(json.dumps(summary) if as_json else table)


def parse_cpu(choice: str | None) -> int | None:
    """``--cpu``: the CPU to pin the match to, or None for no pinning; by default one the process may use."""
    if choice is None:
        return choose_cpu()
    if choice.strip().lower() == "none":
        return None
    try:
        cpu = int(choice)
    except ValueError:
        raise click.UsageError(f"--cpu: {choice!r} is not a CPU number; give one such as 0, or none") from None
    try:
        check_cpu(cpu)
    except CpuError as error:
        raise click.UsageError(f"--cpu: {error}") from None
    return cpu


def format_table(result: MatchResult) -> str:
    highest_wins = result.game in ("kierki", "kierki3")
    standing = places([s.total for s in result.seats], highest_wins=highest_wins)
    rows = [("place", "seat", "bot", "total", "wins", "strikes", "faults", "ms/move", "status")]
    for s, place in sorted(zip(result.seats, standing, strict=True), key=lambda p: (p[1], p[0].seat)):
        faults = ",".join(f"{k}:{v}" for k, v in sorted(s.faults.items())) or "-"
        status = f"forfeited in game {s.forfeited_in_game}" if s.forfeited_in_game else "ok"
        name = printable(f"{s.name} {s.version}".strip())
        rows.append(
            (
                str(place),
                str(s.seat),
                name,
                f"{s.total:+d}",
                str(s.wins),
                str(s.strikes),
                faults,
                f"{s.mean_ms:.2f}",
                status,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    if result.rotated:
        lines.append("seats rotated between games: 'seat' is each bot's seat in game 1 (--no-rotate keeps them)")
    for s in result.seats:
        if s.forfeit_reason:  # why, in the bot's terms (its own text in the reason is escaped)
            lines.append(f"seat {s.seat} forfeited in game {s.forfeited_in_game}: {printable(s.forfeit_reason)}")
        if s.stderr_log_error:  # a stderr log that could not be written (a full disk): the bot played on regardless
            lines.append(f"seat {s.seat}: {printable(s.stderr_log_error)}")
    lines.append(f"replays: {result.out_dir}")
    return "\n".join(lines)


@cli.command()
@game_option(default=None, every_game="every game")
@click.option(
    "--markdown",
    is_flag=True,
    help="Print each game's options as a Markdown table with their JSON values in hello.options "
    "(the tables of PROTOCOL.md section 10, which a test keeps equal to this output).",
)
def options(game: str | None, markdown: bool) -> None:
    """List every rule option with its default and what it means."""
    for g in Game if game is None else [Game(game)]:
        players = None
        ruleset = Ruleset.create(g, players)
        defaults = ruleset.options()
        if markdown:
            click.echo((f"{g.value}:\n\n" if game is None else "") + _options_markdown(g, defaults))
            if game is None:
                click.echo()
            continue
        click.echo(f"{g.value}:")
        for spec in option_specs(g):
            value = defaults[spec.name]
            shown = (
                ",".join(map(str, value))
                if isinstance(value, tuple)
                else str(value).lower()
                if isinstance(value, bool)
                else str(value)
            )
            click.echo(f"  {spec.name}={shown}\n      {spec.help}")
            if spec.choices:
                click.echo(f"      choices: {', '.join(str(c).lower() for c in spec.choices)}")


def _options_markdown(game: Game, defaults: Mapping[str, object]) -> str:
    """One game's options as a Markdown table: each key of hello.options, its JSON value by default, the values it
    takes (as JSON), and what it means."""
    lines = ["| `hello.options` key | default | values | meaning |", "|---|---|---|---|"]
    for spec in option_specs(game):
        default = defaults[spec.name]
        if spec.choices:
            values = " ".join(f"`{json.dumps(choice)}`" for choice in spec.choices)
        elif isinstance(default, bool):
            values = "`true` `false`"
        elif isinstance(default, int):
            values = f"an integer, at least {spec.minimum}" if spec.minimum is not None else "an integer"
        else:
            values = "a list of two trick numbers"
        shown = json.dumps(list(default) if isinstance(default, tuple) else default)
        lines.append(f"| `{spec.name}` | `{shown}` | {values} | {spec.help} |")
    return "\n".join(lines)


@cli.group()
def protocol() -> None:
    """The wire protocol (PROTOCOL.md)."""


@protocol.command("schema")
def protocol_schema() -> None:
    """Print the JSON Schema of every protocol message."""
    from protocol import schema

    sys.stdout.write(json.dumps(schema.json_schema(), indent=2, sort_keys=True) + "\n")
