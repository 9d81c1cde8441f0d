"""The benchmarks page's figures, rendered from the raw output of ``bench/run.py`` kept in ``bench/results/``.

Each ``bench/results/<name>.json`` holds the JSON lines ``bench/run.py`` printed (one object a line, as printed:
save them with ``python bench/run.py NAME | tee bench/results/NAME.json``). The site's hook
(``tools/mkdocs_hooks.py``) calls ``render_results`` for the ``<!-- kierki:benchmarks -->`` of
``docs/benchmarks.md``, so the page shows the figures as measured, never as typed. ``python bench/results_table.py``
prints the same Markdown.

A line without ``measured_at`` or ``command`` (written before ``bench/run.py`` recorded them) is shown with what it
has: the cells it lacks say ``not recorded``.
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["load_results", "render_results"]

_NOT_RECORDED = "not recorded"
# Fields shown in the table's own columns; every other field of a line is its context, listed under it.
_COLUMNS = {"name", "unit", "ours", "baseline", "ratio", "better", "measured_at", "command", "skipped"}
_MACHINE = ("cpu_model", "cpus", "load_average_after")


def load_results(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every result line of every ``*.json`` in ``folder``, with the file's name, files in name order."""
    results: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(folder.glob("*.json")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path.name} line {number} is not a JSON object: {error.msg}") from None
            if not isinstance(record, dict) or "name" not in record:
                raise ValueError(f"{path.name} line {number} is not a bench/run.py result (no name)")
            results.append((path.name, record))
    return results


def _number(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return _NOT_RECORDED if value is None else str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value == 0:
            return "0"
        magnitude = abs(value)
        if magnitude >= 1000:
            return f"{value:,.0f}"
        if magnitude >= 10:
            return f"{value:.1f}"
        if magnitude >= 0.01:
            return f"{value:.3g}"
        return f"{value:.2e}"
    return _cell(str(value))


def _cell(text: str) -> str:
    return html.escape(text).replace("|", "\\|").replace("\n", " ")


def _machine(record: dict[str, Any]) -> str:
    parts = []
    if record.get("cpu_model"):
        parts.append(str(record["cpu_model"]))
    if record.get("cpus"):
        parts.append(f"{record['cpus']} CPUs")
    load = record.get("load_average_after", record.get("load_average"))
    if load is not None:
        parts.append(f"load {load}")
    return _cell(", ".join(parts)) if parts else _NOT_RECORDED


def render_results(folder: Path) -> str:
    """The Markdown of the figures in ``folder``: one summary table, then each line's command and context."""
    results = load_results(folder) if folder.is_dir() else []
    if not results:
        return f"*No results in `bench/results/` yet: {_NOT_RECORDED}.*"
    rows = [
        "| benchmark | ours | baseline | ratio | measured | machine |",
        "|---|---|---|---|---|---|",
    ]
    details: list[str] = []
    for file_name, record in results:
        name = _cell(str(record["name"]))
        build = record.get("rules_build") or record.get("referee_build")
        label = f"`{name}`" + (f" ({_cell(str(build))})" if build else "")
        when = _cell(str(record.get("measured_at", _NOT_RECORDED)))
        if "skipped" in record:
            rows.append(f"| {label} | skipped: {_cell(str(record['skipped']))} | | | {when} | {_machine(record)} |")
            continue
        unit = _cell(str(record.get("unit", "")))
        ratio = _number(record.get("ratio"))
        better = record.get("better")
        ratio_cell = f"**{ratio}**" + (f" ({_cell(str(better))} is better)" if better else "")
        if record.get("baseline") is None:
            baseline_cell, ratio_cell = "none", "–"
        else:
            baseline_cell = f"{_number(record['baseline'])} {unit}"
        rows.append(
            f"| {label} | {_number(record.get('ours'))} {unit} | {baseline_cell} | {ratio_cell} | {when} | "
            f"{_machine(record)} |"
        )
        context = {key: value for key, value in record.items() if key not in _COLUMNS and key not in _MACHINE}
        command = record.get("command", _NOT_RECORDED)
        details.append(f"### `{name}`" + (f" ({_cell(str(build))})" if build else ""))
        details.append("")
        details.append(f"From `bench/results/{_cell(file_name)}`. Measured with:")
        details.append("")
        details.append(f"```sh\n{command}\n```")
        details.append("")
        if context:
            details.append("| field | value |")
            details.append("|---|---|")
            for key, value in sorted(context.items()):
                shown = json.dumps(value) if isinstance(value, list | dict) else _number(value)
                details.append(f"| `{_cell(key)}` | {_cell(shown) if isinstance(value, list | dict) else shown} |")
            details.append("")
    return "\n".join([*rows, "", "## Each figure's command and context", "", *details]).rstrip() + "\n"


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "results"
    sys.stdout.write(render_results(folder))
