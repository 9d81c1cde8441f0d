"""Write the example outputs the documentation site shows (``docs/examples/``) from real runs of the tools, so a page
never shows a table or a printout the tools no longer print.

    python tools/docs_examples.py            # every example (the tournament takes about a minute)
    python tools/docs_examples.py replay     # one by name
    python tools/docs_examples.py screenshots  # docs/images/: the replay page and the ladder site in chromium

Each file starts with the command that made it (``$ kierki ...``), then what it printed; a path of the run's own
temporary folder is shown as the default output folder would be. ``tests/test_docs.py`` makes the replay printout
again and compares it whole, and checks that the tournament table's columns are the ones ``kierki tournament`` prints
now (rerunning the tournament itself is a minute of CPU: this script's job, not the suite's).
"""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXAMPLES = ROOT / "docs" / "examples"

TOURNAMENT = [
    "tournament",
    "heur=sample:heuristic",
    "rand=sample:random",
    "rand2=python3 sample_bots/random_bot.py --seed 2",
    "rand3=python3 sample_bots/random_bot.py --seed 3",
    "rand4=python3 sample_bots/random_bot.py --seed 4",
    "--game",
    "hearts",
    "--sets",
    "10",
    "--seed",
    "readme-round-robin",
]
REPLAY_MATCH = ["match", "--seed", "docs-example"]
REPLAY_SHOW = ["replay", "game001.replay.jsonl", "--deal", "1", "--letters"]


def _kierki(args: list[str], cwd: Path, *, stderr_too: bool = False) -> str:
    """What ``kierki ARGS`` prints on stdout (and stderr, interleaved, with ``stderr_too``), run through click in
    this process from ``cwd``."""
    import os

    from click.testing import CliRunner

    from kierki_cli.entry import cli

    before = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(before)
    if result.exit_code != 0:
        raise RuntimeError(f"kierki {shlex.join(args)} exited {result.exit_code}:\n{result.output}")
    return result.output if stderr_too else result.stdout


def _shown(args: list[str]) -> str:
    return "$ kierki " + " ".join(
        arg if arg.isidentifier() or arg.startswith("-") else shlex.quote(arg) for arg in args
    )


def tournament_example() -> str:
    with tempfile.TemporaryDirectory(prefix="kierki-docs-") as scratch:
        out = Path(scratch) / "tournament"
        printed = _kierki([*TOURNAMENT, "--out", str(out)], ROOT)
    printed = printed.replace(str(out), "kierki-out/tournament-20261201-105500")
    return f"{_shown(TOURNAMENT)}\n{printed}"


def match_example() -> str:
    with tempfile.TemporaryDirectory(prefix="kierki-docs-") as scratch:
        printed = _kierki([*REPLAY_MATCH, "--out", scratch], ROOT, stderr_too=True)
    printed = printed.replace(scratch, "kierki-out/20261206-120000")
    return f"{_shown(REPLAY_MATCH)}\n{printed}"


def replay_example() -> str:
    with tempfile.TemporaryDirectory(prefix="kierki-docs-") as scratch:
        folder = Path(scratch)
        _kierki([*REPLAY_MATCH, "--out", str(folder)], ROOT)
        printed = _kierki(REPLAY_SHOW, folder)
    return f"{_shown([*REPLAY_MATCH, '--out', 'm'])}\n$ cd m\n{_shown(REPLAY_SHOW)}\n{printed}"


LADDER_STEPS = [
    ["ladder", "init", "ladder", "--game", "hearts"],
    ["ladder", "add", "ladder", "heur", "--owner", "alice", "--", "python3", "sample_bots/heuristic_bot.py"],
    ["ladder", "add", "ladder", "rand", "--owner", "bob", "--", "python3", "sample_bots/random_bot.py"],
    [
        "ladder",
        "add",
        "ladder",
        "rand2",
        "--owner",
        "carol",
        "--",
        "python3",
        "sample_bots/random_bot.py",
        "--seed",
        "2",
    ],
    ["ladder", "add", "ladder", "heur2", "--owner", "dave", "--", "python3", "sample_bots/heuristic_bot.py"],
    ["ladder", "run", "ladder", "--sets", "6"],
]
LADDER_SHOW = ["ladder", "standings", "ladder"]


def ladder_example() -> str:
    """The ladder's standings after six sets; the ladder's folder is made beside a copy of the sample bots, so the
    commands read as they would from a checkout (needs what a ladder needs: bubblewrap and control groups)."""
    with tempfile.TemporaryDirectory(prefix="kierki-docs-") as scratch:
        folder = Path(scratch)
        shutil.copytree(ROOT / "sample_bots", folder / "sample_bots", ignore=shutil.ignore_patterns("__pycache__"))
        for step in LADDER_STEPS:
            _kierki(step, folder)
        printed = _kierki(LADDER_SHOW, folder)
    commands = "\n".join(_shown(step) for step in [*LADDER_STEPS, LADDER_SHOW])
    return f"{commands}\n{printed}"


def _screenshot(page: Path, fragment: str, out: Path, width: int = 1200, height: int = 800) -> None:
    """``page`` opened in headless chromium as the browser tests open pages (tests/browser_helpers.py)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/lib/chromium/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "chromedriver"))
    try:
        driver.set_window_size(width, height)
        driver.get(page.resolve().as_uri() + fragment)
        driver.save_screenshot(str(out))
    finally:
        driver.quit()


def screenshots_example() -> str:
    """docs/images/: the replay page of the example match at decision 40, and the ladder site of the ladder
    example (needs chromium, chromium-driver and selenium, as the browser tests do)."""
    images = ROOT / "docs" / "images"
    images.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kierki-docs-") as scratch:
        folder = Path(scratch)
        _kierki([*REPLAY_MATCH, "--out", str(folder)], ROOT)
        _kierki(["replay", "game001.replay.jsonl", "--html", "game001.html"], folder)
        _screenshot(folder / "game001.html", "#at=40", images / "replay-page.png")
        shutil.copytree(ROOT / "sample_bots", folder / "sample_bots", ignore=shutil.ignore_patterns("__pycache__"))
        for step in LADDER_STEPS:
            _kierki(step, folder)
        _kierki(["ladder", "site", "ladder", "www"], folder)
        _screenshot(folder / "www" / "index.html", "", images / "ladder-site.png")
    return "docs/images/replay-page.png and docs/images/ladder-site.png written"


MAKERS: dict[str, Callable[[], str]] = {
    "tournament": tournament_example,
    "match": match_example,
    "replay": replay_example,
    "ladder": ladder_example,
    "screenshots": screenshots_example,
}


def main(argv: list[str]) -> int:
    names = argv or list(MAKERS)
    unknown = [name for name in names if name not in MAKERS]
    if unknown:
        print(f"unknown example {', '.join(unknown)}; choose from: {', '.join(MAKERS)}", file=sys.stderr)
        return 2
    EXAMPLES.mkdir(exist_ok=True)
    for name in names:
        made = MAKERS[name]()
        if name == "screenshots":
            print(made)
            continue
        (EXAMPLES / f"{name}.txt").write_text(made.rstrip("\n") + "\n", encoding="utf-8")
        print(f"wrote docs/examples/{name}.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
