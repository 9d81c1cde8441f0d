"""A ladder left alone for months: its defaults, its plot, its logs and exports, its disk, what cron mails."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from competition.ladder.site import rating_figure
from kierki_cli.main import cli
from referee import cpu


def test_init_sets_jobs_from_the_cpus_this_process_may_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu.os, "sched_getaffinity", lambda pid: {3})
    result = CliRunner().invoke(cli, ["ladder", "init", str(tmp_path / "l"), "--game", "hearts", "--sandbox", "none"])
    assert result.exit_code == 0, result.output
    assert tomllib.loads((tmp_path / "l" / "ladder.toml").read_text())["run"]["jobs"] == 1


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"cpu.max": "150000 100000\n"}, 2),  # v2: one and a half CPUs, rounded up
        ({"cpu.max": "max 100000\n"}, 4),
    ],
)
def test_a_cgroup_v2_cpu_quota_lowers_the_allowance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], expected: int
) -> None:
    monkeypatch.setattr(cpu.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    (tmp_path / "proc").write_text("0::/box\n")
    (tmp_path / "box").mkdir()
    for name, text in files.items():
        (tmp_path / "box" / name).write_text(text)
    assert cpu.cpu_allowance(tmp_path, tmp_path / "proc") == expected


def test_a_cgroup_v1_cpu_quota_lowers_the_allowance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    (tmp_path / "proc").write_text("4:memory:/x\n1:cpu,cpuacct:/box\n0::/\n")
    box = tmp_path / "cpu,cpuacct" / "box"
    box.mkdir(parents=True)
    (box / "cpu.cfs_quota_us").write_text("100000\n")
    (box / "cpu.cfs_period_us").write_text("100000\n")
    assert cpu.cpu_allowance(tmp_path, tmp_path / "proc") == 1


def test_the_rating_plot_of_three_sets_has_whole_number_ticks() -> None:
    figure = rating_figure([(1, 25.0, 8.0), (4, 27.0, 7.5), (9, 26.0, 7.0)])
    ticks = [tick for tick in figure.axes[0].get_xticks() if 1 <= tick <= 3]
    assert ticks and all(float(tick).is_integer() for tick in ticks)
