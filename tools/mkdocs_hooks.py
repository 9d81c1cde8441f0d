"""The documentation site's generated parts (mkdocs.yml ``hooks``), filled in when a page is built so none of them
can drift from the code or from the root documents:

- ``<!-- kierki:include PATH -->``: a file of the repository, included as it is (PROTOCOL.md, REPLAY.md,
  SECURITY.md and docs/RULES.md stay the sources others edit; the site never holds a copy). Its links are
  rewritten for the page: a root document's link to another becomes the site's page, a link to any other file
  of the repository becomes its path as code (the site does not serve the source).
- ``<!-- kierki:include-text PATH [LANGUAGE] -->``: a file shown verbatim in a code block: the example bots that
  the tests run, and the example outputs that ``tools/docs_examples.py`` writes from real runs.
- ``<!-- kierki:run ARGS -->``: what ``kierki ARGS`` prints, run here through click (``options --markdown``,
  ``protocol schema``, ``replay-schema``): the tables and schemas are the command's own output.
- ``<!-- example: illustrative -->`` or ``<!-- example: run tests/FILE.py::TEST -->`` before a shell block: shown
  as the block's title (``tests/test_docs.py`` checks that every shell block of the tutorials and the organisers'
  pages has one, and that the test it names exists).
- ``<!-- kierki:benchmarks -->``: the figures of ``bench/results/*.json`` (raw ``bench/run.py`` output lines) as
  tables, by ``bench/results_table.py``.
"""

from __future__ import annotations

import importlib.util
import posixpath
import re
import shlex
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# A root document's name -> its page on the site (relative to docs/).
SITE_PAGES = {
    "PROTOCOL.md": "protocol.md",
    "REPLAY.md": "replay.md",
    "SECURITY.md": "security.md",
    "BENCHMARKS.md": "benchmarks.md",
    "README.md": "index.md",
    "docs/RULES.md": "rules/spec.md",
}

_DIRECTIVE = re.compile(r"^<!-- kierki:(include-text|include|run|benchmarks)\b\s*(.*?)\s*-->$", re.MULTILINE)
_HEADING = re.compile(r"^(#+) ")
_EXAMPLE = re.compile(r"^<!-- example: (.+?) -->\n(```\w+)$", re.MULTILINE)
_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")


def _section(text: str, heading: str, source: str) -> str:
    """The section of ``text`` whose heading line starts with ``heading``, to the next heading of its level or
    above, its headings shifted so that it starts at level 2."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    if start is None:
        raise ValueError(f"{source} has no heading starting with {heading!r}")
    level = len(heading) - len(heading.lstrip("#"))
    end, fenced = len(lines), False
    for i in range(start + 1, len(lines)):
        fenced ^= lines[i].startswith("```")
        found = _HEADING.match(lines[i])
        if not fenced and found and len(found.group(1)) <= level:
            end = i
            break
    shifted, fenced = [], False
    for line in lines[start:end]:
        fenced ^= line.startswith("```")
        found = _HEADING.match(line)
        if found and not fenced:
            line = "#" * max(2, len(found.group(1)) - level + 2) + line[len(found.group(1)) :]
        shifted.append(line)
    return "\n".join(shifted) + "\n"


def _rewrite_links(text: str, source: str, page: str) -> str:
    """The links of ``source`` (a path relative to the repository) made right for the site's ``page``: a link to
    an anchor of ``source`` itself points at ``source``'s page when ``page`` is another one."""
    source_dir = posixpath.dirname(source)
    page_dir = posixpath.dirname(page)

    def fix(match: re.Match[str]) -> str:
        label, target, anchor = match.group(1), match.group(2), match.group(3) or ""
        if re.match(r"^[a-z]+:", target):
            return match.group(0)  # an address: https:, mailto:
        in_repo = posixpath.normpath(posixpath.join(source_dir, target))
        site_page = SITE_PAGES.get(in_repo)
        if site_page is None and in_repo.startswith("docs/") and in_repo.endswith(".md"):
            site_page = in_repo.removeprefix("docs/")  # a page of the site itself
        if site_page is not None:
            return f"[{label}]({posixpath.relpath(site_page, page_dir or '.')}{anchor})"
        shown = in_repo.rstrip("/")
        return label if shown in label else f"{label} (`{shown}`)"

    text = _LINK.sub(fix, text)
    own_page = SITE_PAGES.get(source)
    if own_page is not None and own_page != page:
        own = posixpath.relpath(own_page, page_dir or ".")
        text = re.sub(r"(?<!!)\]\((#[^)\s]+)\)", lambda m: f"]({own}{m.group(1)})", text)
    return text


def _results_table() -> Any:
    """bench/results_table.py, loaded by its path (mkdocs's plugins may have changed sys.path by now)."""
    spec = importlib.util.spec_from_file_location("kierki_bench_results_table", ROOT / "bench" / "results_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_kierki(args: list[str]) -> str:
    from click.testing import CliRunner

    from kierki_cli.entry import cli

    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    if result.exit_code != 0:
        raise RuntimeError(f"kierki {shlex.join(args)} exited {result.exit_code}: {result.output}")
    return result.output


def _expand(markdown: str, page: str) -> str:
    def directive(match: re.Match[str]) -> str:
        kind, argument = match.group(1), match.group(2)
        if kind == "include":
            path, *heading = shlex.split(argument)
            text = (ROOT / path).read_text(encoding="utf-8")
            if heading:
                text = _section(text, heading[0], path)
            return _rewrite_links(text, path, page)
        if kind == "include-text":
            path, _, language = argument.partition(" ")
            text = (ROOT / path).read_text(encoding="utf-8").rstrip("\n")
            return f"```{language or 'text'}\n{text}\n```"
        if kind == "run":
            args = shlex.split(argument)
            output = _run_kierki(args).rstrip("\n")
            if "--markdown" in args:
                return output
            language = "json" if "schema" in argument else "text"
            return f"```{language}\n{output}\n```"
        return _results_table().render_results(ROOT / "bench" / "results")

    markdown = _DIRECTIVE.sub(directive, markdown)
    return _EXAMPLE.sub(_titled, markdown)


def _titled(match: re.Match[str]) -> str:
    """A shell block's mark (tests/test_docs.py checks every one) shown to the reader as the block's title."""
    mark, fence = match.group(1), match.group(2)
    title = "illustrative: not run by the tests" if mark == "illustrative" else f"run by {mark.removeprefix('run ')}"
    return f'{fence} title="{title}"'


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return _expand(markdown, page.file.src_uri)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    # click 8.3 marks an option without a default by a sentinel, which mkdocs-click prints as it is.
    return html.replace("<code>Sentinel.UNSET</code>", "–")


def on_config(config: Any) -> Any:
    # `mkdocs serve` rebuilds when a source of the generated parts changes.
    watch = config.setdefault("watch", [])
    for source in ("PROTOCOL.md", "REPLAY.md", "SECURITY.md", "bench/results"):
        path = str(ROOT / source)
        if path not in watch and (ROOT / source).exists():
            watch.append(path)
    return config
