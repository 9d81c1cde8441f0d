"""``kierki replay``: view, step through and verify a replay log (REPLAY.md); the reader behind ``match --from``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kierki_cli.command_table import ExitStatus
from kierki_cli.options import html_option, json_option, symbols_option
from kierki_cli.replay_stepper import Stepper, run_interactive
from kierki_cli.replay_story import story, trick_story
from kierki_cli.styled import Style, to_text
from referee.api import (
    GameStatus,
    ReplayError,
    ResumePoint,
    Timeline,
    build_timeline,
    json_records,
    load,
    printable,
    render_schema,
    resume_point,
    tricks_of,
    verify,
    write_html,
)

if TYPE_CHECKING:
    from referee.api import DecisionAnalysis


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--verify",
    "check",
    is_flag=True,
    help="Re-apply every decision through the rules core and check every record; exit 1 at the first that disagrees.",
)
@click.option("--deal", type=click.IntRange(1), help="Only this deal.")
@click.option(
    "--trick", type=click.IntRange(1), help="Only this trick of --deal: the table as it began, and the trick."
)
@click.option("--seat", type=click.IntRange(0), help="Only what this seat knew at each moment: no other hand.")
@json_option("the records as JSON lines, each with its 'line' and 'decision' number.")
@html_option("the game, every step and every seat's view.")
@symbols_option
@click.option(
    "--analysis",
    "analysis_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Show this log's analysis (the output of `kierki analyse LOG --json`) under each decision in the stepper.",
)
@click.option(
    "--interactive/--no-interactive",
    default=None,
    help="Step through the game [default: when stdin and stdout are a terminal and no --deal/--trick/--json].",
)
def replay(
    file: Path,
    check: bool,
    deal: int | None,
    trick: int | None,
    seat: int | None,
    as_json: bool,
    html_out: Path | None,
    symbols: bool | None,
    analysis_path: Path | None,
    interactive: bool | None,
) -> None:
    """Show a game's replay log (gameNNN.replay.jsonl), step through it, or verify it.

    In a terminal this opens the stepper: n/p (or the arrow keys) a card back and forth, ]/[ (or N/P) a trick,
    d or g and a number a deal, 0-9 one seat's view, a all hands, q to quit. Otherwise it prints the whole game
    (or --deal N, --trick N) deal by deal and trick by trick; #N before a card is its decision number, for
    `kierki match --from FILE --at N`. Cards are coloured only on a terminal and when NO_COLOR is not set.
    """
    if check:
        if deal is not None or trick is not None or seat is not None or as_json or html_out is not None:
            raise click.UsageError(
                "--verify checks the whole log: leave out --deal, --trick, --seat, --json and --html"
            )
        _verify(file)
        return
    if trick is not None and deal is None:
        raise click.UsageError("--trick N needs --deal: tricks are numbered within a deal")
    try:
        timeline = build_timeline(load(file, strict=False), strict=False)
    except ReplayError as error:
        raise click.ClickException(f"{file}: {error}") from None
    for warning in timeline.replay.warnings:
        click.echo(f"warning: {warning}", err=True)
    if timeline.problem is not None and not _only_unfinished(timeline):
        click.echo(f"warning: {timeline.problem}; showing the game up to there", err=True)
    players = timeline.ruleset.players
    if seat is not None and seat >= players:
        raise click.UsageError(f"--seat: this game has seats 0 to {players - 1}")
    deals = timeline.deal_numbers()
    if deal is not None and deal not in deals:
        raise click.UsageError(f"--deal: this log has deals {deals[0]} to {deals[-1]}")
    span = None
    if deal is not None and trick is not None:
        spans = {s.number: s for s in tricks_of(timeline, deal)}
        if trick not in spans:
            shown = f"tricks 1 to {max(spans)}" if spans else "no tricks (the loteryjka is played without)"
            raise click.UsageError(f"--trick: deal {deal} has {shown}")
        span = spans[trick]
    if html_out is not None:
        if deal is not None or trick is not None or as_json or interactive:
            raise click.UsageError("--html writes the whole game: leave out --deal, --trick, --json and --interactive")
        try:
            size = write_html(timeline, html_out, viewer=seat)
        except OSError as error:
            raise click.ClickException(f"--html {html_out}: {error.strerror or error}") from None
        click.echo(f"wrote {html_out} ({size / 1e6:.1f} MB): open it in a browser", err=True)
        return
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    if interactive is None:
        interactive = tty and not (as_json or deal is not None)
    if analysis_path is not None and not interactive:
        raise click.UsageError("--analysis is shown by the stepper: run it in a terminal (or with --interactive)")
    if interactive:
        if not tty:
            raise click.UsageError("--interactive needs a terminal (stdin and stdout)")
        start = span.first - 1 if span else (timeline.deal_frame(deal) or 0) if deal is not None else 0
        run_interactive(Stepper(timeline, seat, start, _analysis(analysis_path, file)), _style(symbols))
        return
    if as_json:
        for record in json_records(timeline, seat, deal, span):
            click.echo(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
        return
    style = _style(symbols)
    if span is not None and deal is not None:
        lines = trick_story(timeline, style, seat, deal, span)
    else:
        lines = story(timeline, style, seat, deal)
    click.echo("\n".join(to_text(line, style).rstrip() for line in lines))


def _analysis(path: Path | None, log: Path) -> dict[int, DecisionAnalysis] | None:
    if path is None:
        return None
    from referee.api import AnalysisFileError, read_analysis  # only here: it loads the search library

    try:
        analysed = read_analysis(path, log)
    except AnalysisFileError as error:
        raise click.ClickException(str(error)) from None
    return {d.decision: d for d in analysed.decisions}


def _style(symbols: bool | None) -> Style:
    """The printout and the stepper name cards alike: symbols on a terminal unless --letters (or --symbols)."""
    style = Style.for_stream(sys.stdout)
    return style if symbols is None else Style(symbols=symbols, colour=style.colour)


def _only_unfinished(timeline: Timeline) -> bool:
    """The walk stopped only at an end record that says the game was interrupted: nothing is wrong to warn of."""
    end = timeline.replay.end
    problem = timeline.problem
    return (
        end is not None
        and problem is not None
        and problem.line == timeline.replay.line_count
        and end.status != GameStatus.COMPLETE
    )


def _verify(file: Path) -> None:
    try:
        replay = load(file, strict=True)
        verified = verify(replay)
    except ReplayError as error:
        click.echo(f"FAIL: {file}: {error}")
        sys.exit(ExitStatus.FAILED)
    click.echo(f"OK: {verified.decisions} decisions, {verified.records} records verified")


def resume_from(file: Path, at: int) -> ResumePoint:
    """For ``kierki match --from FILE --at N``: the replay's ruleset, seed, deals and first N decisions."""
    try:
        point = resume_point(file, at)
    except ReplayError as error:
        raise click.ClickException(f"--from {file}: {error}") from None
    for warning in point.warnings:
        click.echo(f"warning: {file}: {printable(warning)}", err=True)
    click.echo(f"resuming {file} at decision {at} of {point.decisions}", err=True)
    return point


@click.command("replay-schema")
def replay_schema() -> None:
    """Print the JSON Schema of a replay log's records (REPLAY.md); the same text as referee/replay/schema.json."""
    sys.stdout.write(render_schema())
