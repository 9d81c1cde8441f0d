"""What a bot's private directory holds (referee/bots/disk_use.py): the measure a full disk is charged by."""

from __future__ import annotations

import os
from pathlib import Path

from referee.bots.disk_use import HOG_BYTES, HOG_FILES, DiskUse, disk_use, hog


def test_bytes_and_entries_are_counted_through_folders_and_hidden_ones(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "big").write_bytes(b"\1" * (2 * HOG_BYTES))
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "x").write_bytes(b"\1" * 4096)
    (tmp_path / "link").symlink_to("/usr")  # not followed
    os.chmod(tmp_path / "hidden", 0)  # its bot hid it: it is counted all the same
    use = disk_use(tmp_path)
    assert use.files == 6 and 2 * HOG_BYTES + 4096 <= use.bytes < 2 * HOG_BYTES + 64 * 1024
    assert disk_use(tmp_path / "missing") == DiskUse()


def test_the_hog_is_the_directory_holding_the_most_when_it_holds_enough() -> None:
    small = DiskUse(bytes=HOG_BYTES // 2, files=10)
    assert hog([small, DiskUse(bytes=HOG_BYTES), small]) == 1
    assert hog([small, DiskUse(files=HOG_FILES), small]) == 1  # many empty files: a disk out of inodes
    assert hog([small, small]) is None and hog([]) is None
