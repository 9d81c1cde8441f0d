"""The ladder's site in a real headless browser (Debian's chromium driven by selenium and chromedriver): the
standings rows, the links to every bot's page, the rating plot loaded as an image, the replay links.

Skipped, with the reason, where selenium, chromium or chromedriver is missing (``.ci/run`` installs them)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import headless_chromium

import sample_bots
from competition.ladder.config import BotSettings, LadderConfig, RunSettings
from competition.ladder.ladder import add_bot, init_ladder
from competition.ladder.run import run_ladder
from competition.ladder.site import write_site
from competition.ladder.store import Store
from referee.bots.isolation import Isolation

SAMPLES = Path(sample_bots.__file__).parent


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with headless_chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("ladder-site")
    folder = base / "ladder"
    config = LadderConfig(
        game="hearts",
        players=4,
        options={"target": "10"},
        isolation=Isolation(sandbox="none"),
        run=RunSettings(jobs=2, pin=False, plan_ahead=2),
        bots=BotSettings(validation=False),
    )
    init_ladder(folder, config)
    bots = (("heur", "heuristic_bot.py"), ("rand", "random_bot.py"), ("rand2", "random_bot.py"))
    for name, program in (*bots, ("rand3", "random_bot.py")):
        add_bot(folder, name, [sys.executable, str(SAMPLES / program)], cwd=base)
    assert run_ladder(folder, sets=3).sets_played == 3
    out = base / "www"
    with Store.open(folder / "ladder.sqlite") as store:
        write_site(folder, store, out)
    return out


def test_the_standings_rows_links_and_plots_in_a_browser(browser: Any, site: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get((site / "index.html").as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tr.bot-row")
    assert len(rows) == 4
    names = [row.find_element(By.CSS_SELECTOR, "td.name a").text for row in rows]
    assert sorted(names) == ["heur@1", "rand2@1", "rand3@1", "rand@1"]
    pages = [row.find_element(By.CSS_SELECTOR, "td.name a").get_attribute("href") for row in rows]
    for page in pages:
        browser.get(page)
        assert browser.find_element(By.TAG_NAME, "h1").text in names
        plot = browser.find_element(By.ID, "rating-plot")
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", plot) > 100
        replays = browser.find_elements(By.CSS_SELECTOR, "#recent-sets a.replay")
        assert replays
        href = replays[0].get_attribute("href")
        assert href.startswith("file://") and href.endswith(".html")
        logs = browser.find_elements(By.CSS_SELECTOR, "#recent-sets a.replay-log")
        assert len(logs) == len(replays)
        browser.get(href)  # the replay page (referee.replay.html) opens and names its set and game
        assert browser.title.startswith("set ")
        browser.back()
    browser.get((site / "index.html").as_uri())
    browser.find_element(By.LINK_TEXT, "Head to head").click()
    cells = browser.find_elements(By.CSS_SELECTOR, "#head-to-head td")
    assert any("%" in cell.text for cell in cells)
