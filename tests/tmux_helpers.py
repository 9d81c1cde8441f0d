"""A kierki command in a real terminal: a tmux server of the test's own (its socket in the test's folder) runs one
session of the command; the test sends keys and reads the screen back, polling a bounded number of times (the
terminal tests of ``kierki play`` and of the replay viewer)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
ROOT = Path(__file__).resolve().parent.parent
POLLS = 400  # looks at the screen before giving up, a short pause apart: about 10 s
PAUSE_S = 0.025


class TmuxSession:
    """``kierki ARGS...`` in a tmux session named ``name`` of ``size`` (columns, rows), in the checkout's folder.

    ``then``: a shell line to run after the command (``echo EXITED $?; sleep 30`` keeps its exit status on the
    screen); without it the session ends with the command."""

    def __init__(
        self,
        directory: Path,
        name: str,
        args: list[str],
        *,
        size: tuple[int, int] = (120, 40),
        env: dict[str, str] | None = None,
        then: str | None = None,
    ) -> None:
        assert TMUX is not None
        self.name = name
        self.socket = directory / "tmux.sock"
        # COLUMNS and LINES would override the terminal's own size (pytest-xdist's workers set them to 80x24)
        self.env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "NO_COLOR", "COLUMNS", "LINES")}
        self.env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color", **(env or {}))
        command = shlex.join([sys.executable, "-c", "from kierki_cli.main import cli; cli()", *args])
        if then is not None:
            command = f"{command}; {then}"
        columns, rows = size
        self.tmux("new-session", "-d", "-x", str(columns), "-y", str(rows), "-s", name, "-c", str(ROOT), command)

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        assert TMUX is not None
        return subprocess.run(
            [TMUX, "-u", "-f", "/dev/null", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            env=self.env,
            check=check,
            timeout=20,
        )

    def screen(self, escapes: bool = False) -> str:
        return self.tmux("capture-pane", "-p", *(["-e"] if escapes else []), "-t", self.name).stdout

    def wait_for(self, *texts: str, escapes: bool = False) -> str:
        """The screen once every one of ``texts`` shows on it."""
        screen = ""
        for _ in range(POLLS):
            screen = self.screen(escapes)
            if all(text in screen for text in texts):
                return screen
            time.sleep(PAUSE_S)
        pytest.fail(f"{texts} never appeared on the screen:\n{screen}")

    def keys(self, *keys: str) -> None:
        """Keys by tmux's names (``Right``, ``Enter``) or as characters."""
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        """``text`` as typed, then Enter."""
        self.tmux("send-keys", "-t", self.name, "-l", text)
        self.keys("Enter")

    def gone(self) -> bool:
        """Whether the session ends (its command exited) within the polls."""
        for _ in range(POLLS):
            if self.tmux("has-session", "-t", self.name, check=False).returncode != 0:
                return True
            time.sleep(PAUSE_S)
        return False

    def close(self) -> None:
        self.tmux("kill-server", check=False)
