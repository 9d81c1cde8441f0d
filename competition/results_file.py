"""The results file: one JSON line per finished duplicate set, appended atomically, read back to resume.

A line is written with one ``os.write`` on a descriptor opened with ``O_APPEND`` and then fsync'd, so a killed
tournament leaves either the whole line or (at worst, on a crash of the machine mid-write) a partial last line
without its newline; readers ignore such a tail and `ResultsFile.open` cuts it off before appending again.
The set's replay logs are moved into place before its line is written: a line in the file means a complete set.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import msgspec

from competition.model import SetRecord, decode_set, encode_set


class ResultsError(RuntimeError):
    """The results file cannot be read or written."""


def read_results(path: Path) -> tuple[list[SetRecord], int]:
    """The complete sets in the file, and how many bytes they take (a partial last line is not counted)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], 0
    except OSError as error:
        raise ResultsError(f"cannot read {path}: {error.strerror}") from None
    records = []
    good = 0
    for number, line in enumerate(data.splitlines(keepends=True), 1):
        if not line.endswith(b"\n"):
            break  # a line cut short by a kill: never completed, so never counted
        try:
            records.append(decode_set(line))
        except msgspec.DecodeError as error:
            raise ResultsError(f"{path}, line {number}: not a set record ({error}); was it edited by hand?") from None
        good += len(line)
    return records, good


class ResultsFile:
    """Appends set records to a results file; open with `ResultsFile.open` (which drops a partial last line)."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        self.path = path

    @classmethod
    def open(cls, path: Path) -> tuple[ResultsFile, list[SetRecord]]:
        """Take the file for this process alone (a second run on the same folder is refused), drop a partial
        last line, and return the complete sets in it."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as error:
            raise ResultsError(f"cannot write {path}: {error.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ResultsError(
                f"another kierki tournament is writing {path}: wait for it to end (or stop it) first"
            ) from None
        try:
            records, good = read_results(path)
            if os.fstat(fd).st_size > good:
                os.ftruncate(fd, good)
                os.fsync(fd)
        except OSError as error:
            os.close(fd)
            raise ResultsError(f"cannot write {path}: {error.strerror}") from None
        except ResultsError:
            os.close(fd)
            raise
        return cls(fd, path), records

    def append(self, record: SetRecord) -> None:
        line = encode_set(record)
        written = os.write(self._fd, line)  # one write: O_APPEND puts it whole at the end
        if written != len(line):
            raise ResultsError(f"{self.path}: only {written} of {len(line)} bytes written; is the disk full?")
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
