"""The replay page with an analysis (``kierki analyse --html``) in a real headless browser (Debian's chromium driven
by selenium): each decision's evaluation in the step view, shown only with all hands or in the deciding seat's own
view (its choices are its legal cards); the classed losses marked along the game; each seat's cumulative loss
charted. A screenshot goes to tests/artifacts/ (git-ignored). Skipped, with the reason, without chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import headless_chromium

from referee.analysis import AnalysisSettings, analyse_log, write_analysed_html

HEARTS = Path(__file__).parent / "golden" / "hearts-target30-seed5.replay.jsonl"
ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with headless_chromium() as driver:
        yield driver


def _panel(driver: Any) -> dict[str, Any]:
    return dict(
        driver.execute_script(
            """
            const head = document.getElementById("analysis-head");
            return {
              step: Number(document.getElementById("table").dataset.step),
              decision: document.getElementById("analysis").dataset.decision,
              loss: head ? Number(head.dataset.loss) : null,
              grade: head ? head.dataset.grade : null,
              choices: [...document.querySelectorAll("#analysis-choices tr[data-choice]")].map((r) => r.dataset.choice),
              chosen: [...document.querySelectorAll("#analysis-choices tr.chosen")].map((r) => r.dataset.choice),
              text: document.getElementById("analysis").textContent,
              marks: [...document.querySelectorAll("#loss-strip .mark")].map((m) => Number(m.dataset.decision)),
              lines: [...document.querySelectorAll("#loss-chart polyline")].map((p) => Number(p.dataset.seat)),
              overflow: document.documentElement.scrollWidth - window.innerWidth,
            };
            """
        )
    )


def test_the_page_shows_each_decisions_analysis_its_losses_and_a_chart(browser: Any, tmp_path: Path) -> None:
    analysed = analyse_log(HEARTS, AnalysisSettings(playouts=16))
    page = tmp_path / "analysed.html"
    write_analysed_html(HEARTS, analysed, page)
    by_number = {d.decision: d for d in analysed.decisions}
    worst = max(analysed.decisions, key=lambda d: (d.loss, -d.decision))
    browser.get(f"{page.as_uri()}#decision={worst.decision}")
    shown = _panel(browser)
    assert shown["decision"] == str(worst.decision)
    assert shown["loss"] == pytest.approx(worst.loss) and shown["grade"] == (worst.grade or "")
    assert sorted(shown["choices"]) == sorted(c.choice for c in worst.choices)
    assert shown["chosen"] == [worst.chosen]
    graded = sorted(d.decision for d in analysed.decisions if d.grade and not d.fallback)
    assert sorted(shown["marks"]) == graded
    assert sorted(shown["lines"]) == [0, 1, 2, 3]
    # Another seat's view: not the decision's choices (they are the deciding seat's legal cards).
    other = (worst.seat + 1) % 4
    browser.get(f"{page.as_uri()}#decision={worst.decision}&view={other}")
    hidden = _panel(browser)
    assert hidden["choices"] == [] and f"seat {worst.seat}'s" in hidden["text"]
    browser.get(f"{page.as_uri()}#decision={worst.decision}&view={worst.seat}")
    assert sorted(_panel(browser)["choices"]) == sorted(c.choice for c in worst.choices)
    # A decision at a deal's end also shows the perfect-information column, apart.
    solved = next((d for d in analysed.decisions if d.perfect is not None), None)
    if solved is not None:
        browser.get(f"{page.as_uri()}#decision={solved.decision}")
        text = _panel(browser)["text"]
        assert "all cards known" in text and "kept apart" in text
    # A forced decision (one legal card) says it was not analysed.
    forced = next(n for n in range(analysed.summary.decisions) if n not in by_number)
    browser.get(f"{page.as_uri()}#decision={forced}")
    assert "not analysed" in _panel(browser)["text"]
    ARTIFACTS.mkdir(exist_ok=True)
    browser.get(f"{page.as_uri()}#decision={worst.decision}")
    for width, name in ((1200, "analysis-hearts.png"), (390, "analysis-hearts-phone.png")):
        browser.set_window_size(width, 900)
        height = int(browser.execute_script("return document.documentElement.scrollHeight"))
        browser.set_window_size(width, min(height + 120, 4000))
        assert _panel(browser)["overflow"] <= 0, f"the page is wider than {width}px"
        browser.save_screenshot(str(ARTIFACTS / name))
    browser.set_window_size(1200, 900)
