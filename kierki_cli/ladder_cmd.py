"""``kierki ladder``: a ladder run from cron. The work is in `competition.ladder`; this module parses and prints.

Everything a bot supplied (its name is checked, but its failure reasons and stderr are not) goes through
``printable`` before it reaches the terminal.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import click
import filelock

from competition.ladder.config import (
    LOCK_NAME,
    ConfigError,
    LadderConfig,
    RunSettings,
    ladder_isolation,
    parse_duration,
)
from competition.ladder.disk import FULL_MARGIN_BYTES, disk_used, free_bytes, open_for_reading
from competition.ladder.export import iso_time
from competition.ladder.ladder import (
    LadderError,
    add_bot,
    init_ladder,
    log_tail,
    open_store,
    reactivate_bot,
    retire_bot,
)
from competition.ladder.run import STOPPED_ON_FULL_DISK, nothing_to_play, run_ladder
from competition.ladder.schema import StoreError
from competition.ladder.standings import standings
from competition.ladder.store_records import BotStatus, owner_phrase
from competition.report import display_width
from kierki_cli.command_table import ExitStatus
from kierki_cli.options import jobs_option, json_option, sets_option
from kierki_cli.shared_options import RuleOptions, isolation_options_for, rules_options, time_options
from referee.api import Isolation, TimeControl, cpu_allowance, printable

# OSError: a folder that cannot be made or written (a path under a file, no permission, a full disk); sqlite3.Error:
# a database locked for longer than a connection waits, or damaged.
_ERRORS = (LadderError, ConfigError, StoreError, OSError, sqlite3.Error)


def _stamped(line: str) -> str:
    """A line as a run prints it: after the ISO-8601 time it was printed (cron mail is read months later)."""
    return f"{iso_time(time.time())} {printable(line)}"


class _RunOutput:
    """A run's lines on stdout, each after its time, until stdout goes away (``| head``, a log reader that died, a
    full disk under the log): then the run goes on silently, since printing is for people and the sets come
    first."""

    def __init__(self) -> None:
        self.closed = False

    def __call__(self, line: str) -> None:
        if self.closed:
            return
        try:
            click.echo(_stamped(line))
        except OSError:
            self.closed = True
            # Python's recipe: what is still buffered would fail again when the interpreter flushes at exit.
            with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _warn(line: str) -> None:
    """A setting of ladder.toml that the command cannot apply: one line on stderr, so that it reaches the organiser
    (cron mails it, and the README's cron line keeps it in the log) without mixing into a run's lines on stdout."""
    click.echo(f"warning: {printable(line)}", err=True)


def _warn_stamped(line: str) -> None:
    """`_warn` for a run: after the time, as every line a run prints."""
    with contextlib.suppress(OSError):
        click.echo(_stamped(f"warning: {line}"), err=True)


def _run_failed(error: Exception) -> NoReturn:
    """A run that could not go on: one line on stderr after its time (a full disk: "no space left on device under
    DIR: ..."), exit status 1."""
    message = _fail(error).format_message()
    with contextlib.suppress(OSError):
        click.echo(f"{iso_time(time.time())} Error: {message}", err=True)
    sys.exit(ExitStatus.FAILED)


def _fail(error: Exception) -> click.ClickException:
    if isinstance(error, OSError) and error.filename is not None:
        return click.ClickException(printable(f"{error.filename}: {error.strerror or error}"))
    if isinstance(error, LadderError) and error.stderr:
        shown = "\n".join(f"  {printable(line)}" for line in error.stderr)
        click.echo(f"the bot's stderr (last lines):\n{shown}", err=True)
    return click.ClickException(printable(str(error)))


@click.group()
def ladder() -> None:
    """A ladder run from cron: bots are added, sets planned, played and rated, a standings site written."""


@ladder.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@rules_options(default=None, required=True)
@time_options()
@isolation_options_for(
    sandbox_default="bwrap",
    sandbox_note=" A ladder runs strangers' bots: a run refuses to start without a working bubblewrap, and --bot-ro "
    "paths may never hold the ladder's folder.",
)
def init(folder: Path, rules: RuleOptions, time: TimeControl, isolation: Isolation) -> None:
    """Create a ladder in FOLDER: ladder.toml (every setting, editable), ladder.sqlite and secret.key."""
    ruleset = rules.ruleset()
    config = LadderConfig(
        game=ruleset.game.value,
        players=ruleset.players,
        options=dict(rules.options),
        time=time,
        isolation=ladder_isolation(isolation),
        run=RunSettings(jobs=cpu_allowance()),  # the CPUs this process may use, not the machine's
    )
    try:
        init_ladder(folder, config)
    except _ERRORS as error:
        raise _fail(error) from None
    click.echo(f"ladder created in {folder}: edit {folder / 'ladder.toml'}, then add bots with `kierki ladder add`")


@ladder.command(context_settings={"ignore_unknown_options": True})
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("name")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--owner", default=None, metavar="WHO", help="Who wrote it: one version per owner sits at a table.")
@click.option("--new-version", is_flag=True, help="Make a new version even if the command and program are unchanged.")
def add(folder: Path, name: str, command: tuple[str, ...], owner: str | None, new_version: bool) -> None:
    """Register bot NAME (after a validation game against the sample bots): kierki ladder add DIR NAME -- CMD ...

    COMMAND is the bot's command line after --, or sample:heuristic / sample:random / sample:montecarlo /
    sample:expert. NAME is 1-40 ASCII letters, digits and _ . - +; a new name that differs from another bot's only in
    case or look-alike characters (0 O, 1 I l, m rn) is refused, naming that bot's owner. A name belongs to the owner
    who first added it: another --owner is refused. An existing NAME gets a new version (NAME@2), rated from scratch,
    only when its command or program file changed (or with --new-version); the old one is retired and its results
    kept. Adding an unchanged bot again changes nothing. The SHA-256 of the bot's program file is recorded: a run
    deactivates a bot whose file changed since, until its new version is added.
    """
    try:
        added = add_bot(folder, name, list(command), cwd=Path.cwd(), owner=owner, new_version=new_version, warn=_warn)
    except _ERRORS as error:
        raise _fail(error) from None
    bot = added.bot
    if added.unchanged:
        state = (
            ""
            if bot.status == BotStatus.ACTIVE
            else f"; it is {bot.status}: bring it back with `kierki ladder reactivate`"
        )
        click.echo(f"{bot.label} is unchanged (the same command and program file): nothing to do{state}")
        return
    click.echo(f"added {bot.label}" + (f" (program file {printable(bot.program)})" if bot.program else ""))
    for old in added.retired:
        click.echo(f"retired {old.label}: its results and rating are kept")


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("name")
@click.option(
    "--reason", default="reactivated by the organiser", show_default=True, help="Why, as the ladder's log keeps it."
)
def reactivate(folder: Path, name: str, reason: str) -> None:
    """Bring back a deactivated or retired bot NAME (its newest version, or NAME@N) with its rating and results."""
    try:
        bot = reactivate_bot(folder, name, reason)
    except _ERRORS as error:
        raise _fail(error) from None
    click.echo(f"reactivated {bot.label}: it is scheduled again, with its rating")


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--budget", default=None, metavar="DURATION", help="Stop planning sets after this (e.g. 9m) [ladder.toml]."
)
@sets_option(" at most [ladder.toml].")
@jobs_option(", a game each [ladder.toml].")
def run(folder: Path, budget: str | None, sets: int | None, jobs: int | None) -> None:
    """Plan, play and record sets until the budget is spent. Safe to kill at any instant; meant for cron."""
    output = _RunOutput()
    try:
        budget_s = parse_duration(budget) if budget is not None else None
        report = run_ladder(
            folder,
            budget_s=budget_s,
            sets=sets,
            jobs=jobs,
            progress=output,
            warn=_warn_stamped,
        )
    except _ERRORS as error:
        _run_failed(error)
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM/SIGHUP (kierki_cli.main turns them into this)
        why = f" ({stop})" if str(stop) else ""
        with contextlib.suppress(OSError):
            click.echo(
                _stamped(f"run interrupted{why}: every recorded set is kept; the set in play is played again next run"),
                err=True,
            )
        sys.exit(ExitStatus.INTERRUPTED)
    if report.status == "locked":
        output(f"another run holds {folder / LOCK_NAME}: nothing to do")
        return
    claimed = report.sets_played + report.sets_voided
    output(
        f"run finished ({report.stop_reason}): {claimed} set{'' if claimed == 1 else 's'} claimed: "
        f"{report.sets_played} played, {report.sets_voided} voided; {len(report.reclaimed)} reclaimed"
    )


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def intake(folder: Path) -> None:
    """Take the inbox's complete submissions now (every run does it first): DIR/inbox/OWNER/NAME/ with bot.toml and
    the bot's files, READY written last. Each is copied to DIR/bots/NAME@V, validated as `add` does and added, owned
    by OWNER; the outcome is written to its result.json."""
    from competition.ladder.inbox import take_inbox

    output = _RunOutput()
    lock = filelock.FileLock(folder / LOCK_NAME)
    try:
        config = LadderConfig.load(folder)
        lock.acquire(timeout=0)
    except filelock.Timeout:
        output(f"a run holds {folder / LOCK_NAME}: it takes the inbox itself")
        return
    except _ERRORS as error:
        raise _fail(error) from None
    try:
        taken = take_inbox(folder, config, now=time.time, progress=output)
    except _ERRORS as error:
        raise _fail(error) from None
    finally:
        lock.release()
    output(f"{len(taken)} submission(s) taken")


def _standings_json(folder: Path) -> list[dict[str, Any]]:
    with open_for_reading(folder) as store:
        return [dataclasses.asdict(row) for row in standings(store)]


@ladder.command(name="standings")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@json_option("a list of the rows.")
@click.option("--all", "show_all", is_flag=True, help="Also retired and deactivated bots (ranked apart, below).")
def standings_cmd(folder: Path, as_json: bool, show_all: bool) -> None:
    """The active bots ranked by mu - 3 sigma (a game the fallback played for a bot is its last place)."""
    try:
        rows = _standings_json(folder)
    except _ERRORS as error:
        raise _fail(error) from None
    if not show_all:
        rows = [r for r in rows if r["status"] == BotStatus.ACTIVE]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    head = (
        f"{'#':>3}  {'bot':<24} {'μ−3σ':>7} {'μ':>7} {'σ':>6} {'sets':>5} {'place':>5} {'no start':>8} {'forfeits':>8} "
        f"{'CPU s':>8}"
    )
    active = [r for r in rows if r["status"] == BotStatus.ACTIVE]
    gone = [r for r in rows if r["status"] != BotStatus.ACTIVE]
    click.echo(head + "  status")
    for r in active:
        click.echo(_standings_line(r))
    if gone:
        click.echo("retired and deactivated (ranked apart):")
        for r in gone:
            click.echo(_standings_line(r))


def _standings_line(r: dict[str, Any]) -> str:
    place = f"{r['mean_place']:.2f}" if r["mean_place"] is not None else "-"
    status = r["status"] + (" (provisional)" if r["provisional"] and r["status"] == BotStatus.ACTIVE else "")
    if r["reason"] and r["status"] != BotStatus.ACTIVE:
        status += f": {printable(r['reason'])}"
    rank = "–" if r["rank"] is None else str(r["rank"])
    cpu = f"{r['cpu_ms'] / 1000:.1f}" if r.get("cpu_ms") is not None else "-"
    return (
        f"{rank:>3}  {printable(r['label']):<24} {r['conservative']:>7.2f} {r['mu']:>7.2f} {r['sigma']:>6.2f} "
        f"{r['sets']:>5} {place:>5} {r['start_failures']:>8} {r['forfeits']:>8} {cpu:>8}  {status}"
    )


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV with a header line.")
@json_option("a list of objects.")
@click.option(
    "--since", metavar="TIME", default=None, help="Only sets recorded since: 2026-05-01, 2026-05-01T12:00 or 7d."
)
@click.option("--bot", metavar="NAME", default=None, help="Only this bot's seats: a name (every version) or NAME@V.")
def results(folder: Path, as_csv: bool, as_json: bool, since: str | None, bot: str | None) -> None:
    """The results, one row per seat per game, oldest first: set, game, time, seat, bot, name, version, owner,
    points, place, faults, start_failed, forfeited and the replay log's path relative to FOLDER ("" once pruned)."""
    from competition.ladder.export import FIELDS, parse_since, result_rows

    if as_csv and as_json:
        raise click.UsageError("give --csv or --json, not both")
    try:
        since_s = parse_since(since, time.time()) if since is not None else None
    except ConfigError as error:
        raise click.UsageError(str(error)) from None
    try:
        with open_for_reading(folder) as store:
            rows = [dataclasses.asdict(row) for row in result_rows(folder, store, since=since_s, bot=bot)]
    except _ERRORS as error:
        raise _fail(error) from None
    if as_json:
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    for row in rows:
        row["faults"] = " ".join(f"{code}:{count}" for code, count in row["faults"].items())
    if as_csv:
        out = io.StringIO()
        writer = csv.DictWriter(out, FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        click.echo(out.getvalue(), nl=False)
        return
    click.echo(results_table(rows), nl=False)


_RESULT_COLUMNS = ("set", "game", "time", "seat", "bot", "owner", "points", "place", "faults", "forfeited")
_RIGHT = {"set", "game", "seat", "points", "place"}


def results_table(rows: list[dict[str, Any]]) -> str:
    """``ladder results`` for a terminal: one aligned row per seat per game, numbers to the right, ``-`` for none."""

    def cell(row: dict[str, Any], key: str) -> str:
        value = row[key]
        if key == "forfeited":
            return "yes" if value else "no"
        return printable(str(value)) if value not in (None, "") else "-"

    table = [list(_RESULT_COLUMNS), *([cell(row, key) for key in _RESULT_COLUMNS] for row in rows)]
    widths = [max(display_width(line[i]) for line in table) for i in range(len(_RESULT_COLUMNS))]

    def pad(text: str, width: int, key: str) -> str:
        fill = " " * (width - display_width(text))
        return fill + text if key in _RIGHT else text + fill

    return "".join(
        "  ".join(pad(text, w, key) for text, w, key in zip(line, widths, _RESULT_COLUMNS, strict=True)).rstrip() + "\n"
        for line in table
    )


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("name")
@click.option("--set", "set_id", type=click.IntRange(1), default=None, help="Only the logs of this set.")
@click.option("--last", type=click.IntRange(1), default=5, show_default=True, help="At most this many logs.")
def logs(folder: Path, name: str, set_id: int | None, last: int) -> None:
    """Print what bot NAME (every version, or NAME@V) wrote to stderr in its sets, newest first: the end of each
    log, every control character escaped. Games in which it wrote nothing left no log."""
    from competition.ladder.logs import LOG_TAIL_BYTES, bot_logs

    try:
        with open_for_reading(folder) as store:
            found = bot_logs(folder, store, name, set_id=set_id, last=last)
    except _ERRORS as error:
        raise _fail(error) from None
    if not found:
        where = f"set {set_id}" if set_id else "its recorded sets"
        click.echo(f"{printable(name)} wrote nothing to stderr in {where}")
    for log in found:
        where = f"set {log.set_id}, game {log.game}, seat {log.seat}, {log.label}"
        if log.faults:
            where += f" ({log.faults})"
        if log.pruned:
            click.echo(f"== {where}: its logs were pruned by the retention rules ([retention] in ladder.toml)")
            continue
        data, size = log_tail(folder / log.path, LOG_TAIL_BYTES)
        shown = f"its last {len(data)} of {size} bytes" if size > len(data) else f"{size} bytes"
        click.echo(f"== {where}: {log.path}, {shown}")
        text = data.decode("utf-8", "replace")
        for line in text.splitlines():
            click.echo(printable(line))


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("out", type=click.Path(path_type=Path))
def site(folder: Path, out: Path) -> None:
    """Write the standings site to OUT (swapped into place whole: a web server never serves half of it)."""
    from competition.ladder.site import write_site

    try:
        with open_store(folder) as store:
            written = write_site(folder, store, out)
    except _ERRORS as error:
        raise _fail(error) from None
    click.echo(site_summary(out, written))


def site_summary(out: Path, written: Path) -> str:
    """What ``ladder site`` wrote: its pages by kind, where, and which version of the site it is."""
    pages = sorted(p.relative_to(written).as_posix() for p in written.rglob("*.html"))
    top = [page for page in pages if "/" not in page]
    bots = sum(1 for page in pages if page.startswith("bots/"))
    replays = sum(1 for page in pages if page.startswith("replays/"))
    logs = sum(1 for _ in written.glob("replays/*/*.replay.jsonl*"))
    parts = [*top, f"{bots} bot page{'' if bots == 1 else 's'}", f"{replays} replay page{'' if replays == 1 else 's'}"]
    return (
        f"site written to {out}: {', '.join(parts)} ({logs} replay log{'' if logs == 1 else 's'} beside them); "
        f"open {out / 'index.html'}\n(this version is {written}; {out} is a link to it, swapped whole on each write)"
    )


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("name")
def retire(folder: Path, name: str) -> None:
    """Retire bot NAME: never scheduled again; its results and rating are kept."""
    try:
        retired = retire_bot(folder, name)
    except _ERRORS as error:
        raise _fail(error) from None
    for bot in retired:
        click.echo(f"retired {bot.label}")


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def rerate(folder: Path) -> None:
    """Recompute every rating from the results (with the model parameters in ladder.toml)."""
    try:
        config = LadderConfig.load(folder)
        with open_store(folder) as store:
            store.set_rating_params(config.rating)
            count = len(store.results())
    except _ERRORS as error:
        raise _fail(error) from None
    click.echo(f"ratings recomputed from {count} sets")


@ladder.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def status(folder: Path) -> None:
    """The last run, the sets played, whether a run is going (or died), the deactivated bots."""
    try:
        config = LadderConfig.load(folder)
        with open_for_reading(folder) as store:
            last = store.last_run()
            played, planned, claimed, voided, cancelled = (
                store.count(s) for s in ("played", "planned", "claimed", "voided", "cancelled")
            )
            deactivated = store.bots(BotStatus.DEACTIVATED)
            active = store.bots(BotStatus.ACTIVE)
            events = store.events(5)
            idle = nothing_to_play(active, config.players)
            alike = store.look_alike_names()
    except _ERRORS as error:
        raise _fail(error) from None
    lock = filelock.FileLock(folder / LOCK_NAME)
    try:
        lock.acquire(timeout=0)
        running = False
        lock.release()
    except filelock.Timeout:
        running = True
    click.echo(
        f"sets: {played} played, {planned} planned, {claimed} claimed, {voided} voided (the referee failed), "
        f"{cancelled} cancelled (a bot left before they were played)"
    )
    click.echo(f"bots: {len(active)} active, {len(deactivated)} deactivated")
    if idle is not None:
        click.echo(idle)
    if last is None:
        click.echo("no run yet")
    else:
        started = iso_time(last.started)
        if running:
            state = "running now"
        elif last.status == "running":
            state = "stale: it died without finishing (killed?); the next run reclaims its set"
        elif last.status == "failed" and (last.message or "").startswith(STOPPED_ON_FULL_DISK):
            state = f"it {printable(last.message or '')}"
        else:
            state = last.status + (f" ({printable(last.message)})" if last.message else "")
        click.echo(f"last run: {started} (pid {last.pid}), {last.sets_played} sets played: {state}")
    free = free_bytes(folder)
    full = " (full: runs stop until space is freed)" if free < FULL_MARGIN_BYTES else ""
    click.echo(f"disk: {_megabytes(disk_used(folder))} used by {folder}, {_megabytes(free)} free{full}")
    for bot in deactivated:
        click.echo(f"deactivated {bot.label}: {printable(bot.reason or '')}")
    for group in alike:
        shown = ", ".join(f"{bot.label} ({owner_phrase(bot)}, {bot.status})" for bot in group)
        click.echo(
            "names too alike (added before names were compared by case and look-alike characters): "
            f"{printable(shown)}; nothing was changed: retire all but one with `kierki ladder retire` "
            "if they are not one author's"
        )
    for event in events:
        at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(event.at))
        who = f" {event.label}" if event.label else ""
        click.echo(f"{at} {event.event}{who}: {printable(event.detail or '')}")


def _megabytes(count: int) -> str:
    return f"{count / (1024 * 1024):.1f} MB"
