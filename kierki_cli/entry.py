"""The ``kierki`` command group, each command imported only when it runs.

The installed script is `kierki_cli.launch.main`, which prints ``kierki --help`` and ``--version`` itself, without
importing click (a copy of click's rendering of this group's help, checked against click's own output by
``tests/test_cli.py`` at several widths), and hands every other command line to ``cli`` here, which click renders
and parses. The group's help imports click and this module alone: the short help of each command is written in
`kierki_cli.command_table.COMMANDS` (``tests/test_cli.py`` checks it against the commands themselves), so listing
them costs no import of the referee, msgspec or the replay viewer. The commands live in `kierki_cli.main` and the
modules it names; a command that a module registers on ``cli`` itself (``@cli.command()``) is found as well, and
listed once its module is imported.
"""

from __future__ import annotations

import importlib
import json
import signal
import sys
from typing import Any, NoReturn

import click

from kierki_cli.command_table import COMMANDS, DESCRIPTION, MAX_WIDTH, ExitStatus, gc_paused

__all__ = ["COMMANDS", "ExitStatus", "cli", "install_stop_handlers"]

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": MAX_WIDTH}


class OneLineErrors(click.Group):
    """Every error is one line on stderr, "Error: ..." (a usage error also names the command's --help), with the
    exit status the README gives: 2 for a mistake on the command line, 1 when the command could not do its work.
    With ``--json`` the error is a JSON object on stdout as well, so a script reading stdout always gets JSON."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("standalone_mode", True):
            return super().main(*args, **kwargs)
        argv = list(kwargs.get("args") or (args[0] if args else None) or sys.argv[1:])
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except click.UsageError as error:
            where = f" (see `{error.ctx.command_path} --help`)" if error.ctx is not None else ""
            _fail(error.format_message() + where, ExitStatus.USAGE, argv)
        except click.ClickException as error:
            _fail(error.format_message(), error.exit_code, argv)
        except click.Abort:
            _fail("interrupted", ExitStatus.INTERRUPTED, argv)
        sys.exit(code if isinstance(code, int) else ExitStatus.OK)


def _fail(message: str, code: int, argv: list[str]) -> NoReturn:
    if "--json" in argv:
        click.echo(json.dumps({"error": message, "exit_status": code}))
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


class LazyGroup(OneLineErrors):
    """A group whose commands are imported by name when run, and listed from ``COMMANDS`` without importing."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if cmd_name not in self.commands and entry is not None:
            with gc_paused():
                command = getattr(importlib.import_module(entry[0]), entry[1])
            assert isinstance(command, click.Command)
            self.commands.setdefault(cmd_name, command)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        # A bare Command of the same help shortens it exactly as the real one would.
        rows = [
            (name, click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit))
            if name in COMMANDS
            else (name, self.commands[name].get_short_help_str(limit))
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def install_stop_handlers() -> None:
    """SIGTERM and SIGHUP stop a run as Ctrl-C does (see ``stop_like_ctrl_c``)."""
    for stop in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, stop_like_ctrl_c)


def stop_like_ctrl_c(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP (a service manager, a closed terminal, cron's timeout) stop a run as Ctrl-C does: the
    game in progress ends with an ``interrupted`` record, every bot gets ``bye`` and is stopped, nothing finished
    is lost. Once: a second signal while cleaning up is ignored (SIGKILL remains for the impatient)."""
    for stop in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, signal.SIG_IGN)
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS, help=DESCRIPTION)
@click.version_option(package_name="kierki")
def cli() -> None:
    install_stop_handlers()
