"""What the top-level help is made of, and the exit statuses: standard library only, so that ``kierki --help``
(`kierki_cli.launch`, the installed script) prints it without importing click, from the same table the click group
lists (`kierki_cli.entry`). `render_help` writes that help as click writes the group's: click stays the reference,
and ``tests/test_cli.py`` checks that the two outputs are identical at several terminal widths.
"""

from __future__ import annotations

import contextlib
import enum
import gc
import os
import sys
from collections.abc import Iterator, Sequence

__all__ = [
    "COMMANDS",
    "DESCRIPTION",
    "HELP_ARGS",
    "MAX_WIDTH",
    "OPTIONS",
    "VERSION_ARGS",
    "ExitStatus",
    "gc_paused",
    "help_width",
    "render_help",
    "run_as_script",
    "short_help",
]


class ExitStatus(enum.IntEnum):
    """Every kierki command's exit status (docs/index.md, "Exit statuses"); named here, the module even ``--help`` loads
    (``enum`` is loaded by Python's own start already)."""

    OK = 0  # it did its work (a match ran, whatever the bots did)
    FAILED = 1  # it could not do its work (a bot that cannot start, a bad deal file, a check-bot failure)
    USAGE = 2  # a mistake on the command line (click's convention)
    INTERRUPTED = 130  # Ctrl-C, SIGTERM or SIGHUP (the shell's 128 + SIGINT), after what was finished is kept


# name -> (module, attribute, the short help `kierki --help` shows)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "analyse": (
        "kierki_cli.analyse_cmd",
        "analyse",
        "Evaluate every decision of a replay log: what each legal choice was worth to the seat, from what it knew.",
    ),
    "check-bot": (
        "kierki_cli.checkbot_cmd",
        "check_bot",
        "Check that a bot speaks the protocol (PROTOCOL.md) before it plays a match.",
    ),
    "ladder": (
        "kierki_cli.ladder_cmd",
        "ladder",
        "A ladder run from cron: bots are added, sets planned, played and rated, a standings site written.",
    ),
    "match": ("kierki_cli.main", "match", "Play a match between bots and print the result table."),
    "options": ("kierki_cli.main", "options", "List every rule option with its default and what it means."),
    "play": (
        "kierki_cli.play",
        "play",
        "Take a seat at the table against bots (the sample bots by default), in the terminal.",
    ),
    "protocol": ("kierki_cli.main", "protocol", "The wire protocol (PROTOCOL.md)."),
    "replay": (
        "kierki_cli.replay_cmd",
        "replay",
        "Show a game's replay log (gameNNN.replay.jsonl), step through it, or verify it.",
    ),
    "replay-schema": (
        "kierki_cli.replay_cmd",
        "replay_schema",
        "Print the JSON Schema of a replay log's records (REPLAY.md); the same text as referee/replay/schema.json.",
    ),
    "sprt": (
        "kierki_cli.tournament_cmd",
        "sprt",
        "Is the new version better than the old? A sequential probability ratio test on paired sets.",
    ),
    "tournament": (
        "kierki_cli.tournament_cmd",
        "tournament",
        "Play a tournament of duplicate sets and print the standings.",
    ),
}

DESCRIPTION = """A referee for bot competitions in Polish Kierki and the Hearts family.

Start with `kierki match`: a full 4-player Kierki match between the sample bots.
"""

# The group's own options as its help lists them (`kierki_cli.entry` derives its rows from the real options).
OPTIONS: tuple[tuple[str, str], ...] = (
    ("--version", "Show the version and exit."),
    ("-h, --help", "Show this message and exit."),
)
HELP_ARGS: tuple[tuple[str, ...], ...] = (("--help",), ("-h",))
VERSION_ARGS: tuple[str, ...] = ("--version",)
MAX_WIDTH = 110  # the group's max_content_width


_in_script = False  # this process is the kierki command (not a test, not a program embedding it): `run_as_script`


def run_as_script() -> None:
    """Mark this process as the ``kierki`` script (`kierki_cli.launch.main`): `gc_paused` then freezes what it
    imported."""
    global _in_script
    _in_script = True


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection for the block (a big import): the objects an import makes are nearly all kept,
    so the collections their number would set off find nothing. In the ``kierki`` script they are then frozen (the
    permanent generation), so no later collection walks them either: together about 5-8 ms of CPU per match. The
    collector's previous state is restored after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _in_script:
            gc.freeze()
        if enabled:
            gc.enable()


def help_width(max_width: int = MAX_WIDTH) -> int:
    """The text width click's help formatter would take: the terminal's columns (``COLUMNS`` first, as
    ``shutil.get_terminal_size`` reads them; 80 when unknown), at most ``max_width``, less 2, at least 50."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return max(min(columns, max_width) - 2, 50)


def render_help(prog: str, width: int, options: Sequence[tuple[str, str]], commands: Sequence[tuple[str, str]]) -> str:
    """The top-level help in click's layout (usage, description, options, commands), without a final newline.

    ``commands`` are (name, short help) pairs; each short help is shortened to fit one line.
    """
    import textwrap  # only here: `main` needs it for --help alone

    def wrap(text: str, at: int, first: str = "", rest: str = "") -> list[str]:
        # As click wraps: whitespace kept as given (replace_whitespace=False), words broken where too long.
        wrapper = textwrap.TextWrapper(at, initial_indent=first, subsequent_indent=rest, replace_whitespace=False)
        return wrapper.wrap(text)

    prefix = f"Usage: {prog} "
    args = "[OPTIONS] COMMAND [ARGS]..."
    if width >= len(prefix) + 20:
        lines = wrap(args, width, prefix, " " * len(prefix))
    else:
        lines = [prefix, *wrap(args, width, " " * (len("Usage: ") + 4), " " * (len("Usage: ") + 4))]
    for paragraph in DESCRIPTION.strip().split("\n\n"):
        lines += ["", *wrap(" ".join(paragraph.split("\n")), width, "  ", "  ")]
    lines += ["", "Options:", *_definitions(options, width)]
    limit = width - 6 - max(len(name) for name, _ in commands)
    shortened = [(name, short_help(text, limit)) for name, text in commands]
    lines += ["", "Commands:", *_definitions(shortened, width)]
    return "\n".join(lines)


def _definitions(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    """Two columns indented by 2, as click's ``HelpFormatter.write_dl``: terms up to 30 wide, 2 spaces apart."""
    import textwrap

    first_col = min(max(len(term) for term, _ in rows), 30) + 2
    text_width = max(width - first_col - 2, 10)
    lines = []
    for term, text in rows:
        wrapped = textwrap.TextWrapper(text_width, replace_whitespace=False).wrap(text) or [""]
        if len(term) <= first_col - 2:
            lines.append(f"  {term}".ljust(first_col + 2) + wrapped[0])
        else:
            lines += [f"  {term}", " " * (first_col + 2) + wrapped[0]]
        lines += [" " * (first_col + 2) + line for line in wrapped[1:]]
    return [line.rstrip() for line in lines]


def short_help(text: str, limit: int) -> str:
    """A command's help cut to its first sentence and then to ``limit`` characters, ending in "..." when cut."""
    words = text.partition("\n\n")[0].split()
    for i, word in enumerate(words):
        if word.endswith(".") and (i == len(words) - 1 or not words[i + 1][0].islower()):
            words = words[: i + 1]
            break
    shown = " ".join(words)
    if len(shown) <= limit:
        return shown
    if limit < 3:
        return "..."
    import textwrap

    return textwrap.shorten(shown, limit, placeholder="...", break_on_hyphens=False)
