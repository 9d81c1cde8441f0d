"""A replay as one web page: every step of the game, for every viewer, drawn by a small script in the page.

The page decides nothing. Python computes, from the view model (``referee.replay.view.step_view``), what the
table shows at every step for the all-hands viewer and for each seat, and embeds it; the script only draws the
step and viewer it is asked for. So what a seat's view holds is decided where the terminal's is: by the rules
core's observation and projection, never by the page (a test reads the embedded data and checks that no seat's
view holds another seat's hidden card).

Compact data: each viewer's steps are stored as patches. A step's table is flattened to ``path -> value``
(``seats.3.hand``, ``trick.plays``, ``to_act``); the paths are listed once (``keys``) and a step stores only
``[key number, value, ...]`` for the paths whose value changed since the viewer's previous step (a list that
only grew at its end, such as the trick's plays, as ``{"+": [the new items]}``); the step's records are stored
once in a shared list and referred to by number. The page
rebuilds a step by applying the patches in order (`page_data` is the embedded object, `table_at` the same
rebuilding in Python, for tests and tools).

`write_html(timeline, path)` writes the page; `render_html(timeline)` returns it. The page is self-contained (its
data, style and script inline; it loads nothing) and its text is autoescaped by Jinja2; the JSON is embedded in a
``<script type="application/json">`` with ``<`` escaped, so a bot's name cannot end the script.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from referee.replay.records import DealEndRecord, DealRecord, TrickRecord
from referee.replay.timeline import Timeline
from referee.replay.view import KIND_NAMES, step_view

__all__ = ["page_data", "render_html", "table_at", "write_html"]


# Constant over a game, or shown elsewhere in the page: left out of each step's table.
_DROPPED = ("viewer", "game", "players", "decisions", "cards_per_hand", "deals", "records", "position", "decision")
_NOT_SHOWN_RECORD_FIELDS = ("ms",)  # a bot's thinking time: kept in the log, not needed to draw the table


def _flatten(value: dict[str, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, item in value.items():
        path = f"{prefix}{key}"
        if isinstance(item, dict):
            _flatten(item, f"{path}.", out)
        else:
            out[path] = item


def _flat_table(timeline: Timeline, index: int, viewer: int | None, records: dict[str, int]) -> dict[str, Any]:
    view = step_view(timeline, index, viewer)
    table: dict[str, Any] = msgspec.to_builtins(view)
    for key in _DROPPED:
        del table[key]
    table["seats"] = {str(row["seat"]): {k: v for k, v in row.items() if k != "seat"} for row in table["seats"]}
    numbers = []
    for shown in view.records:
        record = {k: v for k, v in shown.record.items() if k not in _NOT_SHOWN_RECORD_FIELDS}
        record["line"] = shown.line
        if shown.decision is not None:
            record["decision"] = shown.decision
        key = json.dumps(record, sort_keys=True, ensure_ascii=False)
        numbers.append(records.setdefault(key, len(records)))
    table["records"] = numbers
    flat: dict[str, Any] = {}
    _flatten(table, "", flat)
    return flat


def _change(before: Any, after: Any) -> Any:
    """A path's new value, or ``{"+": [...]}`` when it only grew at the end (a trick's plays, card by card)."""
    grew = isinstance(before, list | tuple) and isinstance(after, list | tuple) and 0 < len(before) < len(after)
    if grew and tuple(after[: len(before)]) == tuple(before):
        return {"+": after[len(before) :]}
    return after


def page_data(timeline: Timeline, file: str | None = None, analysis: dict[str, Any] | None = None) -> dict[str, Any]:
    """The object the page embeds: the game's facts, the shared records, and each viewer's steps as patches
    (viewer ``"all"`` for every hand, ``"0"``, ``"1"``, ... for each seat's view). ``file`` names the replay log
    in the page and its resume hint (default: the path it was read from; a published page gives a relative one).
    ``analysis`` (``referee.analysis.page_analysis``) adds each analysed decision's evaluation, drawn with it."""
    replay = timeline.replay
    header = replay.header
    players = timeline.ruleset.players
    frames = timeline.frames
    records: dict[str, int] = {}
    keys: dict[str, int] = {}
    views: dict[str, list[list[Any]]] = {}
    for viewer in (None, *range(players)):
        patches = []
        previous: dict[str, Any] = {}
        for index in range(len(frames)):
            flat = _flat_table(timeline, index, viewer, records)
            patch: list[Any] = []
            for key, value in flat.items():
                if key not in previous or previous[key] != value:
                    patch += [keys.setdefault(key, len(keys)), _change(previous.get(key), value)]
            for key in previous.keys() - flat.keys():  # e.g. last_trick.* once the last trick is gone
                if previous[key] is not None:
                    patch += [keys[key], None]
                    flat[key] = None
            patches.append(patch)
            previous = flat
        views["all" if viewer is None else str(viewer)] = patches
    trick_stops = [
        i
        for i, f in enumerate(frames)
        if i == 0 or f.closing or any(isinstance(e.record, TrickRecord | DealRecord) for e in f.entries)
    ]
    deal_stops = [i for d in timeline.deal_numbers() if (i := timeline.deal_frame(d)) is not None]
    deals = len(timeline.deal_numbers())
    scores = [
        {"step": i, "deal": r.deal, "scores": list(r.scores), "totals": list(r.totals), "early": r.early}
        for i, f in enumerate(frames)
        for r in f.records(DealEndRecord)
    ]
    data: dict[str, Any] = {
        "format": 1,
        "file": replay.name if file is None else file,
        "game": timeline.ruleset.game.value,
        "players": players,
        "seed": header.seed,
        "game_number": header.game_number,
        "deals": deals,
        "names": [replay.bot_name(seat) for seat in range(players)],  # the organiser's names, when it gave them
        "calls": [replay.calls_itself(seat) for seat in range(players)],  # the bots' own, beside the organiser's
        "decisions": len(timeline.decisions),
        "kinds": {kind.value: words for kind, words in KIND_NAMES.items()},
        "steps": [
            {
                "position": f.position,
                "decision": f.decision.index if f.decision is not None else None,
                "deal": f.deal,
                "closing": f.closing,
            }
            for f in frames
        ],
        "trick_stops": trick_stops,
        "deal_stops": deal_stops,
        "scores": scores,
        "kinds_by_deal": {
            str(r.deal): r.kind.value for e in replay.deal_entries() if isinstance(r := e.record, DealRecord)
        },
        "problem": None if timeline.problem is None else str(timeline.problem),
        "records": [json.loads(key) for key in records],
        "keys": list(keys),
        "views": views,
    }
    if analysis is not None:
        data["analysis"] = analysis
    return data


def table_at(data: dict[str, Any], viewer: str, index: int) -> dict[str, Any]:
    """The flat table of step ``index`` for ``viewer`` ("all" or a seat number), rebuilt from the patches as the
    page rebuilds it (a path that a later step no longer has reads as None)."""
    keys = data["keys"]
    table: dict[str, Any] = {}
    for patch in data["views"][viewer][: index + 1]:
        for at in range(0, len(patch), 2):
            key, value = keys[patch[at]], patch[at + 1]
            table[key] = [*table[key], *value["+"]] if isinstance(value, dict) else value
    return table


def _embedded_json(data: dict[str, Any]) -> str:
    """JSON safe inside a ``<script>`` element: no ``<`` (so no ``</script>`` or ``<!--``), no line separators."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        # U+2028/2029 are valid in JSON strings; escaped anyway so the text is safe in any script context.
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def render_html(
    timeline: Timeline,
    title: str | None = None,
    viewer: int | None = None,
    file: str | None = None,
    analysis: dict[str, Any] | None = None,
) -> str:
    """The page of ``timeline``: one self-contained HTML document, opening on ``viewer``'s view (None: all hands;
    the page still holds every view, and its address or selector shows another); ``file`` as in `page_data`."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(
        loader=PackageLoader("referee.replay", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    data = page_data(timeline, file, analysis)
    header = timeline.replay.header
    return environment.get_template("replay.html").render(
        title=title or f"{data['game']} game {header.game_number} ({data['players']} players, seed {header.seed})",
        data=data,
        data_json=_embedded_json(data),
        initial_view="all" if viewer is None else str(viewer),
    )


def write_html(
    timeline: Timeline,
    path: Path,
    title: str | None = None,
    viewer: int | None = None,
    file: str | None = None,
    analysis: dict[str, Any] | None = None,
) -> int:
    """Write the page of ``timeline`` to ``path``; returns its size in bytes."""
    text = render_html(timeline, title, viewer, file, analysis).encode()
    path.write_bytes(text)
    return len(text)
