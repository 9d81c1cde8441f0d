"""What a bot's private directory holds (referee/bots/disk_use.py): the measure a full disk is charged by."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from competition import game
from competition.game import GameSpec
from referee.bots.disk_use import HOG_BYTES, HOG_FILES, DiskUse, disk_use, hog
from referee.match_config import DiskFullError, MatchSetupError, MatchSpec, RulesetSpec, default_bots, make_out_dir
from referee.rules import Ruleset


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


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_game_folder_that_a_full_disk_refuses_is_a_full_disk_not_a_broken_setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    """A game whose folder cannot be made because another game's bot filled the disk waits for the space and is
    played again (`competition.game.play_game`); a plain MatchSetupError voided its set instead."""

    def refused(errno_: int) -> Callable[..., None]:
        def mkdir(self: Path, *args: object, **kwargs: object) -> None:
            raise OSError(errno_, os.strerror(errno_))

        return mkdir

    monkeypatch.setattr(Path, "mkdir", refused(code))
    with pytest.raises(DiskFullError, match="the disk is full"):
        make_out_dir(tmp_path / "game1")
    monkeypatch.setattr(Path, "mkdir", refused(errno.EACCES))
    with pytest.raises(MatchSetupError) as refused_setup:
        make_out_dir(tmp_path / "game1")
    assert not isinstance(refused_setup.value, DiskFullError)


def test_a_set_folder_that_a_full_disk_refuses_is_made_once_the_space_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished game's files go to the set's folder; a disk filled meanwhile by a bot of a game played beside it
    (its entries, with empty files) refused that folder and the ladder stopped on a full disk. The mkdir now waits
    for the space as a game does, and gives up, saying why, when it does not come back."""
    rules = RulesetSpec.of(Ruleset.create("hearts"))
    match = MatchSpec(rules=rules, bots=default_bots(4), games=1)
    spec = GameSpec(set_id=1, index=0, names=("a",) * 4, match=match, root=tmp_path, set_dir="s/1")
    mkdir = Path.mkdir
    refusals = [errno.ENOSPC]

    def full_once(self: Path, *args: Any, **kwargs: Any) -> None:
        if refusals:
            code = refusals.pop()
            raise OSError(code, os.strerror(code))
        mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", full_once)
    monkeypatch.setattr(game, "_space_returns", lambda folder: True)
    game._make_set_dir(spec)
    assert spec.partial_dir.is_dir() and refusals == []
    refusals.append(errno.ENOSPC)
    monkeypatch.setattr(game, "_space_returns", lambda folder: False)
    spec.partial_dir.rmdir()
    with pytest.raises(OSError, match="No space left"):
        game._make_set_dir(spec)
