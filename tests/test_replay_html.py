"""The replay page (``referee.replay.html``) without a browser: its embedded data is the view model at every step
for every viewer, a seat's data holds no other seat's hidden card, bot text is escaped, and the page stays small.
The page in a real browser is tests/test_replay_browser.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from html_helpers import HOSTILE_NAME, card_id, embedded, hidden_and_known, write_game

from kierki_cli.main import cli
from referee.replay.html import _flat_table, page_data, render_html, table_at
from referee.replay.reader import load
from referee.replay.timeline import build_timeline

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.replay.jsonl"))
CARD = re.compile(r"^[2-9TJQKA][CDHS]$")
CARD_KEYS = ("hand", "legal", "kitty", "trump_cards_seen", "cancelled", "collected")


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("html")
    found = {p.name.split(".")[0]: p for p in GOLDEN}
    found["cancellation11"] = write_game(base / "c11.replay.jsonl", "cancellation", 11, 3, fault_seat=4)
    found["kierki3"] = write_game(base / "k3.replay.jsonl", "kierki3", None, 2)
    found["hostile"] = write_game(
        base / "hostile.replay.jsonl", "hearts", None, 5, {"target": 20}, names=[HOSTILE_NAME] * 4, fault_seat=1
    )
    return found


def _tables(data: dict[str, Any], viewer: str) -> Iterator[dict[str, Any]]:
    """Each step's flat table, rebuilt from the patches the way the page does."""
    keys = data["keys"]
    table: dict[str, Any] = {}
    for patch in data["views"][viewer]:
        for at in range(0, len(patch), 2):
            key, value = keys[patch[at]], patch[at + 1]
            table[key] = [*table[key], *value["+"]] if isinstance(value, dict) else value
        yield table


def _cards_in(table: dict[str, Any], records: list[dict[str, Any]]) -> set[int]:
    """Every card anywhere in a step's table and in the records shown with it."""
    found: set[int] = set()
    for key, value in table.items():
        last = key.rsplit(".", 1)[-1]
        if last in CARD_KEYS and value:
            found |= set(value)
        elif last == "plays" and value:
            found |= {card for _, card in value}
        elif key == "passes":
            for side in value:
                found |= set(side["sent"] or ()) | set(side["received"])

    def walk(item: object) -> None:
        if isinstance(item, str) and CARD.match(item):
            found.add(card_id(item))
        elif isinstance(item, list):
            for x in item:
                walk(x)
        elif isinstance(item, dict):
            for x in item.values():
                walk(x)

    for number in table.get("records") or ():
        walk(records[number])
    return found


@pytest.mark.parametrize("name", ["kierki-seed3", "hearts-target30-seed5", "cancellation6-target30-seed7", "kierki3"])
def test_every_step_of_every_view_is_the_view_model(games: dict[str, Path], name: str) -> None:
    timeline = build_timeline(load(games[name]))
    data = json.loads(json.dumps(page_data(timeline)))  # as the page reads it
    assert len(data["steps"]) == len(timeline.frames)
    checked = 0
    for viewer in ["all", *map(str, range(timeline.ruleset.players))]:
        seat = None if viewer == "all" else int(viewer)
        for index, table in enumerate(_tables(data, viewer)):
            records: dict[str, int] = {}
            expected = json.loads(json.dumps(_flat_table(timeline, index, seat, records)))
            by_number = {n: key for key, n in records.items()}
            shown = [data["records"][n] for n in table["records"]]
            assert [json.loads(by_number[n]) for n in expected.pop("records")] == shown
            got = {k: v for k, v in table.items() if k != "records" and (v is not None or k in expected)}
            assert got == expected, f"{viewer} step {index}"
            if index % 97 == 0:
                assert table_at(data, viewer, index) == table  # the public helper rebuilds it the same way
            checked += 1
    assert checked == len(timeline.frames) * (timeline.ruleset.players + 1)


@pytest.mark.parametrize(
    "name", ["kierki-seed3", "hearts-target30-seed5", "cancellation6-target30-seed7", "kierki3", "cancellation11"]
)
def test_a_seats_embedded_data_holds_no_other_seats_hidden_card(games: dict[str, Path], name: str) -> None:
    timeline = build_timeline(load(games[name]))
    data = embedded(render_html(timeline))
    checked = 0
    for seat in range(timeline.ruleset.players):
        for index, table in enumerate(_tables(data, str(seat))):
            others, known = hidden_and_known(timeline, index, seat)
            leaked = (_cards_in(table, data["records"]) & others) - known
            assert not leaked, f"seat {seat}, step {index}: {sorted(leaked)} of another hand in the page's data"
            assert all(table[f"seats.{s}.hand"] is None for s in range(timeline.ruleset.players) if s != seat)
            assert table["kitty"] is None
            checked += 1
    # The same check sees a leak when there is one: the all-hands data shows every hand.
    all_hands = next(t for i, t in enumerate(_tables(data, "all")) if i == 1)
    others, known = hidden_and_known(timeline, 1, 0)
    assert (_cards_in(all_hands, data["records"]) & others) - known
    assert checked == timeline.ruleset.players * len(timeline.frames)


def test_bot_text_cannot_break_out_of_the_page(games: dict[str, Path]) -> None:
    page = render_html(build_timeline(load(games["hostile"])))
    script = page.index('<script type="application/json"')
    assert "<script>alert" not in page and "<b>bold</b>" not in page
    assert HOSTILE_NAME[:9] not in page[:script]  # bot text is drawn by the script from the data, as text
    data_text = page[script : page.index("</script>", script)]
    assert "<" not in data_text.split(">", 1)[1]  # the JSON cannot end its script element
    data = embedded(page)
    assert data["names"] == [HOSTILE_NAME] * 4  # and decodes back to the name as written
    faults = [r for r in data["records"] if r["type"] == "fault"]
    assert faults and HOSTILE_NAME in faults[0]["message"]
    assert not re.search(r"https?://|\bsrc=|<link|@import|url\(", page)  # self-contained: nothing is fetched


def test_page_sizes(games: dict[str, Path]) -> None:
    sizes = {}
    for name in ("kierki-seed3", "cancellation11"):
        sizes[name] = len(render_html(build_timeline(load(games[name]))).encode())
    print(f"page sizes: {sizes}")
    assert all(size < 3_000_000 for size in sizes.values()), sizes


def test_the_command_writes_the_page(games: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    result = CliRunner().invoke(cli, ["replay", str(games["hearts-target30-seed5"]), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and embedded(page)["game"] == "hearts"
    assert 'viewer = "all";' in page
    result = CliRunner().invoke(cli, ["replay", str(games["hearts-target30-seed5"]), "--html", str(out), "--seat", "2"])
    assert result.exit_code == 0 and 'viewer = "2";' in out.read_text()  # opens on seat 2's view
    result = CliRunner().invoke(cli, ["replay", str(games["hearts-target30-seed5"]), "--html", str(out), "--json"])
    assert result.exit_code == 2 and "--html writes the whole game" in result.output
    result = CliRunner().invoke(cli, ["replay", str(games["hearts-target30-seed5"]), "--html", str(tmp_path / "no/x")])
    assert result.exit_code == 1 and "--html" in result.output


def test_the_page_of_a_timeline_helper_is_public() -> None:
    from referee.replay import html

    assert callable(html.write_html) and "write_html" in html.__all__
