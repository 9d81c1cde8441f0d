"""The documentation site (mkdocs.yml, docs/, issue 36): it builds strictly, its CLI reference covers every command,
its examples run, its example outputs are what the tools print, the README stays a screenful, and the built site
looks right in a real browser (screenshots in tests/artifacts/, git-ignored, for a person to look at).

The site is built once per run (``site`` fixture), into a temporary folder; the tests that need it are skipped with
the reason where the ``docs`` extra is not installed (``pip install -e '.[docs]'``; ``.ci/run`` installs it).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from kierki_cli.entry import cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
ARTIFACTS = Path(__file__).parent / "artifacts"


def _tool(name: str) -> ModuleType:
    """A module of tools/ by its path (``tools`` is also the name of tests/tools, which the tests' path finds first)."""
    return _tool_at(ROOT / "tools" / f"{name}.py")


def _tool_at(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"kierki_docs_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


docs_examples = _tool("docs_examples")
mkdocs_hooks = _tool("mkdocs_hooks")

pytestmark = pytest.mark.xdist_group("docs_site")

# The pages whose shell blocks must each be marked as run by a named test or as illustrative (issue 36 item 5): the
# tutorials and the organisers' pages. A page written later joins the list when its blocks are marked.
MARKED_PAGES = [
    "bots/tutorial.md",
    "bots/library.md",
    "bots/montecarlo.md",
    "organisers/matches.md",
    "organisers/tournaments.md",
    "organisers/ladder.md",
    "organisers/operations.md",
    "organisers/isolation.md",
    "organisers/dask.md",
    "development.md",
]
_MARK = re.compile(r"^<!-- example: (illustrative|run (tests/\S+\.py)::(\w+)) -->$")


def _need_docs_extra() -> None:
    for module in ("mkdocs", "material", "mkdocs_click", "mkdocstrings"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[docs]'; .ci/run does)")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `mkdocs build --strict` makes it (a warning fails the build, and so this fixture)."""
    _need_docs_extra()
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


def _commands(args: list[str]) -> list[str]:
    """The commands `kierki ARGS --help` lists under "Commands:"."""
    result = CliRunner().invoke(cli, [*args, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    listing = result.output.split("Commands:", 1)[1]
    return [line.split()[0] for line in listing.splitlines() if line.startswith("  ") and line.strip()]


def test_the_cli_reference_has_a_section_for_every_command(site: Path) -> None:
    page = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<h[1-6] id="([^"]+)"', page))
    top, ladder = _commands([]), _commands(["ladder"])
    assert {"match", "tournament", "ladder"} <= set(top), top
    assert {"init", "add", "run", "site"} <= set(ladder), ladder
    missing = [f"kierki {c}" for c in top if f"kierki-{c}" not in anchors]
    missing += [f"kierki ladder {c}" for c in ladder if f"kierki-ladder-{c}" not in anchors]
    assert not missing, f"no section in the CLI reference for: {', '.join(missing)}"
    assert "Sentinel" not in page, "an option without a default shown as click's sentinel"
    # Each section holds the command's options as --help gives them: one option of each checked by name.
    for anchor, option in (("kierki-match", "--time-per-move"), ("kierki-ladder-run", "--budget")):
        section = re.split(r"<h[1-6] id=", page.split(f'id="{anchor}"', 1)[1], maxsplit=1)[0]
        assert option in section, f"the section {anchor} does not list {option}"


def test_the_generated_parts_are_in_the_built_pages(site: Path) -> None:
    hearts = (site / "rules" / "hearts" / "index.html").read_text(encoding="utf-8")
    assert "qs_breaks_hearts" in hearts and "moon_default" in hearts  # the options table, from the code
    protocol = (site / "protocol" / "index.html").read_text(encoding="utf-8")
    assert "The kierki bot protocol" in protocol and "kierki:include" not in protocol
    schemas = (site / "reference" / "schemas" / "index.html").read_text(encoding="utf-8")
    assert "PlayRequest" in schemas or "play" in schemas
    tutorial = (site / "bots" / "tutorial" / "index.html").read_text(encoding="utf-8")
    assert "illustrative: not run by the tests" in tutorial and "run by tests/test_docs.py::" in tutorial
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "pass_cards" in api  # the bot library's docstrings
    for page in site.rglob("*.html"):
        assert "<!-- kierki:" not in page.read_text(encoding="utf-8"), f"{page}: a directive left unexpanded"


def test_the_included_documents_link_to_the_sites_pages() -> None:
    text = "[REPLAY.md](REPLAY.md) and [the code](referee/bots/seat.py), [ids](#5-requests-answers-and-ids)"
    assert mkdocs_hooks._rewrite_links(text, "PROTOCOL.md", "protocol.md") == (
        "[REPLAY.md](replay.md) and the code (`referee/bots/seat.py`), [ids](#5-requests-answers-and-ids)"
    )
    section = mkdocs_hooks._rewrite_links("see [ids](#5-ids)", "PROTOCOL.md", "rules/hearts.md")
    assert section == "see [ids](../protocol.md#5-ids)"
    text = "# Doc\n## 10. Games\n### Hearts\nrules\n#### Moon\nshoot\n### Cancellation\nother\n"
    assert mkdocs_hooks._section(text, "### Hearts", "X.md") == "## Hearts\nrules\n### Moon\nshoot\n"


def test_the_readme_fits_on_a_screen_and_no_page_is_too_long() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= 200, f"README.md has {len(readme)} lines; the issue allows 200"
    for page in [*DOCS.rglob("*.md"), ROOT / "PROTOCOL.md", ROOT / "REPLAY.md", ROOT / "SECURITY.md"]:
        lines = len(page.read_text(encoding="utf-8").splitlines())
        assert lines <= 1200, f"{page.relative_to(ROOT)} has {lines} lines; no page may pass 1,200"


def test_every_shell_block_of_the_tutorials_and_organiser_pages_is_run_or_marked_illustrative() -> None:
    unmarked: list[str] = []
    for name in MARKED_PAGES:
        lines = (DOCS / name).read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if line.strip() not in ("```sh", "```bash", "```console"):
                continue
            before = next((lines[i] for i in range(number - 1, -1, -1) if lines[i].strip()), "")
            mark = _MARK.match(before.strip())
            if mark is None:
                unmarked.append(f"docs/{name}:{number + 1}")
            elif mark.group(2):
                test_file = ROOT / mark.group(2)
                assert test_file.is_file(), f"docs/{name}:{number + 1} names {mark.group(2)}, which does not exist"
                assert f"def {mark.group(3)}(" in test_file.read_text(encoding="utf-8"), (
                    f"docs/{name}:{number + 1} names {mark.group(3)}, which {mark.group(2)} does not define"
                )
    assert not unmarked, "shell blocks marked neither `run TEST` nor `illustrative`: " + ", ".join(unmarked)


def _check_bot(*command: str) -> str:
    result = CliRunner().invoke(cli, ["check-bot", "--", *command])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_readme_bot_passes_check_bot(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", readme, re.DOTALL)
    assert code is not None, "README.md has no Python block"
    bot = tmp_path / "my_bot.py"
    bot.write_text(code.group(1), encoding="utf-8")
    assert "OK: " in _check_bot(sys.executable, str(bot))


def test_tutorial_bots_pass_check_bot(tmp_path: Path) -> None:
    assert "0 failed" in _check_bot(sys.executable, str(ROOT / "examples" / "tutorial_bot.py"))
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler: the tutorial's C bot is not built")
    binary = tmp_path / "tutorial_bot"
    subprocess.run(
        [compiler, "-O2", "-Wall", "-Werror", "-o", str(binary), str(ROOT / "examples" / "tutorial_bot.c")], check=True
    )
    assert "0 failed" in _check_bot(str(binary))


def test_the_replay_printout_example_is_what_kierki_prints() -> None:
    shown = (DOCS / "examples" / "replay.txt").read_text(encoding="utf-8")
    assert docs_examples.replay_example().rstrip("\n") + "\n" == shown, "run python tools/docs_examples.py replay"


def test_the_tournament_example_has_the_columns_kierki_prints_now(tmp_path: Path) -> None:
    shown = (DOCS / "examples" / "tournament.txt").read_text(encoding="utf-8").splitlines()
    assert shown[0] == docs_examples._shown(docs_examples.TOURNAMENT)
    bots = [f"{name}=sample:random" for name in "abcd"]
    options = ["--game", "hearts", "--option", "target=1", "--sets", "1", "--seed", "docs-columns", "--jobs", "1"]
    result = CliRunner().invoke(cli, ["tournament", *bots, *options, "--out", str(tmp_path / "tournament")])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if line.startswith("#  bot"))
    documented = next(line for line in shown if line.startswith("#  bot"))
    assert documented.split() == header.split(), "run python tools/docs_examples.py tournament"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_site_as_a_reader_sees_it(served: str) -> None:
    from browser_helpers import headless_chromium

    ARTIFACTS.mkdir(exist_ok=True)
    pages = {
        "home": ("/", "kierki"),
        "tutorial": ("/bots/tutorial/", "Tutorial: a bot from an empty file"),
        "cli-reference": ("/reference/cli/#kierki-match", "Command line"),
        "rules-hearts": ("/rules/hearts/", "Hearts"),
    }
    with headless_chromium(width=1280, height=900) as driver:
        from selenium.webdriver.common.by import By

        for name, (path, title) in pages.items():
            driver.get(served + path)
            heading = driver.find_element(By.CSS_SELECTOR, "article h1")
            assert heading.text.strip().rstrip("¶").strip() == title
            # the navigation lists every reader's section, with working links
            nav = driver.find_element(By.CSS_SELECTOR, "nav.md-nav--primary").get_attribute("textContent") or ""
            for section in ("Bot authors", "Organisers", "Viewers", "Rules", "Reference"):
                assert section in nav, f"{path}: the navigation lacks {section}"
            driver.save_screenshot(str(ARTIFACTS / f"docs-{name}.png"))
        # the search index was built and the CLI reference's table of options is there
        driver.get(served + "/reference/cli/")
        assert driver.find_elements(By.ID, "kierki-ladder-run")
        assert driver.find_elements(By.CSS_SELECTOR, "article table")


def test_the_benchmarks_page_renders_bench_run_lines_as_measured(tmp_path: Path) -> None:
    results_table = _tool_at(ROOT / "bench" / "results_table.py")
    (tmp_path / "a.json").write_text(
        '{"name": "hearts_vs_openspiel", "unit": "hands/s", "ours": 3960.1, "baseline": 21167.6, "ratio": 0.187, '
        '"better": "higher", "rules_build": "pure", "measured_at": "2026-12-06T04:20:19Z", "cpus": 2, '
        '"load_average_after": 7.89, "command": "python bench/run.py hearts_vs_openspiel", "repeat_ratios": [0.18]}\n'
        '{"name": "openspiel_drivers", "skipped": "pyspiel is not installed"}\n'
        '{"name": "games_hearts", "unit": "decisions/s", "ours": 140248.9, "baseline": null, "ratio": null}\n',
        encoding="utf-8",
    )
    page = results_table.render_results(tmp_path)
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `hearts_vs_openspiel` (pure) | 3,960 hands/s | 21,168 hands/s | **0.187**")
    assert "load 7.89" in rows[0] and "2026-12-06T04:20:19Z" in rows[0]
    assert rows[1].startswith("| `openspiel_drivers` | skipped: pyspiel is not installed")
    assert rows[2].startswith("| `games_hearts` | 140,249 decisions/s | none | – | not recorded")
    assert "python bench/run.py hearts_vs_openspiel\n" in page and "`repeat_ratios` | [0.18]" in page
    (tmp_path / "bad.json").write_text("not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json line 1"):
        results_table.load_results(tmp_path)


def test_the_match_example_has_the_columns_kierki_prints_now() -> None:
    shown = (DOCS / "examples" / "match.txt").read_text(encoding="utf-8").splitlines()
    made = docs_examples.match_example().splitlines()
    assert shown[0] == made[0], "run python tools/docs_examples.py match"
    header = [line.split() for line in made if line.startswith("place")]
    assert header and header == [line.split() for line in shown if line.startswith("place")]
    # The same deals and bots: the same places, seats, bots and totals (only ms/move differs from run to run).
    rows = [line.split()[:5] for line in made if line[:1].isdigit()]
    assert rows == [line.split()[:5] for line in shown if line[:1].isdigit()], "run python tools/docs_examples.py match"


def test_the_ladder_example_has_the_columns_kierki_prints_now(tmp_path: Path) -> None:
    shown = (DOCS / "examples" / "ladder.txt").read_text(encoding="utf-8").splitlines()
    assert shown[0] == docs_examples._shown(docs_examples.LADDER_STEPS[0])
    folder = str(tmp_path / "ladder")
    made = CliRunner().invoke(cli, ["ladder", "init", folder, "--game", "hearts", "--sandbox", "none"])
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(cli, ["ladder", "standings", folder])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if line.lstrip().startswith("#  bot"))
    documented = next(line for line in shown if line.lstrip().startswith("#  bot"))
    assert documented.split() == header.split(), "run python tools/docs_examples.py ladder"
