"""One declaration per option that several commands take (issue 31): `shared_option` makes each, with one help
text that a command's variant may only add to (its own default); tests/test_shared_options.py walks every command
and fails on a second declaration. Here are the options of a run and of its output, which need nothing of the
referee (``kierki replay`` imports only click for them); the rules, the clock and the isolation, whose values the
referee's own types check, are declared with it in `kierki_cli.shared_options`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

__all__ = [
    "Decorator",
    "SharedOption",
    "html_option",
    "jobs_option",
    "json_option",
    "out_option",
    "seed_option",
    "sets_option",
    "shared_option",
    "symbols_option",
]

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


class SharedOption(click.Option):
    """An option of several commands, made by its one declaration (`shared_option`): ``base`` is its one help
    text, which a command's variant may only add to."""

    def __init__(self, param_decls: Sequence[str] | None = None, *, base: str, **attrs: Any) -> None:
        super().__init__(param_decls, **attrs)
        self.base = base


def shared_option(*param_decls: str, text: str, more: str = "", **attrs: Any) -> Decorator:
    """Declare an option that several commands take: ``text`` is its help; ``more`` what one command's variant adds
    to it (its own default); the rest is `click.option`'s."""
    return click.option(*param_decls, cls=SharedOption, base=text, help=text + more, **attrs)


# --- what a run writes, and where ---------------------------------------------------------------------------------

seed_option = shared_option(
    "--seed",
    default=None,
    text="The seed every deal (and a tournament's seating) derives from, any text [default: 128 random bits, printed]. "
    "A short seed can be found by a bot from its own cards: use one only for tests.",
)

out_option = shared_option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    text="Folder for what the run writes: replay logs, the bots' stderr logs, results "
    "[default: a folder under kierki-out/ named after the time].",
)

symbols_option = shared_option(
    "--symbols/--letters",
    default=None,
    text="Cards as 10♥ Q♠ or as letters (TH QS) [default: symbols on a terminal, letters otherwise].",
)


def json_option(what: str) -> Decorator:
    """``--json``: print ``what`` (one result object, a list of rows...) as JSON on stdout, instead of the text."""
    return shared_option("--json", "as_json", is_flag=True, text="Print JSON on stdout: ", more=what)


def html_option(what: str) -> Decorator:
    """``--html FILE``: write ``what`` (the game, its analysis) as one web page."""
    return shared_option(
        "--html",
        "html_out",
        type=click.Path(dir_okay=False, writable=True, path_type=Path),
        text="Write one self-contained web page to this file: ",
        more=what,
    )


def jobs_option(more: str, *, default: int | None = None, short: tuple[str, ...] = ()) -> Decorator:
    """``--jobs``: how many processes work at once; ``more`` says at what and the default the command takes."""
    return shared_option(
        "--jobs",
        *short,
        type=click.IntRange(1),
        default=default,
        show_default=default is not None,
        text="Processes working at once",
        more=more,
    )


def sets_option(more: str) -> Decorator:
    """``--sets``: duplicate sets to play; ``more`` says how the command counts them and its default."""
    return shared_option("--sets", type=click.IntRange(1), default=None, text="Duplicate sets to play", more=more)
