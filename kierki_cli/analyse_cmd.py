"""``kierki analyse``: every decision of a replay log weighed against the seat's other choices (docs/viewers/
analysis.md). The figures are `referee.analysis`'s; this module parses the options and prints them."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click
import msgspec

from kierki_cli.options import html_option, jobs_option, json_option
from referee.api import (
    CLASSES,
    DEFAULT_PLAYOUTS,
    AnalysedLog,
    AnalysisSettings,
    DealRecord,
    DecisionAnalysis,
    ReplayError,
    SeatSummary,
    Summary,
    analyse_log,
    load,
    printable,
)


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--seat",
    "seats",
    type=click.IntRange(0),
    multiple=True,
    help="Only this seat's decisions (repeat for several) [default: every seat].",
)
@click.option(
    "--deal",
    "deals",
    type=click.IntRange(1),
    multiple=True,
    help="Only this deal's decisions (repeat for several) [default: every deal].",
)
@click.option(
    "--playouts",
    type=click.IntRange(1),
    default=None,
    help=f"The search's playouts a decision, over all its choices [default: {DEFAULT_PLAYOUTS}].",
)
@click.option(
    "--cpu-ms",
    type=click.IntRange(1),
    default=None,
    help="Instead of --playouts: CPU milliseconds a decision (the figures then vary from run to run).",
)
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="The search's seed.")
@jobs_option(", analysing; the figures are the same for any number.", default=1, short=("-j",))
@json_option("one object a decision, then a summary object.")
@html_option("the replay page with the analysis (an evaluation a decision, the losses, a chart).")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def analyse(
    file: Path,
    seats: tuple[int, ...],
    deals: tuple[int, ...],
    playouts: int | None,
    cpu_ms: int | None,
    seed: int,
    jobs: int,
    as_json: bool,
    html_out: Path | None,
    quiet: bool,
) -> None:
    """Evaluate every decision of a replay log: what each legal choice was worth to the seat, from what it knew.

    Each choice is valued by the search from the deciding seat's own view (its hand, the cards it saw, what it
    passed and received: never a hidden card), in the game's points, with its standard error. The loss of a
    decision is the best value less the chosen one; losses are classed inaccuracy, mistake or blunder by the low
    end of their two-standard-error interval (docs/viewers/analysis.md). Near each deal's end the choice that was
    best with every card known is shown beside it, apart. The same log, --seed and --playouts print the same bytes.
    """
    if playouts is not None and cpu_ms is not None:
        raise click.UsageError("give --playouts or --cpu-ms, not both")
    settings = AnalysisSettings(
        playouts=playouts, cpu_ms=cpu_ms, seed=seed, seats=tuple(sorted(set(seats))), deals=tuple(sorted(set(deals)))
    )
    try:
        replay = load(file, strict=False)
    except ReplayError as error:
        raise click.ClickException(f"{file}: {error}") from None
    players = replay.ruleset.players
    bad = [s for s in seats if s >= players]
    if bad:
        raise click.UsageError(f"--seat {bad[0]}: this game has seats 0 to {players - 1}")
    dealt = [e.record.deal for e in replay.deal_entries() if isinstance(e.record, DealRecord)]
    missing = [d for d in deals if d not in dealt]
    if missing:
        raise click.UsageError(f"--deal {missing[0]}: this log has deals 1 to {max(dealt, default=0)}")
    progress = None if quiet or as_json or not sys.stderr.isatty() else _progress
    try:
        analysed = analyse_log(file, settings, jobs=jobs, progress=progress)
    except ReplayError as error:
        raise click.ClickException(f"{file}: {error}") from None
    if progress is not None:
        click.echo("", err=True)
    if analysed.summary.ends != "complete":
        click.echo(f"warning: {file}: {printable(analysed.summary.ends)}", err=True)
    if html_out is not None:
        from referee.api import write_analysed_html

        try:
            size = write_analysed_html(file, analysed, html_out)
        except OSError as error:
            raise click.ClickException(f"--html {html_out}: {error.strerror or error}") from None
        click.echo(f"wrote {html_out} ({size / 1e6:.1f} MB): open it in a browser", err=True)
        if not as_json:
            return
    if as_json:
        for decision in analysed.decisions:
            click.echo(msgspec.json.encode(decision).decode())
        click.echo(msgspec.json.encode(analysed.summary).decode())
        return
    click.echo("\n".join(report(analysed, file)))


def _progress(done: int, total: int) -> None:
    click.echo(f"\ranalysed {done}/{total} decisions", nl=False, err=True)


def report(analysed: AnalysedLog, file: Path) -> list[str]:
    """The terminal report: per seat the mean and total loss, by phase and kind of deal, and the largest losses."""
    summary = analysed.summary
    by_number = {d.decision: d for d in analysed.decisions}
    budget = f"{summary.playouts} playouts" if summary.playouts is not None else f"{summary.cpu_ms} CPU ms"
    lines = [
        f"{summary.game}: {summary.decisions} decisions in the log, {len(analysed.decisions)} analysed "
        f"({budget} a decision, seed {summary.seed}); losses in points, 1 unit = {summary.unit}",
    ]
    if summary.ends != "complete":
        lines.append(printable(summary.ends))
    for seat in summary.seats:
        lines.append("")
        lines.extend(_seat_lines(seat, summary, by_number, file))
    return lines


def _seat_lines(seat: SeatSummary, summary: Summary, by_number: dict[int, DecisionAnalysis], file: Path) -> list[str]:
    grades = ", ".join(_count(seat.grades[name], name) for name, _ in CLASSES)
    lines = [
        f"seat {seat.seat} {printable(seat.name)}: mean loss {seat.mean_loss:.2f} a decision over "
        f"{seat.decisions} decisions ({seat.forced} forced), {seat.total_loss:.2f} points lost in all; {grades}",
    ]
    for title, table in (("by phase", seat.by_phase), ("by deal", seat.by_kind)):
        parts = [f"{key} {t.loss:.2f} lost over {_count(t.decisions, 'decision')}" for key, t in table.items()]
        if parts:
            lines.append(f"  {title}: " + "; ".join(parts))
    if seat.perfect_decisions:
        lines.append(
            f"  with every card known (the last {summary.perfect_tricks} tricks of each deal, apart): mean loss "
            f"{seat.perfect_mean_loss:.2f} over {seat.perfect_decisions} decisions"
        )
    if seat.largest:
        lines.append("  largest losses:")
    for item in seat.largest:
        d = by_number[item.decision]
        grade = f" {d.grade}" if d.grade else ""
        perfect = (
            f"; all cards known: best {d.perfect.best}, loss {d.perfect.loss:.2f}" if d.perfect is not None else ""
        )
        lines.append(
            f"    #{d.decision} deal {d.deal} ({d.kind}) {d.phase} {d.chosen}: loss {d.loss:.2f} ± {_error(d.stderr)}"
            f"{grade}, best {d.best}{perfect}"
        )
        lines.append(f"      kierki match --from {shlex.quote(str(file))} --at {d.decision}")
    return lines


def _error(stderr: float | None) -> str:
    return "?" if stderr is None else f"{stderr:.2f}"


def _count(n: int, noun: str) -> str:
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun[:-1]}ies" if noun.endswith("y") else f"{n} {noun}s"
