"""``kierki tournament`` and ``kierki sprt``: run `competition.tournament` and print as it goes. The options the
two share, and the configuration built from them, are `kierki_cli.tournament_options`."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import click
import msgspec

from competition import report, stats
from competition.executors import ExecutorError, ExecutorSpec
from competition.model import SetRecord
from competition.plan import FORMATS, Entrant, PlanError, owners, parse_bot_argument, parse_bots_file
from competition.results_file import ResultsError
from competition.sprt import SPRT, SprtError, paired_difference
from competition.tournament import TournamentProgress, TournamentResult, run_tournament
from competition.tournament_config import StopRule, TournamentConfig, TournamentError, stored_config, stored_stop
from kierki_cli.command_table import ExitStatus
from kierki_cli.options import sets_option
from kierki_cli.progress import WIDTH, Leader, leaders_line, write_progress
from kierki_cli.tournament_options import common_options, executor_spec, out_dir_and_seed, tournament_config
from referee.api import AnalysisSettings, GameStatus, Isolation, SandboxError, check_bwrap, fair_play_problem, printable

# --- presentation ---------------------------------------------------------------------------------------------


def dropped_status(dropped: dict[str, str]) -> dict[str, tuple[stats.BotStatus, str | None]]:
    return {bot: ("dropped", why) for bot, why in dropped.items()}


def result_standings(result: TournamentResult) -> stats.Standings:
    """The standings of the finished sets, the dropped bots marked so (below the working ones)."""
    return stats.standings(result.records, status=dropped_status(result.dropped))


def format_standings(result: TournamentResult) -> str:
    """The standings table (competition.report: the statuses, and why each dropped bot was), then an early stop."""
    if not result.records:
        lines = ["no set finished yet: no standings"]
        lines += [f"dropped {printable(bot)}: {printable(why)}" for bot, why in sorted(result.dropped.items())]
    else:
        lines = [report.format_table(result_standings(result)).rstrip("\n")]
    if result.stopped_short:
        lines.append(printable(result.stopped_short))
    if result.status is not GameStatus.COMPLETE:
        lines.append(f"stopped early: continue with --resume --out {printable(str(result.out_dir))}")
    lines.append(f"results: {printable(str(result.out_dir))}")
    return "\n".join(lines)


def result_json(result: TournamentResult) -> dict[str, Any]:
    """``--json``: the standings (as in standings.json) with how the run went."""
    return {
        "status": result.status,
        "out_dir": str(result.out_dir),
        "seed": result.config.seed,
        "dropped": result.dropped,
        "stopped_short": result.stopped_short,
        "standings": report.standings_json(result_standings(result)) if result.records else None,
    }


def write_reports(result: TournamentResult) -> None:
    """standings.json, standings.csv and report.html in the tournament's folder, from every finished set."""
    if result.records:
        config = result.config
        title = f"{config.format} of {len(config.entrants)} bots, seed {config.seed}"
        report.write_report(result_standings(result), result.out_dir, title)


class ProgressLine:
    """One line on stderr: sets done, ETA and the current leaders; redrawn in place only on a terminal."""

    def __init__(self, stream: TextIO, quiet: bool, capped: bool = False) -> None:
        """``capped``: the target is only an upper bound (--until-ci), so no ETA is shown."""
        self.stream = stream
        self.quiet = quiet
        self.capped = capped
        self.tty = stream.isatty()

    def __call__(self, progress: TournamentProgress) -> None:
        if self.quiet:
            return
        left = progress.sets_target - progress.sets_done
        rate = progress.sets_done / progress.elapsed_s if progress.elapsed_s > 0 else 0.0
        eta = f"{left / rate:.0f}s" if rate > 0 and not self.capped else "?"
        leaders: list[Leader] = []
        try:
            table = stats.standings(progress.records, status=dropped_status(progress.dropped))
            # Best first, by what the standings rank (μ − 3σ), with the mean points per game beside it.
            leaders = [
                (b.rank, b.bot, f"{b.rating.conservative:.1f} ({b.score.mean:+.1f})")
                for b in table.bots
                if b.rank is not None
            ]
        except stats.StatsError:
            pass
        done = f"set {progress.sets_done}/{progress.sets_target}  {progress.games_done} games  ETA {eta}"
        write_progress(self.stream, leaders_line(done, leaders), tty=self.tty)

    def end(self) -> None:
        if self.tty and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()


def _run(
    config: TournamentConfig,
    out_dir: Path,
    stop: StopRule,
    *,
    jobs: int | None,
    cpu_pinning: bool,
    resume: bool,
    executor: ExecutorSpec,
    progress: Callable[[TournamentProgress], None] | None = None,
    stop_when: Callable[[list[SetRecord]], bool] | None = None,
    header: str | None = None,
) -> TournamentResult:
    """Run it with the command's --jobs (default: the usable CPUs), --cpu-pinning and --resume; ``header`` goes to
    stderr once the output folder is in place (a folder that cannot be made, or resumed, is one line of error)."""
    try:
        return run_tournament(
            config,
            out_dir,
            stop,
            jobs=jobs or len(os.sched_getaffinity(0)),
            pin=cpu_pinning,
            resume=resume,
            progress=progress,
            stop_when=stop_when,
            executor=executor,
            ready=None if header is None else lambda: click.echo(header, err=True),
        )
    except (TournamentError, PlanError, ResultsError, ExecutorError) as error:
        raise click.ClickException(str(error)) from None


def sandbox_for_owners(entrants: list[Entrant], isolation: Isolation) -> Isolation:
    """Bots of two or more owners (a bots file's ``owner``) are strangers to each other: without an explicit
    ``--sandbox``, they run under bubblewrap, and without an explicit ``--fair-play`` each in a control group
    (``--fair-play cgroup``, so a worker without them refuses the game too); the tournament refuses to start where
    either cannot be used."""
    named = owners(entrants)
    if len(named) < 2:
        return isolation
    context = click.get_current_context()
    default = click.core.ParameterSource.DEFAULT
    who = f"the bots have {len(named)} owners ({', '.join(sorted(named))})"
    if context.get_parameter_source("sandbox") is default and isolation.sandbox != "bwrap":
        try:
            check_bwrap()
        except SandboxError as error:
            raise click.UsageError(
                f"{who}, so they run under --sandbox bwrap by default, and it cannot be used here: {error}; to run "
                "them unsandboxed anyway, give --sandbox none"
            ) from None
        isolation = msgspec.structs.replace(isolation, sandbox="bwrap")
    if context.get_parameter_source("fair_play") is default and isolation.fair_play == "auto":
        problem = fair_play_problem(isolation.fair_play)
        if problem is not None:
            raise click.UsageError(
                f"{who}, so each runs in a control group of its own by default (its deadline its own CPU time, "
                f"frozen while not to move), and none can be made here: {problem}; run as root or in a delegated "
                "cgroup (README), or give --fair-play none to time them on the wall clock"
            )
        isolation = msgspec.structs.replace(isolation, fair_play="cgroup")
    return isolation


# --- kierki tournament ----------------------------------------------------------------------------------------

# The options that are not part of a tournament's stored configuration: how and how long this run plays.
RUN_OPTIONS = frozenset(
    ("bot_arguments", "bots_file", "sets", "until_ci", "max_sets", "seed", "out_dir", "resume", "jobs", "cpu_pinning")
) | {"executor", "scheduler", "workers", "as_json"}


def resumed_config(out_dir: Path, seed: str) -> TournamentConfig:
    """``--resume --out DIR`` with no bots: the configuration stored in DIR. An option of the configuration given
    again alone cannot be checked against it (the others would be their defaults): it is refused, saying so."""
    context = click.get_current_context()
    given = [
        f"--{name.rstrip('_').replace('_', '-')}"
        for name in context.params
        if name not in RUN_OPTIONS
        and context.get_parameter_source(name) not in (click.core.ParameterSource.DEFAULT, None)
    ]
    if given:
        raise click.UsageError(
            f"--resume without bots continues with the configuration stored in {out_dir}/tournament.json: "
            f"leave out {', '.join(given)}, or give the bots and every option of the stopped run again"
        )
    try:
        config = stored_config(out_dir)
    except TournamentError as error:
        raise click.ClickException(str(error)) from None
    if config.seed != seed:
        raise click.UsageError(f"--resume: --seed {seed} is not the stored run's seed ({config.seed})")
    return config


DEFAULT_SETS = 10


def stop_rule(
    out_dir: Path, *, resume: bool, sets: int | None, until_ci: float | None, max_sets: int, quiet: bool
) -> StopRule:
    """This run's stopping rule: the one given, else on --resume the one stored with the tournament (so that a
    resume alone plays what the first run would have), else --sets 10. A resume that gives another one says what
    changed; the new one is stored for the next resume."""
    given_max = click.get_current_context().get_parameter_source("max_sets") is not click.core.ParameterSource.DEFAULT
    stored = None
    if resume:
        try:
            stored = stored_stop(out_dir)
        except TournamentError as error:
            raise click.ClickException(str(error)) from None
    given = None
    if sets is not None or until_ci is not None:
        given = StopRule(sets=sets, until_ci=until_ci, max_sets=max_sets)
    elif given_max:
        if stored is None or stored.until_ci is None:
            raise click.UsageError("--max-sets goes with --until-ci WIDTH: give both, or --sets N")
        given = StopRule(until_ci=stored.until_ci, max_sets=max_sets)
    if not resume:
        return given or StopRule(sets=DEFAULT_SETS)
    if given is None:
        if stored is not None:
            return stored
        given = StopRule(sets=DEFAULT_SETS)
        if not quiet:
            click.echo(
                f"note: {out_dir}/tournament.json keeps no stopping rule (an older kierki wrote it): playing to "
                f"the default {given.describe()}; give --sets or --until-ci to choose",
                err=True,
            )
    elif stored is not None and given != stored and not quiet:
        click.echo(f"note: the stopping rule changed: {stored.describe()} before, {given.describe()} now", err=True)
    return given


@click.command()
@click.argument("bot_arguments", nargs=-1, metavar="[NAME=COMMAND ...]")
@click.option(
    "--bots",
    "bots_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A TOML file of [[bot]] tables: name, command, and optionally cwd, env, time and owner (bots of several "
    "owners run under --sandbox bwrap unless --sandbox is given; see README).",
)
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMATS[:2]),
    default="round-robin",
    show_default=True,
    help="round-robin: every bot meets every other; gauntlet: --candidate against the field.",
)
@click.option("--candidate", default=None, metavar="NAME", help="Gauntlet: the bot that plays against the field.")
@sets_option(" [default: 10; on --resume, the stopped run's rule].")
@click.option(
    "--until-ci",
    type=click.FloatRange(0, min_open=True),
    default=None,
    metavar="WIDTH",
    help="Instead of --sets: play until every bot's 95% interval (points per game) is narrower than WIDTH.",
)
@click.option(
    "--max-sets",
    type=click.IntRange(1),
    default=1000,
    show_default=True,
    help="With --until-ci: stop after this many sets at most.",
)
@click.option(
    "--analyse",
    "analyse",
    is_flag=True,
    help="Analyse each game once played, in its worker (kierki analyse): the standings gain each bot's mean loss "
    "a decision. About 11 CPU s a Kierki game at the default budget, compiled (docs/viewers/analysis.md).",
)
@click.option(
    "--analyse-playouts",
    type=click.IntRange(1),
    default=None,
    help="With --analyse: the search's playouts a decision [default: kierki analyse's].",
)
@common_options
def tournament(
    bot_arguments: tuple[str, ...],
    bots_file: Path | None,
    format_: str,
    candidate: str | None,
    sets: int | None,
    until_ci: float | None,
    max_sets: int,
    analyse: bool,
    analyse_playouts: int | None,
    seed: str | None,
    out_dir: Path | None,
    resume: bool,
    jobs: int | None,
    cpu_pinning: bool,
    as_json: bool,
    **settings: Any,
) -> None:
    """Play a tournament of duplicate sets and print the standings.

    Give bots as NAME=COMMAND (e.g. 'mine=python3 my_bot.py', 'h=sample:heuristic') or with --bots FILE.
    Each set deals the same cards once under every seat rotation, each game with freshly started bots.
    Ctrl-C stops cleanly and prints the standings so far; --resume --out DIR continues, with the bots, options
    and stopping rule (--sets, --until-ci, --max-sets) stored in DIR/tournament.json.
    """
    if sets is not None and until_ci is not None:
        raise click.UsageError("give --sets N or --until-ci WIDTH, not both")
    if analyse_playouts is not None and not analyse:
        raise click.UsageError("--analyse-playouts goes with --analyse")
    analysis = AnalysisSettings(playouts=analyse_playouts) if analyse else None
    executor = executor_spec(settings)
    try:
        entrants = [parse_bot_argument(a) for a in bot_arguments]
        if bots_file is not None:
            entrants += parse_bots_file(bots_file)
    except PlanError as error:
        raise click.UsageError(str(error)) from None
    out_dir, seed = out_dir_and_seed("tournament", "tournament", out_dir, seed, resume=resume, quiet=as_json)
    if resume and not entrants:
        config = resumed_config(out_dir, seed)
    else:
        settings["isolation"] = sandbox_for_owners(entrants, settings["isolation"])
        config = tournament_config(
            entrants, seed=seed, format=format_, candidate=candidate, analysis=analysis, **settings
        )
    stop = stop_rule(out_dir, resume=resume, sets=sets, until_ci=until_ci, max_sets=max_sets, quiet=as_json)
    plan = config.plan
    target = stop.target(plan)
    rounded = ""
    if stop.sets and target != stop.sets:
        rounded = f" (--sets {stop.sets} rounded up to whole rounds of {plan.round_length} sets)"
    header = (
        f"{config.ruleset.describe()}\n{config.format} of {len(config.entrants)} bots, "
        + (f"{target} sets{rounded}" if stop.until_ci is None else f"until every interval < {stop.until_ci:g}")
        + f", seed {seed}, results in {out_dir}"
        + "\nafter each set: the bots best first, each with its μ−3σ (and mean points a game)"
    )
    line = ProgressLine(sys.stderr, as_json, capped=stop.until_ci is not None)
    stats.load_scipy()
    result = _run(
        config,
        out_dir,
        stop,
        jobs=jobs,
        cpu_pinning=cpu_pinning,
        resume=resume,
        executor=executor,
        progress=line,
        header=None if as_json else header,
    )
    line.end()
    write_reports(result)
    if as_json:
        click.echo(json.dumps(result_json(result)))
    else:
        click.echo(format_standings(result))
    if result.status is not GameStatus.COMPLETE:
        sys.exit(ExitStatus.INTERRUPTED)


# --- kierki sprt ----------------------------------------------------------------------------------------------


def sprt_line(test: SPRT, difference: float) -> str:
    """The progress after each pair of sets: the versions best first, by how much a game, the last pair's
    difference and the log-likelihood ratio (its bounds are in the header); within 80 columns."""
    mean = test.mean
    if mean == 0:
        standing = "new and old level"
    else:
        better, worse = ("new", "old") if mean > 0 else ("old", "new")
        standing = f"{better} ahead of {worse} by {abs(mean):.2f}/game"
    line = f"pairs {test.n}  {standing}  last pair {difference:+.2f}  LLR {test.llr:.2f}"
    return line if len(line) <= WIDTH else line.replace("  last pair ", "  last ")


TESTED = frozenset(("new", "old"))  # the two versions an SPRT compares (the field is field1, field2, ...)


@click.command()
@click.option("--new", "new_command", required=True, metavar="CMD", help="The new version's command.")
@click.option("--old", "old_command", required=True, metavar="CMD", help="The old version's command.")
@click.option(
    "--field",
    "field_commands",
    multiple=True,
    metavar="CMD",
    help="A bot of the field; repeat for several [default: sample:heuristic and sample:random].",
)
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True)
@click.option("--beta", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True)
@click.option("--d0", type=float, default=0.0, show_default=True, help="H0: new - old, points per game.")
@click.option("--d1", type=float, default=1.0, show_default=True, help="H1: new - old, points per game.")
@click.option("--max-pairs", type=click.IntRange(1), default=200, show_default=True, help="Stop undecided after this.")
@common_options
def sprt(
    new_command: str,
    old_command: str,
    field_commands: tuple[str, ...],
    alpha: float,
    beta: float,
    d0: float,
    d1: float,
    max_pairs: int,
    seed: str | None,
    out_dir: Path | None,
    resume: bool,
    jobs: int | None,
    cpu_pinning: bool,
    as_json: bool,
    **settings: Any,
) -> None:
    """Is the new version better than the old? A sequential probability ratio test on paired sets.

    New and old play the same deals from the same seat against the same field; each pair of sets gives one
    difference in score per game (positive: new is better). The test stops when the log-likelihood ratio leaves
    its bounds: H1 (new better by d1) or H0 (not better than d0).
    """
    executor = executor_spec(settings)
    try:
        test = SPRT(alpha=alpha, beta=beta, d0=d0, d1=d1)
    except SprtError as error:
        raise click.UsageError(str(error)) from None
    fields = field_commands or ("sample:heuristic", "sample:random")
    entrants = [Entrant("new", new_command), Entrant("old", old_command)]
    entrants += [Entrant(f"field{i}", command) for i, command in enumerate(fields, 1)]
    out_dir, seed = out_dir_and_seed("sprt", "test", out_dir, seed, resume=resume, quiet=as_json)
    config = tournament_config(entrants, seed=seed, format="paired", candidate="new", baseline="old", **settings)
    err = sys.stderr
    quiet = as_json
    header = (
        f"{config.ruleset.describe()}\nSPRT H0: new - old <= {d0}, H1: >= {d1} points per game; "
        f"alpha {alpha}, beta {beta}; bounds {test.lower:.3f} .. {test.upper:.3f}; seed {seed}; {out_dir}"
    )
    by_id: dict[int, SetRecord] = {}
    fed = 0
    dropped: dict[str, str] = {}

    def note_dropped(progress: TournamentProgress) -> None:
        dropped.update(progress.dropped)

    def stop_when(records: list[SetRecord]) -> bool:
        nonlocal fed
        if TESTED.intersection(dropped):
            return True  # the fallback plays a dropped version's seat: its pairs would measure the fallback
        for record in records:
            by_id.setdefault(record.set_id, record)
        # Pairs in order, so a resumed or parallel run feeds the test exactly as a serial one.
        while 2 * fed + 2 in by_id and 2 * fed + 1 in by_id and test.decision is None and fed < max_pairs:
            difference = paired_difference(by_id[2 * fed + 1], by_id[2 * fed + 2], "new", "old")
            test.add(difference)
            fed += 1
            if not quiet:
                write_progress(err, sprt_line(test, difference), tty=False)
        return test.decision is not None or fed >= max_pairs

    result = _run(
        config,
        out_dir,
        StopRule(sets=2 * max_pairs),
        jobs=jobs,
        cpu_pinning=cpu_pinning,
        resume=resume,
        executor=executor,
        progress=note_dropped,
        stop_when=stop_when,
        header=None if quiet else header,
    )
    dropped.update(result.dropped)
    stop_when(result.records)
    broken = sorted(TESTED.intersection(dropped))
    if broken:
        name = broken[0]
        command = new_command if name == "new" else old_command
        raise click.ClickException(
            f"no decision: the {name} version ({printable(command)}) was dropped after "
            f"{printable(dropped[name])}; fix it, then start the test again with a new --out"
        )
    decision = test.decision
    summary = {
        "decision": decision,
        "pairs": test.n,
        "mean": test.mean if test.n else None,
        "llr": test.llr if math.isfinite(test.llr) else str(test.llr),
        "lower": test.lower,
        "upper": test.upper,
        "status": result.status,
        "seed": seed,
        "out_dir": str(out_dir),
        "dropped": result.dropped,
    }
    if as_json:
        click.echo(json.dumps(summary))
    else:
        for bot, reason in sorted(result.dropped.items()):
            click.echo(f"dropped {printable(bot)}: {printable(reason)}")
        undecided = "" if decision else f": no decision after {test.n} pair(s)"
        click.echo(f"{test.describe()}{undecided}; results in {printable(str(out_dir))}")
    if result.status is not GameStatus.COMPLETE and decision is None and test.n < max_pairs:
        sys.exit(ExitStatus.INTERRUPTED)
