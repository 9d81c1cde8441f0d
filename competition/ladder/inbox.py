"""The ladder's inbox: how strangers enter bots without the organiser copying them.

``DIR/inbox/OWNER/NAME/`` holds a submission: the bot's files and ``bot.toml`` (``command``, optional ``env`` and
``time``). It is complete once a file named ``READY`` is there (written last), so a half-uploaded one is never
taken. `take_inbox` (every run, and ``kierki ladder intake``) takes each complete submission once: it copies the
files into the ladder's own store, ``DIR/bots/NAME@V/`` (a bot never runs from the inbox, which its author can still
change), adds it through `competition.ladder.ladder.add_bot` (the same checks, ownership rule and validation game
as ``ladder add``), and writes the outcome where the author reads it: ``result.json`` in the submission's folder
and the submissions table the site shows on the bot's page. The READY file taken is named in both (its inode,
modification time and size): a submission is taken once, and a new READY is a new submission.

Every byte in the inbox is a stranger's: nothing is followed through a symlink, only regular files with one link
are copied (a hard link could name a file of the ladder's), sizes and counts are bounded, and a submission that
breaks any of this is refused with the reason, never stopping the run.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shlex
import shutil
import stat
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import msgspec

from competition.ladder.config import CONFIG_NAME, LadderConfig
from competition.ladder.export import iso_time
from competition.ladder.ladder import LadderError, ValidationFailed, add_bot, check_name, open_store
from competition.ladder.schema import StoreError
from competition.ladder.store_records import Submission
from referee.api import PartialTimeControl

__all__ = ["BOTS_DIR", "INBOX_DIR", "READY_NAME", "RESULT_NAME", "IntakeRefused", "take_inbox"]

INBOX_DIR = "inbox"
BOTS_DIR = "bots"
READY_NAME = "READY"
RESULT_NAME = "result.json"
SPEC_NAME = "bot.toml"
_SPEC_BYTES = 64 * 1024
_NOT_COPIED = {READY_NAME, RESULT_NAME}


class IntakeRefused(Exception):
    """A submission that cannot be added; the message says why (for its author)."""

    def __init__(self, message: str, stderr: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.stderr = stderr


@dataclass(frozen=True)
class BotToml:
    argv: tuple[str, ...]
    env: dict[str, str]
    time: PartialTimeControl  # the least the bot needs of the ladder's [time], per setting it gives


def take_inbox(
    folder: Path, config: LadderConfig, *, now: Callable[[], float], progress: Callable[[str], None]
) -> list[Submission]:
    """Take every complete submission not taken yet; the caller holds the run lock. Returns what became of each."""
    inbox = folder / INBOX_DIR
    if not config.inbox.enabled or not inbox.is_dir():
        return []
    if config.isolation.sandbox == "none" and not config.inbox.unsandboxed:
        progress(
            f'inbox not taken: isolation.sandbox = "none" would run strangers\' bots unsandboxed; set sandbox = '
            f'"bwrap" in {folder / CONFIG_NAME} (or inbox.unsandboxed = true to take them anyway)'
        )
        return []
    for leftover in (folder / BOTS_DIR).glob(".incoming-*"):  # a killed intake's copy (we hold the lock)
        shutil.rmtree(leftover, ignore_errors=True)
    taken = []
    for owner_dir in sorted(_subfolders(inbox)):
        for submission in sorted(_subfolders(owner_dir)):
            stamp = _ready_stamp(submission)
            if stamp is None:
                continue
            with open_store(folder) as store:
                done = store.submission(owner_dir.name, submission.name, stamp)
            if done is None:
                done = _take(folder, config, owner_dir.name, submission, stamp, now())
                with open_store(folder) as store:
                    store.record_submission(done)
                what = f"accepted as {done.label}" if done.accepted else f"refused: {done.reason}"
                progress(f"inbox {owner_dir.name}/{submission.name}: {what}")
                taken.append(done)
            _write_result(submission, done)  # again, if a kill came between the record and the file
            with contextlib.suppress(OSError):  # the author's folder may not let us: the stamp still tells it
                (submission / READY_NAME).unlink()
    return taken


def _subfolders(path: Path) -> list[Path]:
    """The folders in ``path``, not those hidden (an upload tool's staging folder) nor symlinks."""
    try:
        return [e for e in path.iterdir() if not e.name.startswith(".") and e.is_dir() and not e.is_symlink()]
    except OSError:
        return []


def _ready_stamp(submission: Path) -> str | None:
    """The READY file's identity, or None while the submission is incomplete (no READY, or not a regular file)."""
    try:
        ready = (submission / READY_NAME).lstat()
    except OSError:
        return None
    if not stat.S_ISREG(ready.st_mode):
        return None
    return f"{ready.st_ino}:{ready.st_mtime_ns}:{ready.st_size}"


def _take(folder: Path, config: LadderConfig, owner: str, submission: Path, stamp: str, taken: float) -> Submission:
    name = submission.name
    try:
        bot = _take_or_refuse(folder, config, owner, submission)
    except IntakeRefused as refused:
        # The author's own lines, but the ladder's folder is the server's: shown as DIR.
        where = str(folder.resolve())
        stderr = tuple(line.replace(where, "DIR") for line in refused.stderr)
        return Submission(owner, name, stamp, taken, False, None, str(refused).replace(where, "DIR"), stderr)
    except OSError as error:
        if error.errno == errno.ENOSPC:
            raise  # the disk, not the submission: the run stops (and takes it next time)
        return Submission(owner, name, stamp, taken, False, None, f"the ladder could not take it: {error}", ())
    except Exception as error:  # a broken submission never stops the run, whatever it broke
        why = f"the ladder could not take it: {type(error).__name__}: {error}"
        return Submission(owner, name, stamp, taken, False, None, why, ())
    return Submission(owner, name, stamp, taken, True, bot, None, ())


def _take_or_refuse(folder: Path, config: LadderConfig, owner: str, submission: Path) -> str:
    """Copy, check and add the submission; its label, or IntakeRefused."""
    name = submission.name
    try:
        check_name(owner, "the owner's folder name")
        check_name(name, "the submission's folder name")
    except LadderError as error:
        raise IntakeRefused(f"{error}; rename the folder") from None
    spec = read_bot_toml(submission / SPEC_NAME)
    short = [
        f"{key} = {getattr(config.time, key)} (the bot asks for {least})"
        for key, least in spec.time.given().items()
        if getattr(config.time, key) < least
    ]
    if short:
        raise IntakeRefused(
            f"the ladder's [time] gives less than bot.toml's time asks: {', '.join(short)}; ask for no more than "
            "the ladder gives (or ask its organiser for more time)"
        )
    with open_store(folder) as store:
        version = store.next_version(name)
    target = folder / BOTS_DIR / f"{name}@{version}"
    staging = folder / BOTS_DIR / f".incoming-{os.getpid()}-{secrets.token_hex(4)}"
    staging.parent.mkdir(parents=True, exist_ok=True)
    try:
        copy_submission(submission, staging, config.inbox.max_mb * 1024 * 1024, config.inbox.max_files)
        shutil.rmtree(target, ignore_errors=True)  # a killed intake's copy that was never added
        os.rename(staging, target)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if error.errno == errno.ENOSPC:
            raise
        raise IntakeRefused(
            f"its files could not be copied: {error.strerror or error}; upload plain files and folders only"
        ) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        program = check_command(spec.argv, target)
    except IntakeRefused:
        shutil.rmtree(target, ignore_errors=True)
        raise
    env = [f"{key}={value}" for key, value in spec.env.items()]
    argv = [*(["env", *env] if env else []), program, *spec.argv[1:]]
    try:
        bot = add_bot(folder, name, argv, cwd=target, owner=owner, own_folder=target).bot
    except (LadderError, StoreError) as error:
        shutil.rmtree(target, ignore_errors=True)
        why = str(error)
        if isinstance(error, ValidationFailed):
            why += f"; try it on your machine with: kierki check-bot -- {shlex.join(spec.argv)}"
        raise IntakeRefused(why, getattr(error, "stderr", ())) from None
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return bot.label


def read_bot_toml(path: Path) -> BotToml:
    if not path.exists() and not path.is_symlink():
        raise IntakeRefused(f'no {SPEC_NAME}: write one with command = "python3 bot.py" (the bot\'s command)')
    with os.fdopen(_open_nofollow(str(path), 0, None, SPEC_NAME), "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise IntakeRefused(f"{SPEC_NAME} is not a regular file: upload it as a plain text file")
        text = file.read(_SPEC_BYTES + 1)
    if len(text) > _SPEC_BYTES:
        raise IntakeRefused(
            f"{SPEC_NAME} is over {_SPEC_BYTES // 1024} kB: it holds only command, env and time; keep it short"
        )
    try:
        data = tomllib.loads(text.decode())
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise IntakeRefused(f"{SPEC_NAME} cannot be read: {error}; write it as UTF-8 TOML") from None
    unknown = sorted(set(data) - {"command", "env", "time"})
    if unknown:
        raise IntakeRefused(
            f"{SPEC_NAME}: unknown key(s) {', '.join(unknown)}: remove them; the keys are command, env and time"
        )
    command = data.get("command")
    if isinstance(command, str):
        try:
            argv = tuple(shlex.split(command))
        except ValueError as error:
            raise IntakeRefused(f"{SPEC_NAME}: command: {error}; fix its quoting, or give it as a list") from None
    elif isinstance(command, list) and all(isinstance(arg, str) for arg in command):
        argv = tuple(command)
    else:
        raise IntakeRefused(f'{SPEC_NAME}: command must be a string ("python3 bot.py") or a list of strings')
    if not argv:
        raise IntakeRefused(f'{SPEC_NAME}: command is empty: give the command that starts your bot, e.g. "./bot"')
    env = data.get("env", {})
    if not isinstance(env, dict) or not all(
        isinstance(value, str) and key.isidentifier() and key.isascii() for key, value in env.items()
    ):
        raise IntakeRefused(f'{SPEC_NAME}: env must be a table of NAME = "value" (names: letters, digits, _)')
    try:
        needs = msgspec.convert(data.get("time", {}), PartialTimeControl)
    except msgspec.ValidationError as error:
        keys = ", ".join(sorted(PartialTimeControl.__struct_fields__))
        raise IntakeRefused(
            f"{SPEC_NAME}: time: {str(error).replace('`$', '`time')}; it is a table of whole milliseconds, keys: {keys}"
        ) from None
    return BotToml(argv, dict(env), needs)


_ELF_MACHINES = {0x03: "i386", 0x3E: "x86_64", 0x28: "arm", 0xB7: "aarch64", 0xF3: "riscv64"}


def check_command(argv: tuple[str, ...], folder: Path) -> str:
    """The program of a submission's command as it is to be run from ``folder`` (the submission's copy): a relative
    path (``./bot``, ``bin/bot``) names a file of the submission, and so does a bare name that is one (``bot`` runs
    as ``./bot``); another bare name is a program of the server (``python3``, ``java``). Anything that cannot start
    is refused here, before any game, saying what the author should change."""
    program = argv[0]
    if "/" not in program:
        if (folder / program).is_file():
            program = f"./{program}"
        elif shutil.which(program) is None:
            raise IntakeRefused(
                f"{SPEC_NAME}: command: {program!r} is neither a file of your submission nor a program installed "
                f"on this server: name your own program by its path in the submission (./{program}), or check the "
                "spelling"
            )
        else:
            return program
    if os.path.isabs(program):
        if not os.access(program, os.X_OK) or os.path.isdir(program):
            raise IntakeRefused(
                f"{SPEC_NAME}: command: {program} is not a program on this server: name your own program by its "
                "path in the submission (./bot), or a program the server has by its name (python3, java)"
            )
        return program
    path = (folder / program).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise IntakeRefused(f"{SPEC_NAME}: command: {program} leads out of your submission: name a file inside it")
    if not path.is_file():
        raise IntakeRefused(
            f"{SPEC_NAME}: command: {program} is not a file of your submission: upload it, or fix the path (it is "
            "read from the submission's folder)"
        )
    if not os.access(path, os.X_OK):
        raise IntakeRefused(
            f"{SPEC_NAME}: command: {program} is not executable: set its executable bit before uploading "
            f'(chmod +x {program}), or start it through its interpreter (command = "python3 {program}")'
        )
    with path.open("rb") as file:
        head = file.read(64)
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].split()
        interpreter = os.fsdecode(words[0]) if words else ""
        if not os.access(interpreter, os.X_OK):
            raise IntakeRefused(
                f"{SPEC_NAME}: command: {program} starts with #!{interpreter}, which this server does not have: "
                "use #!/usr/bin/env python3 (or another installed interpreter), or upload a compiled program"
            )
    elif head.startswith(b"\x7fELF"):
        machine = _ELF_MACHINES.get(int.from_bytes(head[18:20], "little" if head[5] == 1 else "big"), "another")
        here = os.uname().machine
        if machine != here:
            raise IntakeRefused(
                f"{SPEC_NAME}: command: {program} is a Linux program for {machine}, and this server is {here}: "
                f"build it for Linux {here}"
            )
    else:
        raise IntakeRefused(
            f"{SPEC_NAME}: command: {program} is neither a Linux program nor a script with a #! line (built on "
            "another system?): build it for Linux, or add a #! line"
        )
    return program


def copy_submission(source: Path, target: Path, max_bytes: int, max_files: int) -> None:
    """Copy a submission's regular files and folders (not READY or result.json); refuse symlinks, devices, files
    with other hard links, and more than ``max_bytes`` or ``max_files``. Each folder and file is opened relative to
    its parent's descriptor without following links and checked through the descriptor it is read by, so an author
    who swaps a file or folder for a symlink mid-copy gets a refusal, never a file of the ladder's."""
    budget = _Budget(max_bytes, max_files)
    fd = _open_nofollow(str(source), os.O_DIRECTORY, None, ".")
    try:
        target.mkdir()
        _copy_folder(fd, target, Path("."), budget)
    finally:
        os.close(fd)


@dataclass
class _Budget:
    bytes_left: int
    files_left: int
    max_bytes: int = 0
    max_files: int = 0

    def __post_init__(self) -> None:
        self.max_bytes, self.max_files = self.bytes_left, self.files_left


def _open_nofollow(name: str, flags: int, dir_fd: int | None, shown: str) -> int:
    try:
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | flags, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ENOSPC:
            raise
        raise IntakeRefused(
            f"{shown} cannot be opened as a plain file or folder (a symlink?): {error.strerror}; upload a copy of "
            "what it points to"
        ) from None


def _copy_folder(fd: int, target: Path, relative: Path, budget: _Budget) -> None:
    with os.scandir(fd) as entries:
        listed = sorted((entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries)
    for name, is_dir in listed:
        shown = (relative / name).as_posix()
        if relative == Path(".") and name in _NOT_COPIED:
            continue
        if is_dir:
            child = _open_nofollow(name, os.O_DIRECTORY, fd, shown)
            try:
                (target / name).mkdir()
                _copy_folder(child, target / name, relative / name, budget)
            finally:
                os.close(child)
            continue
        budget.files_left -= 1
        if budget.files_left < 0:
            raise IntakeRefused(
                f"too many files (this ladder takes {budget.max_files}): upload only what the bot needs to run"
            )
        child = _open_nofollow(name, 0, fd, shown)
        with os.fdopen(child, "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
                raise IntakeRefused(
                    f"{shown} is not a plain file (a device, a pipe, or a file with other links): upload a copy"
                )
            budget.bytes_left -= info.st_size
            if budget.bytes_left < 0:
                raise IntakeRefused(
                    f"the files are too large (this ladder takes {budget.max_bytes // (1024 * 1024)} MB): upload "
                    "only what the bot needs to run (no build folders)"
                )
            with (target / name).open("xb") as out:
                data = file.read(info.st_size + 1)  # one byte more tells a file that grew while it was read
                if len(data) != info.st_size:
                    raise IntakeRefused(f"{shown} changed while it was copied: write READY last")
                out.write(data)
            (target / name).chmod(info.st_mode & 0o755 | 0o600)


def _write_result(submission: Path, done: Submission) -> None:
    """``result.json`` for the author, written beside their files under a fresh name and renamed over (a symlink
    the author put there is replaced, never followed). Best effort: the ladder's record is the truth."""
    body = {
        "submission": done.stamp,
        "taken": iso_time(done.taken),
        **{key: value for key, value in asdict(done).items() if key not in ("stamp", "taken")},
    }
    temporary = submission / f".result-{secrets.token_hex(8)}.tmp"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "w") as file:
            json.dump(body, file, indent=1, ensure_ascii=False)
            file.write("\n")
        os.replace(temporary, submission / RESULT_NAME)
    except OSError:
        temporary.unlink(missing_ok=True)
