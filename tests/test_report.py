"""Reports: the HTML parsed back, names from strangers escaped, CSV and JSON contents, the terminal table."""

from __future__ import annotations

import base64
import csv
import io
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import msgspec
import pytest
from competition_helpers import make_set

from competition.report import (
    ReportFiles,
    display_width,
    format_table,
    render_html,
    standings_csv,
    standings_json,
    write_report,
)
from competition.stats import Standings, standings
from referee.vocabulary.faults import FaultCode
from referee.vocabulary.text import printable

EVIL = "<script>alert(1)</script>"
MATH = "$\\frac{1}{0}$ bot"  # mathtext would choke on this if matplotlib were allowed to parse it
FORMULA = "=HYPERLINK(1)"
WIDE = "漢字"


def tournament(sets: int = 3) -> Standings:
    # Cyclic sets of four games, higher is better: in every game EVIL > MATH > FORMULA > WIDE.
    return standings(
        [
            make_set(
                i,
                {EVIL: [10 + i, 12, 9, 11], MATH: [8, 9, 8, 8], FORMULA: [5, 6, 7 - i, 5], WIDE: [4, 4, 4, 4]},
                faults={(0, FORMULA): {FaultCode.TIMEOUT: 2}},
            )
            for i in range(sets)
        ]
    )


class Collector(HTMLParser):
    """Tables as lists of row texts, plus every tag and attribute seen."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self._table = dict(attrs).get("id") or ""
            self.tables[self._table] = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Standings, ReportFiles]:
    result = tournament()
    return result, write_report(result, tmp_path_factory.mktemp("report") / "out")


@pytest.fixture(scope="module")
def parsed(written: tuple[Standings, ReportFiles]) -> Collector:
    collector = Collector()
    collector.feed(written[1].html.read_text(encoding="utf-8"))
    return collector


def test_files_are_written(written: tuple[Standings, ReportFiles]) -> None:
    _, files = written
    assert {p.name for p in files.html.parent.iterdir()} == {"report.html", "standings.csv", "standings.json"}


def test_html_standings_rows(written: tuple[Standings, ReportFiles], parsed: Collector) -> None:
    result, _ = written
    header, *rows = parsed.tables["standings"]
    assert header[:4] == ["#", "bot", "status", "μ − 3σ"]
    assert [row[1] for row in rows] == [EVIL, MATH, FORMULA, WIDE]  # the parser unescapes: names come back exact
    first = rows[0]
    bot = result.bots[0]
    assert first[0] == "1"
    assert first[2] == "ok"
    assert first[3] == f"{bot.rating.conservative:.2f}"
    assert first[6] == f"{bot.score.mean:.2f}"
    assert first[7] == f"{bot.score.half_width:.2f}"
    assert (first[8], first[9]) == ("3", "12")
    assert rows[2][12] == "timeout: 6"
    assert rows[3][12] == "0"


def test_html_head_to_head_table(parsed: Collector) -> None:
    header, *rows = parsed.tables["head-to-head"]
    assert header[1:] == [EVIL, MATH, FORMULA, WIDE]
    assert rows[0][0] == EVIL
    assert rows[0][1] == ""  # no bot meets itself
    assert rows[0][4] == "12–0–0"  # EVIL ahead of WIDE in all twelve games
    assert rows[3][1] == "0–12–0"
    assert rows[2][4] == "12–0–0"


def test_html_seat_table(parsed: Collector) -> None:
    _, *rows = parsed.tables["seats"]
    assert [row[0] for row in rows] == ["0", "1", "2", "3"]
    assert all(row[1] == "12" for row in rows)  # every game has every seat


def test_bot_names_are_escaped(written: tuple[Standings, ReportFiles], parsed: Collector) -> None:
    html = written[1].html.read_text(encoding="utf-8")
    assert EVIL not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert [tag for tag, _ in parsed.tags if tag == "script"] == []


def test_self_contained(written: tuple[Standings, ReportFiles], parsed: Collector) -> None:
    html = written[1].html.read_text(encoding="utf-8")
    assert "http://" not in html and "https://" not in html
    for _, attrs in parsed.tags:
        for name in ("src", "href"):
            if attrs.get(name) is not None:
                assert str(attrs[name]).startswith("data:")
    images = {attrs.get("id"): attrs.get("src") for tag, attrs in parsed.tags if tag == "img"}
    assert set(images) == {"interval-plot", "heatmap"}
    for src in images.values():
        assert src is not None
        svg = base64.b64decode(src.removeprefix("data:image/svg+xml;base64,"))
        assert svg.lstrip().startswith(b"<?xml") and b"<svg" in svg and b"<script" not in svg


def test_csv_contents(written: tuple[Standings, ReportFiles]) -> None:
    result, files = written
    rows = list(csv.DictReader(io.StringIO(files.csv.read_text(encoding="utf-8"))))
    assert [row["bot"] for row in rows] == [EVIL, MATH, "'" + FORMULA, WIDE]  # a formula is quoted for spreadsheets
    first = rows[0]
    bot = result.bots[0]
    assert int(first["rank"]) == 1 and int(first["sets"]) == 3 and int(first["games"]) == 12
    assert float(first["mean_per_game"]) == pytest.approx(bot.score.mean, abs=1e-6)
    assert float(first["ci_low"]) == pytest.approx(bot.score.low, abs=1e-6)
    assert float(first["ci_high"]) == pytest.approx(bot.score.high, abs=1e-6)
    assert float(first["rating_conservative"]) == pytest.approx(bot.rating.conservative, abs=1e-6)
    assert rows[2]["faults"] == "timeout=6"


def test_json_contents(written: tuple[Standings, ReportFiles]) -> None:
    result, files = written
    data = json.loads(files.json.read_text(encoding="utf-8"))
    assert data["format"] == 3
    assert (data["game"], data["players"], data["higher_is_better"], data["sets"], data["games"]) == (
        "kierki",
        4,
        True,
        3,
        12,
    )
    assert [b["bot"] for b in data["bots"]] == [EVIL, MATH, FORMULA, WIDE]
    first = data["bots"][0]
    assert first["score_per_game"]["mean"] == pytest.approx(result.bots[0].score.mean)
    assert first["score_per_game"]["half_width"] == pytest.approx(result.bots[0].score.half_width)
    assert first["rating"]["conservative"] == pytest.approx(result.bots[0].rating.conservative)
    assert data["bots"][2]["faults"] == {"timeout": 6}
    pair = next(h for h in data["head_to_head"] if h["bot"] == EVIL and h["other"] == WIDE)
    assert (pair["ahead"], pair["behind"], pair["tied"], pair["games"]) == (12, 0, 0, 12)
    assert len(data["seats"]) == 4


def test_one_set_has_no_interval_anywhere(tmp_path: Path) -> None:
    files = write_report(tournament(sets=1), tmp_path)
    data = json.loads(files.json.read_text(encoding="utf-8"))  # strict JSON: no Infinity
    interval = data["bots"][0]["score_per_game"]
    assert interval["half_width"] is None and interval["low"] is None and interval["high"] is None
    assert isinstance(interval["mean"], float)  # the mean is known: numbers where there are some, null where not
    rows = list(csv.DictReader(io.StringIO(files.csv.read_text(encoding="utf-8"))))
    assert rows[0]["ci_low"] == "" and rows[0]["ci_high"] == ""
    collector = Collector()
    collector.feed(files.html.read_text(encoding="utf-8"))
    assert collector.tables["standings"][1][7] == "–"
    table = format_table(tournament(sets=1))
    assert "inf" not in table and "nan" not in table
    title, _, *lines = table.splitlines()
    assert title.startswith("kierki, 4 players: 1 set, 4 games (") and "± –: one set gives no interval" in title
    assert all(re.search(r" -?\d+\.\d ± – ", row) for row in lines), lines  # the mean, and the mark of no interval


def test_a_bot_with_one_set_in_a_longer_table_shows_the_mark_alone() -> None:
    sets = [make_set(i, {"a": [1, 2], "b": [2, 1 + i], "c": [0, 0], "d" if i else "e": [3, 3]}) for i in range(3)]
    table = format_table(standings(sets)).splitlines()
    assert "± –: one set gives no interval" in table[0]
    marked = {row.split()[1] for row in table[2:] if "± –" in row}
    assert marked == {"e"}  # d sat in two sets: its interval is shown
    assert "inf" not in "\n".join(table)


def test_html_without_plots_and_with_a_single_bot() -> None:
    lonely = standings([make_set(0, {"solo": [1, 2]}), make_set(1, {"solo": [3, 4]})])
    html = render_html(lonely)
    collector = Collector()
    collector.feed(html)
    assert [tag for tag, attrs in collector.tags if tag == "img"] == ["img"]  # the interval plot, no heatmap
    assert "<img" not in render_html(lonely, plots=False)


def test_printable_escapes_control_and_format_characters() -> None:
    assert printable("plain name") == "plain name"
    assert printable("red\x1b[31m") == "red\\x1b[31m"
    assert printable("a\nb\tc\x7f") == "a\\x0ab\\x09c\\x7f"
    assert printable("evil\u202etxt") == "evil\\u202etxt"  # right-to-left override
    assert printable("zero\u200bwidth") == "zero\\u200bwidth"
    assert printable("lone \udc80") == "lone \\udc80"  # from surrogateescape: printing it would raise
    assert printable("zażółć 漢字") == "zażółć 漢字"
    assert all(ch.isprintable() for ch in printable("".join(map(chr, range(0x00, 0xA0)))))


def test_each_bots_cpu_time_is_summed_over_its_seats_in_every_table() -> None:
    """Games played in control groups carry each seat's CPU time: the standings total it per bot (json, csv, the
    terminal table); a game without it (an older results file, no control groups) adds nothing."""
    sets = [make_set(i, {EVIL: [3, 2, 1], MATH: [2, 1, 3], WIDE: [1, 3, 2]}) for i in range(2)]
    timed = [
        msgspec.structs.replace(game, cpu_ms=tuple(100.0 if bot == EVIL else 10.0 for bot in game.seats))
        for game in sets[0].games
    ]
    result = standings([msgspec.structs.replace(sets[0], games=tuple(timed)), sets[1]])
    cpu = {stats.bot: stats.cpu_ms for stats in result.bots}
    assert cpu == {EVIL: 300.0, MATH: 30.0, WIDE: 30.0}
    assert {row["bot"]: row["cpu_ms"] for row in standings_json(result)["bots"]} == cpu
    rows = {row["bot"]: row["cpu_s"] for row in csv.DictReader(io.StringIO(standings_csv(result)))}
    assert rows[EVIL] == "0.300"
    assert any(line.split()[-1] == "0.3" for line in format_table(result).splitlines() if EVIL in line)


def test_terminal_table() -> None:
    result = tournament()
    text = format_table(result)
    lines = text.splitlines()
    assert lines[0].startswith("kierki, 4 players: 3 sets, 12 games")
    assert "one set" not in lines[0]  # every interval is defined: no note about missing ones
    assert lines[1].split()[:4] == ["#", "bot", "status", "μ−3σ"]
    assert lines[1].split()[-6:] == ["faults", "no", "start", "forfeits", "CPU", "s"]
    assert len(lines) == 2 + 4
    evil = result.bots[0]
    assert lines[2].split()[:2] == ["1", EVIL]
    assert f"{evil.score.mean:.1f} ± {evil.score.half_width:.1f}" in lines[2]
    assert lines[4].split()[-4:] == ["6", "0", "0", "–"]  # FORMULA's faults, start failures, forfeits; no CPU time
    # The rating column ends in the same terminal cell on every row, the wide name's row included.
    ends = set()
    for line, bot in zip(lines[2:], result.bots, strict=True):
        name = printable(bot.bot)
        rating = f"{bot.rating.conservative:.2f}"
        end = line.index(rating, line.index(name) + len(name)) + len(rating)
        ends.add(display_width(line[:end]))
    assert len(ends) == 1
    assert display_width(WIDE) == 4


def test_terminal_table_escapes_names() -> None:
    result = standings([make_set(i, {"ok": [1, 2], "bad\x1b]0;pwned\x07": [2, 1]}) for i in range(2)])
    text = format_table(result)
    assert "\x1b" not in text and "\x07" not in text
    assert "bad\\x1b]0;pwned\\x07" in text
    assert not math.isnan(result.bots[0].score.mean)
