"""`make demo` prints one screen: no warnings but the development-key notice, once (issue 15)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCREEN_LINES = 50


@pytest.mark.slow
def test_make_demo_output_fits_on_one_screen(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTIC_PIPELINE_")}
    env.pop("DAGSTER_HOME", None)
    env["COLUMNS"] = "140"
    proc = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "demo",
            "DEMO_DAYS=2",
            "DEMO_EPISODES=12",
            f"DATA_DIR={tmp_path / 'data'}",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    lines = out.strip().splitlines()
    assert len(lines) <= SCREEN_LINES, out
    assert sum("DEVELOPMENT MODE" in line for line in lines) == 1
    noise = [li for li in lines if "Warning" in li or "warnings.warn" in li or "Traceback" in li]
    assert noise == [], noise
    assert any(line.startswith("Policy decision of") for line in lines)
    assert any("materialized 2 day(s)" in line and "all ok" in line for line in lines)
