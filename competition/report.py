"""Standings for people: ``standings.json``, ``standings.csv``, a self-contained ``report.html`` and a terminal table.

Bot names are written by strangers. The HTML template autoescapes them, the plots are embedded as ``<img>`` data
URIs (an SVG loaded as an image cannot run scripts) with matplotlib's mathtext off (a ``$`` in a name stays text),
the CSV neutralises names a spreadsheet would run as formulas, and the terminal table passes every name through
:func:`printable`. jinja2 and matplotlib are imported only when a report is written, so ``kierki --help`` and the
terminal table stay fast.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import math
import unicodedata
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from competition.stats import BotStats, Interval, Standings
from referee.api import printable

__all__ = [
    "REPORT_FORMAT",
    "ReportFiles",
    "display_width",
    "format_table",
    "printable",
    "render_html",
    "standings_csv",
    "standings_json",
    "write_report",
]

# standings.json's "format"; bumped when a field changes meaning or goes away. 2: the ranking rule (a game the
# fallback played for a bot is its last place), "rank" null for a bot never ranked, "status", "reason",
# "fallback_games" and "fallback_points_per_game". 3: "first_places" counts a game won by any seat of a bot that
# fills several (it counted none of them before), and "seats_per_game" says how many it filled at most.
REPORT_FORMAT = 3


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: wide East Asian characters and emoji take two, combining marks none."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _pad(text: str, width: int, left: bool) -> str:
    fill = " " * max(0, width - display_width(text))
    return text + fill if left else fill + text


# --- plain data ----------------------------------------------------------------------------------------------


def _finite(value: float) -> float | None:
    """JSON has no infinity or NaN: an undefined interval is written as null."""
    return value if math.isfinite(value) else None


def _interval(interval: Interval) -> dict[str, Any]:
    return {
        "mean": _finite(interval.mean),
        "half_width": _finite(interval.half_width),
        "low": _finite(interval.low),
        "high": _finite(interval.high),
        "n": interval.n,
    }


def _bot(stats: BotStats) -> dict[str, Any]:
    return {
        "rank": stats.rank,
        "bot": stats.bot,
        "rating": {
            "mu": stats.rating.mu,
            "sigma": stats.rating.sigma,
            "conservative": stats.rating.conservative,
            "sets": stats.rating.sets,
        },
        "sets": stats.sets,
        "games": stats.games,
        "score_per_game": _interval(stats.score),
        "mean_place": stats.mean_place,
        "first_places": stats.first_places,
        "faults": stats.faults,
        "start_failures": stats.start_failures,
        "forfeits": stats.forfeits,
        "status": stats.status,
        "reason": stats.reason,
        "fallback_games": stats.fallback_games,
        "fallback_points_per_game": _finite(stats.fallback_score),
        "cpu_ms": None if stats.cpu_ms is None else round(stats.cpu_ms, 3),
        "seats_per_game": stats.seats_per_game,
        "analysed_decisions": stats.analysed_decisions,
        "loss_per_decision": None if stats.loss_per_decision is None else round(stats.loss_per_decision, 3),
    }


def standings_json(standings: Standings) -> dict[str, Any]:
    """The standings as plain JSON data (``standings.json``)."""
    return {
        "format": REPORT_FORMAT,
        "game": standings.game,
        "players": standings.players,
        "higher_is_better": standings.higher_is_better,
        "confidence": standings.confidence,
        "sets": standings.sets,
        "games": standings.games,
        "bots": [_bot(stats) for stats in standings.bots],
        "head_to_head": [
            {"bot": h.bot, "other": h.other, "ahead": h.ahead, "behind": h.behind, "tied": h.tied, "games": h.games}
            for h in standings.head_to_head
        ],
        "seats": [{"seat": s.seat, "games": s.games, "score_per_game": _interval(s.score)} for s in standings.seats],
    }


CSV_COLUMNS = (
    "rank",
    "bot",
    "rating_conservative",
    "rating_mu",
    "rating_sigma",
    "sets",
    "games",
    "mean_per_game",
    "ci_low",
    "ci_high",
    "mean_place",
    "first_places",
    "faults",
    "start_failures",
    "forfeits",
    "status",
    "reason",
    "fallback_games",
    "fallback_per_game",
    "cpu_s",
    "seats_per_game",
    "loss_per_decision",
)


def _cell_text(text: str) -> str:
    """A spreadsheet runs a cell starting with = + - @ (or a tab/CR before one) as a formula: quote it (OWASP)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _number(value: float) -> str:
    return repr(round(value, 6)) if math.isfinite(value) else ""


def standings_csv(standings: Standings) -> str:
    """One row per bot, best first (``standings.csv``); an undefined interval leaves its cells empty."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for stats in standings.bots:
        writer.writerow(
            [
                "" if stats.rank is None else stats.rank,
                _cell_text(stats.bot),
                _number(stats.rating.conservative),
                _number(stats.rating.mu),
                _number(stats.rating.sigma),
                stats.sets,
                stats.games,
                _number(stats.score.mean),
                _number(stats.score.low),
                _number(stats.score.high),
                _number(stats.mean_place),
                stats.first_places,
                ";".join(f"{code}={count}" for code, count in stats.faults.items()),
                stats.start_failures,
                stats.forfeits,
                stats.status,
                _cell_text(stats.reason or ""),
                stats.fallback_games,
                _number(stats.fallback_score),
                "" if stats.cpu_ms is None else f"{stats.cpu_ms / 1000:.3f}",
                stats.seats_per_game,
                "" if stats.loss_per_decision is None else _number(stats.loss_per_decision),
            ]
        )
    return buffer.getvalue()


# --- terminal ------------------------------------------------------------------------------------------------


NO_INTERVAL = "–"  # the terminal table's and report.html's mark for an interval one set cannot give


def _plus_minus(interval: Interval) -> str:
    mean = f"{interval.mean:.1f}" if interval.n else NO_INTERVAL
    return f"{mean} ± {interval.half_width:.1f}" if interval.defined else f"{mean} ± {NO_INTERVAL}"


FALLBACK_MARK = "*"  # marks a mean that holds points the fallback scored for the bot


def rank_text(stats: BotStats) -> str:
    return NO_INTERVAL if stats.rank is None else str(stats.rank)


def format_table(standings: Standings, escape: Callable[[str], str] = printable) -> str:
    """The standings as a plain-text table, one row per bot, best first; names passed through ``escape``.
    Below it, the ranking rule when the fallback played for a bot, and why each bot not ``ok`` is so."""
    direction = "higher" if standings.higher_is_better else "lower"
    header: tuple[str, ...] = ("#", "bot", "status", "μ−3σ", "mean/game", "sets", "games", "place", "wins")
    header += ("faults", "no start", "forfeits", "CPU s")
    rows: list[tuple[str, ...]] = [
        (
            rank_text(stats),
            escape(stats.bot),
            stats.status,
            f"{stats.rating.conservative:.2f}",
            _plus_minus(stats.score) + (FALLBACK_MARK if stats.fallback_games else ""),
            str(stats.sets),
            str(stats.games),
            f"{stats.mean_place:.2f}",
            str(stats.first_places),
            str(sum(stats.faults.values())),
            str(stats.start_failures),
            str(stats.forfeits),
            NO_INTERVAL if stats.cpu_ms is None else f"{stats.cpu_ms / 1000:.1f}",
        )
        for stats in standings.bots
    ]
    if any(stats.analysed_decisions for stats in standings.bots):  # kierki tournament --analyse
        header += ("loss/dec",)
        rows = [
            (*row, NO_INTERVAL if stats.loss_per_decision is None else f"{stats.loss_per_decision:.2f}")
            for row, stats in zip(rows, standings.bots, strict=True)
        ]
    widths = [max(display_width(row[i]) for row in [header, *rows]) for i in range(len(header))]
    left = {1, 2}  # the names and statuses; numbers align right

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(_pad(c, w, i in left) for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    percent = round(standings.confidence * 100)
    undefined = "" if all(s.score.defined for s in standings.bots) else f"; ± {NO_INTERVAL}: one set gives no interval"
    sets = f"{standings.sets} set" + ("" if standings.sets == 1 else "s")
    title = (
        f"{standings.game}, {standings.players} players: {sets}, {standings.games} games "
        f"({direction} scores are better; ± is a {percent}% interval over sets{undefined})"
    )
    notes = [
        f"{FALLBACK_MARK} {escape(stats.bot)}: the fallback played (in part) {stats.fallback_games} of its "
        f"{stats.games} games, scoring {stats.fallback_score:.2f} a game there: the fallback's points, counted "
        "as last places" + ("; it never played a game of its own, so it is not ranked" if stats.rank is None else "")
        for stats in standings.bots
        if stats.fallback_games
    ]
    notes += [
        f"wins of {escape(stats.bot)}: it filled up to {stats.seats_per_game} seats a game; a game counts once, won "
        "when any of its seats finished first"
        for stats in standings.bots
        if stats.seats_per_game > 1
    ]
    notes += [f"{stats.status} {escape(stats.bot)}: {escape(stats.reason)}" for stats in standings.bots if stats.reason]
    return "\n".join([title, line(header), *(line(row) for row in rows), *notes]) + "\n"


# --- plots and HTML ------------------------------------------------------------------------------------------


def _svg_data_uri(figure: Any) -> str:
    buffer = io.BytesIO()
    # No date and a fixed hash salt: the same standings give the same bytes.
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _plots(standings: Standings) -> tuple[str, str | None]:
    """The interval plot and the head-to-head heatmap (None with fewer than two bots), as data URIs."""
    # Figures made directly, not through pyplot: no GUI backend is ever chosen and no global figure state is kept,
    # so this is safe headless and from any thread.
    import matplotlib
    from matplotlib.figure import Figure

    names = [printable(stats.bot) for stats in standings.bots]  # control characters have no glyphs anyway
    settings = matplotlib.rc_context({"text.parse_math": False, "svg.hashsalt": "kierki", "svg.fonttype": "path"})
    with settings, warnings.catch_warnings():
        # A name in a script DejaVu lacks draws boxes; that is no reason to fail the report.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning)
        height = 1.0 + 0.4 * len(names)
        figure = Figure(figsize=(7.0, height))
        axes = figure.subplots()
        positions = list(range(len(names)))[::-1]  # best at the top
        means = [stats.score.mean for stats in standings.bots]
        errors = [stats.score.half_width if stats.score.defined else 0.0 for stats in standings.bots]
        axes.errorbar(means, positions, xerr=errors, fmt="o", capsize=4, color="#1f5fa8")
        axes.set_yticks(positions, labels=names)
        better = "higher" if standings.higher_is_better else "lower"
        axes.set_xlabel(f"mean score per game ({better} is better), {round(standings.confidence * 100)}% interval")
        axes.grid(axis="x", alpha=0.3)
        intervals = _svg_data_uri(figure)

        heatmap = None
        if len(names) >= 2:
            size = 1.5 + 0.6 * len(names)
            figure = Figure(figsize=(size + 1.5, size))
            axes = figure.subplots()
            matrix = [[math.nan] * len(names) for _ in names]
            for i, row_bot in enumerate(standings.bots):
                for j, column_bot in enumerate(standings.bots):
                    pair = standings.pair(row_bot.bot, column_bot.bot)
                    if pair is not None and pair.games:
                        matrix[i][j] = pair.score
            image = axes.imshow(matrix, cmap="RdBu", vmin=0.0, vmax=1.0)
            axes.set_xticks(range(len(names)), labels=names, rotation=45, ha="right")
            axes.set_yticks(range(len(names)), labels=names)
            axes.set_xlabel("opponent")
            axes.set_ylabel("bot")
            for i, row in enumerate(matrix):
                for j, value in enumerate(row):
                    if not math.isnan(value):
                        colour = "white" if abs(value - 0.5) > 0.3 else "black"  # readable on the dark ends
                        axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8, color=colour)
            figure.colorbar(image, ax=axes, label="share of games finished ahead (ties half)")
            heatmap = _svg_data_uri(figure)
    return intervals, heatmap


def render_html(standings: Standings, title: str | None = None, plots: bool = True) -> str:
    """``report.html``: one file with no external resources, rendered from ``templates/report.html``."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(
        loader=PackageLoader("competition", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    intervals, heatmap = _plots(standings) if plots else (None, None)
    names = [stats.bot for stats in standings.bots]
    matrix = [[standings.pair(a, b) for b in names] for a in names]
    return environment.get_template("report.html").render(
        title=title or f"{standings.game} tournament",
        standings=standings,
        percent=round(standings.confidence * 100),
        direction="higher" if standings.higher_is_better else "lower",
        interval_plot=intervals,
        heatmap=heatmap,
        names=names,
        matrix=matrix,
        finite=math.isfinite,
    )


@dataclass(frozen=True)
class ReportFiles:
    json: Path
    csv: Path
    html: Path


def _write(path: Path, text: str) -> None:
    """Write beside, then rename: a reader never sees half a report."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def write_report(standings: Standings, folder: Path, title: str | None = None) -> ReportFiles:
    """Write ``standings.json``, ``standings.csv`` and ``report.html`` into ``folder`` (created if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(json=folder / "standings.json", csv=folder / "standings.csv", html=folder / "report.html")
    _write(files.json, json.dumps(standings_json(standings), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    _write(files.csv, standings_csv(standings))
    _write(files.html, render_html(standings, title))
    return files
