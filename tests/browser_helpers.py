"""A real headless browser for the tests of web pages: Debian's chromium driven by selenium and chromedriver.

``headless_chromium()`` skips the calling test, with the reason, where selenium, chromium or chromedriver is
missing (``.ci/run`` installs them). Used by the replay page's and the ladder site's browser tests."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or (name if Path(name).is_file() else None)
        if found:
            return found
    return None


@contextlib.contextmanager
def headless_chromium(width: int = 1200, height: int = 900) -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    chromium = _find("chromium", "chromium-browser", "/usr/lib/chromium/chromium")
    driver_path = _find("chromedriver", "/usr/lib/chromium/chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("chromium or chromedriver is missing (apt-get install chromium chromium-driver; .ci/run does)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-dev-shm-usage",
    ):
        options.add_argument(flag)
    with tempfile.TemporaryDirectory(prefix="kierki-chromium-") as profile:
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(options=options, service=Service(driver_path))
        try:
            driver.set_window_size(width, height)
            yield driver
        finally:
            driver.quit()
