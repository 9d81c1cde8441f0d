"""Tests for referee.bots.lines: a pipe's bytes cut into lines in bounded memory, without a bot process."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from referee.bots.lines import BIG_READ, StdoutLines
from referee.bots.pipe_results import LineTooLong


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    yield read_end, write_end
    for fd in (read_end, write_end):
        os.close(fd)


def test_lines_come_out_one_by_one_and_a_partial_line_waits(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    lines = StdoutLines(read_end, max_line=20)
    assert not lines.fill() and lines.take() is None  # nothing there yet: no blocking, no line
    os.write(write_end, b"one\ntwo\r\nthr")
    assert lines.fill()
    assert [lines.take(), lines.take(), lines.take()] == [b"one", b"two\r", None]
    os.write(write_end, b"ee\n")
    assert lines.fill() and lines.take() == b"three"


def test_a_read_takes_at_most_a_longest_line_and_its_crlf(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    lines = StdoutLines(read_end, max_line=10)
    os.write(write_end, b"x" * 100)
    lines.fill()
    assert len(lines.data) == 12
    assert lines.take() == LineTooLong(b"x" * 10)
    assert len(lines.data) == 0


def test_a_too_long_line_is_dropped_up_to_its_newline_and_the_next_line_kept(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    lines = StdoutLines(read_end, max_line=10)
    os.write(write_end, b"y" * 20)
    lines.fill()
    assert lines.take() == LineTooLong(b"y" * 10)
    os.write(write_end, b"y" * (BIG_READ - 100))
    lines.fill()
    assert lines.data == b"" and lines.take() is None  # still inside the long line: every byte dropped
    os.write(write_end, b"yyy\nnext\n")
    while lines.fill():
        pass
    assert lines.take() == b"next"


def test_the_line_limit_does_not_count_a_crlf_cr(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    lines = StdoutLines(read_end, max_line=4)
    os.write(write_end, b"abcd\r\nabcde\r\n")
    while lines.fill() and lines.has_room():
        pass
    assert lines.take() == b"abcd\r"
    while lines.fill() and lines.has_room():
        pass
    assert lines.take() == LineTooLong(b"abcd")


def test_end_of_the_pipe_is_seen() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    try:
        lines = StdoutLines(read_end, max_line=10)
        os.write(write_end, b"last")
        os.close(write_end)
        assert lines.fill() and not lines.eof
        assert lines.fill() and lines.eof
        assert lines.take() is None and lines.data == b"last"
    finally:
        os.close(read_end)
