"""`make dev` works as a user expects (issue #23, point 5).

The demo's data root (``simulate`` marks it) runs with the public development key without any
variable set, said once in the terminal and in the UI; any other root without a key still refuses
to mask. The integration test starts what `make dev` starts (``python -m cli.dev``, which runs
``dg dev``) on a simulated day, materializes that day through the webserver's GraphQL API as the
UI's "Materialize" does, and reads the result back.
"""

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_ui_backfill import ASSETS, LAUNCH, STATUS, _free_port, _post

from cli.dev import DEMO_MARKER, key_mode
from cli.main import main as cli_main

REPO = Path(__file__).resolve().parents[1]
DAY = (datetime.now(UTC).date() - timedelta(days=1)).isoformat()
DESCRIPTION = """query($k: AssetKeyInput!) { assetNodeOrError(assetKey: $k) {
  ... on AssetNode { description } } }"""


def test_only_the_demo_root_falls_back_to_the_development_key(tmp_path):
    demo, production = tmp_path / "demo", tmp_path / "production"
    assert cli_main(["simulate", "--start", DAY, "--days", "1", "--data-dir", str(demo)]) == 0
    production.mkdir()
    assert (demo / DEMO_MARKER).exists() and not (production / DEMO_MARKER).exists()
    assert key_mode(demo, {}) == "development"
    assert key_mode(production, {}) == "missing"  # masking refuses: never the public key
    assert key_mode(production, {"AGENTIC_PIPELINE_DEV_MODE": "1"}) == "development"
    secret = {"AGENTIC_PIPELINE_MASKING_KEY": "a-real-secret-key-of-some-length-0123456789"}
    assert key_mode(demo, secret) == "production"  # a real key always wins


@pytest.mark.slow
def test_make_dev_materializes_a_demo_day_from_the_ui(tmp_path):
    data = tmp_path / "data"
    args = ["--start", DAY, "--days", "1", "--episodes-per-day", "4", "--data-dir", str(data)]
    assert cli_main(["simulate", *args]) == 0
    env = {**os.environ, "AGENTIC_PIPELINE_DATA_DIR": str(data)}
    for name in ("AGENTIC_PIPELINE_DEV_MODE", "AGENTIC_PIPELINE_MASKING_KEY"):
        env.pop(name, None)  # as a user runs it: no variable set
    env.pop("AGENTIC_PIPELINE_START_DATE", None)
    port = _free_port()
    log_path = tmp_path / "make-dev.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.dev", "--data-dir", str(data), "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=log_path.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/graphql"
    try:
        deadline = time.time() + 240
        while True:
            assert proc.poll() is None, log_path.read_text()[-3000:]
            assert time.time() < deadline, "make dev did not start"
            try:
                query = "{ workspaceOrError { ... on Workspace { locationEntries { name "
                query += "locationOrLoadError { __typename } } } } }"
                entry = _post(url, query)["workspaceOrError"]["locationEntries"][0]
                if entry["locationOrLoadError"]:
                    assert entry["locationOrLoadError"]["__typename"] == "RepositoryLocation"
                    break
            except OSError:
                pass
            time.sleep(1)
        node = _post(url, DESCRIPTION, {"k": {"path": ["masked_trajectories"]}})
        assert "DEVELOPMENT MODE" in node["assetNodeOrError"]["description"]  # said in the UI
        params = {
            "partitionNames": [DAY],
            "assetSelection": [{"path": [name]} for name in ASSETS],
            "fromFailure": False,
        }
        launched = _post(url, LAUNCH, {"p": params})["launchPartitionBackfill"]
        assert launched["__typename"] == "LaunchBackfillSuccess", launched
        deadline = time.time() + 600
        while True:
            backfill = _post(url, STATUS, {"id": launched["backfillId"]})
            backfill = backfill["partitionBackfillOrError"]
            if backfill["status"] not in ("REQUESTED", "IN_PROGRESS") and all(
                r["status"] not in ("QUEUED", "STARTING", "STARTED") for r in backfill["runs"]
            ):
                break
            assert time.time() < deadline, backfill
            time.sleep(3)
        assert backfill["status"] == "COMPLETED_SUCCESS", backfill
        assert backfill["runs"] and all(r["status"] == "SUCCESS" for r in backfill["runs"])
        assert (data / "warehouse" / "masked_trajectories" / f"ds={DAY}").is_dir()
        assert (data / "warehouse" / "training_sft" / f"ds={DAY}" / "sft.jsonl").is_file()
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    log = log_path.read_text(errors="replace")
    assert log.count("DEMO DATA ROOT") == 1  # said once in the terminal
    ours = [
        line
        for line in log.splitlines()
        if ("BetaWarning" in line or "PreviewWarning" in line) and str(REPO) in line
    ]
    assert not ours, ours  # no preview/beta warnings from our own code
    assert "dg dev" not in log.replace("dg dev --host", "")  # no "use dg dev" advice
