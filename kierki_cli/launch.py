"""The installed ``kierki`` script: the top-level help and the version at once, anything else through the click
group.

``kierki --help`` is the first thing a new user types and the command a script runs to see that kierki is there;
click's import alone takes about as long as starting Python. So this module imports nothing but the standard
library and `kierki_cli.command_table` (the commands' table, the description and the options, rendered as click
renders the group's help). ``kierki --version`` prints the version the same way, from ``referee.__version__``
(which pyproject installs). Every other command line goes to the click group, `kierki_cli.entry`.
"""

from __future__ import annotations

import gc
import os
import sys

from kierki_cli.command_table import (
    COMMANDS,
    HELP_ARGS,
    OPTIONS,
    VERSION_ARGS,
    ExitStatus,
    gc_paused,
    help_width,
    render_help,
    run_as_script,
)

__all__ = ["main"]


def main() -> None:
    """The ``kierki`` script: the top-level help and the version at once, anything else through the click group."""
    run_as_script()
    if tuple(sys.argv[1:]) in HELP_ARGS:
        rows = [(name, short) for name, (_, _, short) in sorted(COMMANDS.items())]
        _print(render_help(os.path.basename(sys.argv[0]), help_width(), OPTIONS, rows))
        return
    if tuple(sys.argv[1:]) == VERSION_ARGS:
        from referee import __version__  # the version pyproject installs (the package's __init__ holds only that)

        _print(f"{os.path.basename(sys.argv[0])}, version {__version__}")  # click's version message
        return
    with gc_paused():
        from kierki_cli.entry import cli

    try:
        cli()
    finally:
        # The garbage left is collected now (its finalizers run, its files are flushed), and everything still alive
        # goes to the permanent generation, which the interpreter's collections at exit skip: leaving Python after
        # a match then takes about 5 ms instead of 20. Objects are still freed and atexit handlers still run.
        gc.collect()
        gc.freeze()


def _print(text: str) -> None:
    """``text`` and a newline on stdout; a reader that left (``kierki --help | head -1``) ends it quietly, any other
    failure (a full disk) is one line on stderr and exit status 1, never a traceback."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except OSError as error:
        # Nothing more can reach stdout: point it at /dev/null so the interpreter's flush at exit fails no more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if not isinstance(error, BrokenPipeError):
            sys.stderr.write(f"Error: cannot write to stdout: {error.strerror or error}\n")
            sys.exit(ExitStatus.FAILED)
