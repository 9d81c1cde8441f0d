"""The ladder's static site: standings, a page per bot (rating plot, recent sets with their replays, faults, the end
of its last stderr log) and a head-to-head table, from Jinja2 templates with autoescaping.

The site is written whole into a new folder beside ``OUT`` and then published by renaming a symlink over ``OUT``
(``rename(2)`` is atomic): a web server serving ``OUT`` sees the old site or the new one, never half of either. The
replays of the recent sets it links to are copied into it, so it is self-contained.

Nothing published shows the server (`public`): a path inside the ladder's folder is shown relative to it, any
other absolute path by its last part (a bot's command, a reason, its stderr, the replay logs' headers and the
replay pages' resume hint); a seat is named by its label.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from competition import stats
from competition.ladder.export import iso_time
from competition.ladder.ladder import LadderError, log_tail, replay_file
from competition.ladder.logs import fault_summary, stderr_log
from competition.ladder.standings import PROVISIONAL_SETS, Standing, standings
from competition.ladder.store import Store
from competition.ladder.store_records import Bot, BotStatus, Submission
from competition.model import SetRecord
from competition.ratings import set_ranks
from referee.api import ReplayError, build_timeline, load, printable, write_html

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["RECENT_SETS", "STDERR_TAIL_BYTES", "write_site"]

RECENT_SETS = 10  # per bot page
RECENT_FAULTS = 10  # per bot page: its newest games with trouble, each linking the end of its stderr log there
RECENT_LOSSES = 10  # per bot page: its largest losses in its recent sets, by the ladder's [analysis]
RECENT_SUBMISSIONS = 5  # per bot page: the inbox's outcomes for its name
SUBMISSIONS_PAGE = 50  # the newest submissions on submissions.html
# Of those, the newest get replay pages (about 0.4 s and 300 kB a game to render); the others link their logs.
PAGE_SETS = 3
# In the ladder's folder: the replay pages of the sets the site shows (named anew when what a page shows changed:
# "replay-pages", of older kierki, named the log by its absolute path)
PAGES_DIR = "replay-pages-2"
OLD_PAGES_DIRS = ("replay-pages",)
STDERR_TAIL_BYTES = 4000
KEEP_VERSIONS = 2  # the published site and the one before it (a reader may still be on it)

_environment = jinja2.Environment(
    loader=jinja2.PackageLoader("competition.ladder", "templates"),
    autoescape=True,  # every value is escaped: bot names, owners, commands, reasons and stderr are strangers' text
    undefined=jinja2.StrictUndefined,
)


def _visible(text: str) -> str:
    """Each line through ``referee.vocabulary.text.printable`` (control and invisible characters as escapes);
    escaping for HTML is the template's job."""
    return "\n".join(printable(line) for line in text.split("\n"))


# An absolute path: a "/" at the start of a line or after a space, a quote, "=", "(", "[", "{", ":" or "," (not
# "</b>", "a/b" or "1/2"), up to a character no path of ours holds.
_ABSOLUTE_PATH = re.compile(r"(?:^|(?<=[\s'\"=(\[{:,]))/[^\s'\"`:;,()<>\[\]{}|]*", re.MULTILINE)


def public(text: str, folder: Path) -> str:
    """``text`` as the site may show it: a path inside the ladder's folder relative to it, any other absolute path
    by its last part (``/srv/bots/erin/bot.pl`` -> ``bot.pl``), so no page shows where the server keeps things."""
    root = str(folder.resolve())

    def replace(match: re.Match[str]) -> str:
        path = match.group(0)
        if path == root or path.startswith(root + "/"):
            return path[len(root) + 1 :] or "."
        return path.rstrip("/").rsplit("/", 1)[-1] or "/"

    return _ABSOLUTE_PATH.sub(replace, text)


@dataclass(frozen=True)
class _Link:
    game: int
    href: str  # the replay page, or the log when no page could be made
    log: str  # the replay log itself (plain or gzip-compressed): for kierki replay and other tools


def write_site(folder: Path, store: Store, out: Path) -> Path:
    """Write the site and publish it at ``out``; returns the folder it was written to."""
    out = out.absolute()
    if out.exists() and not out.is_symlink():
        if out.is_dir() and not any(out.iterdir()):
            out.rmdir()
        else:
            raise LadderError(f"{out} exists and is not a site written by `kierki ladder site`: choose another folder")
    versions = out.parent / f".{out.name}.versions"
    versions.mkdir(parents=True, exist_ok=True)
    target = versions / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{time.monotonic_ns()}"
    target.mkdir()
    try:
        _render(folder, store, target)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    link = out.parent / f".{out.name}.new-{os.getpid()}"
    link.unlink(missing_ok=True)
    os.symlink(os.path.relpath(target, out.parent), link)
    os.replace(link, out)
    for old in sorted(versions.iterdir())[:-KEEP_VERSIONS]:
        if old != target:
            shutil.rmtree(old, ignore_errors=True)
    return target


def _render(folder: Path, store: Store, target: Path) -> None:
    from competition.ladder.config import LadderConfig

    config = LadderConfig.load(folder)
    records = store.results()
    rows = standings(store, records)
    bots = {bot.label: bot for bot in store.bots()}
    common: dict[str, Any] = {
        "title": f"{config.game} ladder",
        "game": config.game,
        "players": config.players,
        "sets_played": len(records),
        "updated": time.strftime("%Y-%m-%d %H:%M %Z"),
        "provisional_sets": PROVISIONAL_SETS,
    }
    pages = {row.label: bot_page(bots[row.label]) for row in rows}
    (target / "bots").mkdir()
    views = [_row_view(r, pages, folder) for r in rows]
    _write(
        target / "index.html",
        "index.html",
        common,
        root="",
        rows=[v for v in views if v["status"] == BotStatus.ACTIVE],
        inactive=[v for v in views if v["status"] != BotStatus.ACTIVE],
        analysed=any(row.analysed_decisions for row in rows),
    )
    _write_head_to_head(target, records, rows, common)
    shown_ids: set[int] = set()
    by_bot: dict[str, list[SetRecord]] = {}
    for record in records:
        for label in set(record.bots):
            by_bot.setdefault(label, []).append(record)
    for row in rows:
        bot = bots[row.label]
        mine = by_bot.get(row.label, [])
        plot = _plot(store, row.label, target / "bots" / f"bot-{bot.id}.png")
        shown = list(reversed(mine[-RECENT_SETS:]))
        shown_ids.update(record.set_id for record in shown[:PAGE_SETS])
        recent = [
            _set_view(folder, target, record, row.label, pages=number < PAGE_SETS)
            for number, record in enumerate(shown)
        ]
        losses = _largest_losses(shown, recent, row.label)
        _write(
            target / "bots" / pages[row.label],
            "bot.html",
            common,
            root="../",
            row=_row_view(row, pages, folder),
            command=public(bot.command, folder),
            plot=plot,
            recent=recent,
            stderr=_last_stderr(folder, mine, row.label),
            faults=_recent_faults(folder, target, common, mine, row.label),
            losses=losses,
            submissions=[_submission_view(s, pages) for s in store.submissions(bot.name, RECENT_SUBMISSIONS)],
        )
    _write(
        target / "submissions.html",
        "submissions.html",
        common,
        root="",
        submissions=[_submission_view(s, pages) for s in store.submissions(limit=SUBMISSIONS_PAGE)],
    )
    _prune_pages(folder, shown_ids)
    for old in OLD_PAGES_DIRS:
        shutil.rmtree(folder / old, ignore_errors=True)


def _submission_view(submission: Submission, pages: dict[str, str]) -> dict[str, Any]:
    """What an author reads about a submission the inbox took (its full answer is its result.json)."""
    label = submission.label
    return {
        "owner": submission.owner,
        "name": submission.name,
        "taken": iso_time(submission.taken),
        "accepted": submission.accepted,
        "label": label,
        "page": pages.get(label) if label is not None else None,
        "reason": _visible(submission.reason or ""),
    }


def _write(path: Path, template: str, common: dict[str, Any], **values: Any) -> None:
    path.write_text(_environment.get_template(template).render(**common, **values))


def _row_view(row: Standing, pages: dict[str, str], folder: Path) -> dict[str, Any]:
    reason = public(row.reason, folder) if row.reason else row.reason
    return {**row.__dict__, "reason": reason, "page": pages[row.label]}


def _write_head_to_head(target: Path, records: list[SetRecord], rows: list[Standing], common: dict[str, Any]) -> None:
    cells: dict[tuple[str, str], stats.HeadToHead] = {}
    if records:
        for pair in stats.standings(records).head_to_head:
            cells[(pair.bot, pair.other)] = pair
    labels = [row.label for row in rows if row.sets]
    _write(target / "head-to-head.html", "head-to-head.html", common, root="", labels=labels, cells=cells)


def _publish(source: Path, target: Path, relative: Path) -> str:
    """Hard-link (or copy) a file into the site; its address from a bot page."""
    destination = target / relative
    destination.parent.mkdir(parents=True, exist_ok=True)
    if not destination.exists():
        try:
            os.link(source, destination)
        except OSError:
            shutil.copyfile(source, destination)
    return "../" + relative.as_posix()


def _publish_log(folder: Path, source: Path, target: Path, relative: Path) -> str:
    """Copy a replay log into the site with its header made `public` (the bots' commands name the server's
    paths; nothing else in a log does, and `kierki replay` still verifies the copy); its address from a bot page."""
    destination = target / relative
    destination.parent.mkdir(parents=True, exist_ok=True)
    if not destination.exists():
        compressed = source.name.endswith(".gz")
        data = gzip.decompress(source.read_bytes()) if compressed else source.read_bytes()
        first, newline, rest = data.partition(b"\n")
        try:
            header = json.loads(first)
            for bot in header.get("bots", []):
                bot["command"] = public(str(bot.get("command", "")), folder)
            if header.get("deals_file"):
                header["deals_file"] = public(str(header["deals_file"]), folder)
            first = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode()
        except (ValueError, AttributeError, TypeError):
            first = b""  # not a header we can read: publish no line of it rather than a path
        data = first + newline + rest
        destination.write_bytes(gzip.compress(data, mtime=0) if compressed else data)
    return "../" + relative.as_posix()


def _replay_page(folder: Path, log: Path, set_id: int, game: int) -> Path | None:
    """The game's replay page (``referee.replay.html``), rendered once into ``DIR/replay-pages`` and reused by
    every later site: a played game never changes. None when its log cannot be read back."""
    page = folder / PAGES_DIR / f"{set_id:06d}" / f"game{game}.html"
    if page.exists():
        return page
    try:
        timeline = build_timeline(load(log, strict=False), strict=False)
    except ReplayError:
        return None
    page.parent.mkdir(parents=True, exist_ok=True)
    temporary = page.with_name(page.name + ".tmp")
    # The page names its log, and says how to resume from it, relative to the ladder's folder.
    write_html(timeline, temporary, title=f"set {set_id}, game {game}", file=public(str(log.resolve()), folder))
    os.replace(temporary, page)
    return page


def _prune_pages(folder: Path, shown: set[int]) -> None:
    """Drop the rendered pages of sets no bot page links any more (the cache holds the newest sets only)."""
    pages = folder / PAGES_DIR
    if not pages.is_dir():
        return
    for path in pages.iterdir():
        if not (path.name.isdigit() and int(path.name) in shown):
            shutil.rmtree(path, ignore_errors=True)


def _set_view(folder: Path, target: Path, record: SetRecord, label: str, *, pages: bool) -> dict[str, Any]:
    links = []
    for game in record.games:
        if game.replay is None:
            continue
        source = replay_file(folder, game.replay)
        if source is None:
            continue
        number = game.index + 1
        folder_name = Path("replays") / f"{record.set_id:06d}"
        log = _publish_log(folder, source, target, folder_name / source.name)
        page = _replay_page(folder, source, record.set_id, number) if pages else None
        html = _publish(page, target, folder_name / page.name) if page is not None else None
        links.append(_Link(number, html or log, log))
    return {
        "set_id": record.set_id,
        "table": ", ".join(record.bots),
        "rank": set_ranks(record).get(label, "–"),
        "replays": links,
    }


def _largest_losses(shown: list[SetRecord], views: list[dict[str, Any]], label: str) -> list[dict[str, Any]]:
    """The bot's largest losses in its recent sets by the ladder's ``[analysis]`` (kierki analyse), each linking the
    decision on its game's replay page (``#decision=N``; the log where the set has no page)."""
    found: list[dict[str, Any]] = []
    for record, view in zip(shown, views, strict=True):
        links = {link.game: link for link in view["replays"]}
        for game in record.games:
            link = links.get(game.index + 1)
            for seat, name in enumerate(game.seats):
                analysed = game.analysis[seat] if name == label and seat < len(game.analysis) else None
                for decision, loss, grade in analysed.largest if analysed is not None else ():
                    href = None
                    if link is not None:
                        href = f"{link.href}#decision={decision}" if link.href != link.log else link.log
                    found.append(
                        {
                            "set_id": record.set_id,
                            "game": game.index + 1,
                            "seat": seat,
                            "decision": decision,
                            "loss": loss,
                            "grade": grade or "",
                            "href": href,
                        }
                    )
    found.sort(key=lambda item: (-item["loss"], -item["set_id"], item["game"], item["decision"]))
    return found[:RECENT_LOSSES]


def _recent_faults(
    folder: Path, target: Path, common: dict[str, Any], mine: list[SetRecord], label: str
) -> list[dict[str, Any]]:
    """The bot's newest games with trouble (could not start, forfeited, faults), each with a page of the end of its
    stderr log in that game when it left one (escaped, as every page), so that its author can see why."""
    found: list[dict[str, Any]] = []
    for record in reversed(mine):
        for game in sorted(record.games, key=lambda g: -g.index):
            for seat, name in enumerate(game.seats):
                trouble = fault_summary(game, seat) if name == label else ""
                if not trouble:
                    continue
                number = game.index + 1
                data, size = log_tail(folder / stderr_log(record.set_id, number, seat), STDERR_TAIL_BYTES)
                page = None
                if size:
                    page = f"logs/{record.set_id:06d}-game{number}-seat{seat}.html"
                    shown = f"its last {len(data)} of {size} bytes" if size > len(data) else f"{size} bytes"
                    (target / "logs").mkdir(exist_ok=True)
                    _write(
                        target / page,
                        "log.html",
                        common,
                        root="../",
                        label=label,
                        where=f"set {record.set_id}, game {number}, seat {seat}",
                        shown=shown,
                        text=_visible(data.decode("utf-8", "replace")),
                    )
                found.append({"set_id": record.set_id, "game": number, "what": trouble, "log": page})
                if len(found) >= RECENT_FAULTS:
                    return found
    return found


def _last_stderr(folder: Path, mine: list[SetRecord], label: str) -> dict[str, str] | None:
    """The end of the newest stderr log the bot left (bots that write nothing leave none)."""
    for record in reversed(mine):
        for game in reversed(record.games):
            for seat, name in enumerate(game.seats):
                if name != label:
                    continue
                path = folder / f"sets/{record.set_id:06d}/game{game.index + 1}.seat{seat}.stderr.log"
                data, size = log_tail(path, STDERR_TAIL_BYTES)
                if not size:
                    continue
                text = public(_visible(data.decode("utf-8", "replace")), folder)
                where = f"set {record.set_id}, game {game.index + 1}, seat {seat}"
                if size > STDERR_TAIL_BYTES:
                    where += f" (its last {STDERR_TAIL_BYTES} of {size} bytes)"
                return {"source": where, "text": text}
    return None


def _plot(store: Store, label: str, path: Path) -> str | None:
    """The bot's μ and μ − 3σ after each of its rated sets, as a PNG; its name relative to the bot pages."""
    history = store.history(label)
    if not history:
        return None
    rating_figure(history).savefig(path, format="png", metadata={"Software": None})
    return path.name


def rating_figure(history: list[tuple[int, float, float]]) -> Figure:
    """μ and μ − 3σ against the number of rated sets, whose ticks are whole numbers (a set is never half played)."""
    from matplotlib.figure import Figure  # imported here: a second of start-up the other commands do not need
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(6.4, 3.2), dpi=100)
    axes = figure.add_subplot()
    number = list(range(1, len(history) + 1))
    axes.plot(number, [mu for _, mu, _ in history], label="μ")
    axes.plot(number, [mu - 3 * sigma for _, mu, sigma in history], label="μ − 3σ")
    axes.set_xlabel("rated sets")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylabel("rating")
    axes.legend(loc="lower right")
    figure.tight_layout()
    return figure


def bot_page(bot: Bot) -> str:
    return f"bot-{bot.id}.html"
