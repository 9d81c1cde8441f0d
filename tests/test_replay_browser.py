"""The replay page in a real headless browser (Debian's chromium driven by selenium and chromedriver): step to
decision N, read the table from the page's ``data-`` attributes and compare it with the rules core's state after
N decisions; a seat's view shows no other seat's hidden card; the page fits a phone's width. A screenshot of each
game kind is written to tests/artifacts/ (git-ignored) for a person to look at.

Skipped, with the reason, where selenium, chromium or chromedriver is missing (``.ci/run`` installs them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import headless_chromium
from html_helpers import card_id, hidden_and_known, write_game

from referee.replay.html import write_html
from referee.replay.reader import load
from referee.replay.timeline import Timeline, build_timeline
from referee.rules import GameState, Phase

ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with headless_chromium() as driver:
        yield driver


def _state_after(timeline: Timeline, n: int) -> GameState:
    """The rules core's own game after the log's first ``n`` decisions (not the timeline's cursor)."""
    state = GameState(timeline.ruleset, seed=timeline.replay.header.seed, deals=timeline.given)
    for step in timeline.decisions[:n]:
        state.apply(step.action, step.seat)
    return state


def _go(driver: Any, decision: int) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.ID, "goto")
    box.clear()
    box.send_keys(str(decision), Keys.ENTER)


def _press(driver: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    driver.find_element(By.TAG_NAME, "h1").click()  # focus off the inputs: the page's keys act
    ActionChains(driver).send_keys(key).perform()


def _read(driver: Any) -> dict[str, Any]:
    """The table as the page shows it, from its data- attributes."""
    return dict(
        driver.execute_script(
            """
            const root = document.getElementById("table");
            const trick = document.getElementById("trick");
            return {
              position: Number(root.dataset.position), viewer: root.dataset.viewer, phase: root.dataset.phase,
              toAct: root.dataset.toAct, deal: Number(root.dataset.deal),
              seats: [...document.querySelectorAll(".seat[data-seat]")].map((s) => ({
                seat: Number(s.dataset.seat), hand: s.getAttribute("data-hand"), count: Number(s.dataset.count),
                deal: Number(s.dataset.dealScore), total: Number(s.dataset.total)})),
              trick: trick ? trick.dataset.plays : null,
              cards: [...document.querySelectorAll("[data-card]")].map((c) => c.dataset.card),
              overflow: document.documentElement.scrollWidth - window.innerWidth,
            };
            """
        )
    )


def _names(cards: Any) -> str:
    return " ".join("23456789TJQKA"[c >> 2] + "CDHS"[c & 3] for c in cards)


@pytest.mark.parametrize("kind", ["kierki", "hearts", "cancellation6", "kierki3", "cancellation11"])
def test_the_page_shows_the_rules_cores_table_at_decision_n(
    browser: Any, viewer_logs: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    timeline = build_timeline(load(viewer_logs[kind]))
    page = tmp_path / f"{kind}.html"
    write_html(timeline, page)
    browser.get(page.as_uri())
    players = timeline.ruleset.players
    total = len(timeline.decisions)
    picks = sorted({0, 1, players + 3, total // 3, total // 2, (2 * total) // 3, total - 1})
    for n in picks:
        _go(browser, n)
        shown = _read(browser)
        state = _state_after(timeline, n)
        obs = state.observation(0)
        assert shown["position"] == n and shown["viewer"] == "all"
        assert shown["deal"] == obs.deal
        for row in shown["seats"]:
            seat = row["seat"]
            hand = sorted(state.hand(seat), key=lambda c: (c & 3, c >> 2))
            if state.phase is not Phase.TRUMP:
                assert row["hand"] == _names(hand), f"decision {n}, seat {seat}"
            assert row["count"] == len(hand)
            assert (row["deal"], row["total"]) == (obs.deal_scores[seat], obs.totals[seat])
        if not state.is_over:
            assert shown["toAct"] == str(state.to_act)
            if obs.kind.value != "lottery":
                assert (shown["trick"] or "") == " ".join(f"{s}:{_names([c])}" for s, c in obs.trick)
        # A seat's view: no other hand, and no card of another hand anywhere on the page that it could not know.
        viewer = n % players
        if viewer <= 9:
            _press(browser, str(viewer))
        else:
            from selenium.webdriver.support.ui import Select

            Select(browser.find_element("id", "viewer")).select_by_value(str(viewer))
        seen = _read(browser)
        assert seen["viewer"] == str(viewer) and seen["position"] == n
        assert all(row["hand"] is None for row in seen["seats"] if row["seat"] != viewer)
        index = int(browser.execute_script("return Number(document.getElementById('table').dataset.step)"))
        others, known = hidden_and_known(timeline, index, viewer)
        leaked = ({card_id(c) for c in seen["cards"]} & others) - known
        assert not leaked, f"seat {viewer} at decision {n} sees {_names(sorted(leaked))}"
        _press(browser, "a")
    # Step keys move one step, a trick, a deal; the slider and the decision number agree.
    _go(browser, 0)
    _press(browser, "\ue014")  # the right arrow
    assert _read(browser)["position"] == 1
    _press(browser, "}")
    assert _read(browser)["deal"] == 2 or len(timeline.deal_numbers()) == 1
    # A screenshot for a person to look at, wide and at a phone's width.
    ARTIFACTS.mkdir(exist_ok=True)
    _go(browser, total // 2)
    wide = ARTIFACTS / f"replay-{kind}.png"
    _screenshot(browser, wide, 1200)
    phone = ARTIFACTS / f"replay-{kind}-phone.png"
    overflow = _screenshot(browser, phone, 390)
    assert overflow <= 0, f"the page is {overflow}px wider than a phone's screen"
    print(f"screenshots: {wide} {phone}")


def _screenshot(driver: Any, path: Path, width: int) -> int:
    driver.set_window_size(width, 900)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.set_window_size(width, min(height + 120, 4000))
    overflow = int(driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth"))
    driver.save_screenshot(str(path))
    driver.set_window_size(1200, 900)
    return overflow


def test_bot_text_is_shown_as_text(browser: Any, tmp_path: Path) -> None:
    """A bot named with markup, an escape and a bidi override: shown literally, the override as an escape."""
    from html_helpers import HOSTILE_NAME

    log = write_game(tmp_path / "hostile.replay.jsonl", "hearts", None, 5, {"target": 20}, names=[HOSTILE_NAME] * 4)
    page = tmp_path / "hostile.html"
    write_html(build_timeline(load(log)), page)
    browser.get(page.as_uri())
    found = browser.execute_script(
        """
        return {
          bold: document.querySelectorAll("b").length,
          scripts: document.querySelectorAll("script").length,
          name: document.querySelector(".seat .name").textContent,
          option: document.querySelector("#viewer option[value='1']").textContent,
          alerted: typeof window.x !== "undefined",
        };
        """
    )
    assert found["bold"] == 0 and found["scripts"] == 2  # the data and the page's own script, nothing more
    assert found["name"].startswith('</script><script>alert("x")</script><b>bold</b> & \\u001b[2J \\u202eevil')
    assert "\u202e" not in found["name"] and "\x1b" not in found["name"]
    assert found["option"].startswith("seat 1: </script>")
