"""Partitions start where the data starts (issue 15: no '7 done / 691 missing')."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _start(data_dir: Path, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "AGENTIC_PIPELINE_START_DATE"}
    environ.update(AGENTIC_PIPELINE_DATA_DIR=str(data_dir), **env)
    code = "from assets.partitions import daily_partitions as p; print(p.start.date())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=environ, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_start_is_the_earliest_day_of_the_data_root(tmp_path):
    (tmp_path / "landing" / "2026-11-05").mkdir(parents=True)
    (tmp_path / "landing" / "2026-11-09").mkdir()
    (tmp_path / "landing" / "not-a-day").mkdir()
    assert _start(tmp_path) == "2026-11-05"
    # retention removed old landing days: the stored partitions still count
    (tmp_path / "warehouse" / "masked_trajectories" / "ds=2026-10-30").mkdir(parents=True)
    assert _start(tmp_path) == "2026-10-30"


def test_configured_start_wins_and_empty_root_falls_back(tmp_path):
    (tmp_path / "landing" / "2026-11-05").mkdir(parents=True)
    assert _start(tmp_path, AGENTIC_PIPELINE_START_DATE="2026-01-01") == "2026-01-01"
    assert _start(tmp_path / "empty") == "2025-01-01"


def test_day_folders_outside_a_sane_range_are_reported_and_ignored(tmp_path):
    """An empty ``landing/0001-01-01`` made partitions start in year 1 (739,950 keys)."""
    from assets.partitions import earliest_day, ignored_days

    (tmp_path / "landing" / "0001-01-01").mkdir(parents=True)
    (tmp_path / "landing" / "9999-12-31").mkdir()
    (tmp_path / "landing" / "2026-11-05").mkdir()
    assert _start(tmp_path) == "2026-11-05"
    assert ignored_days(str(tmp_path)) == ["landing/0001-01-01", "landing/9999-12-31"]
    assert earliest_day(str(tmp_path)) == "2026-11-05"
