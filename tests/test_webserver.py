"""`make dev`'s server: `dagster dev` on workspace.yaml serves assets, schedule and sensor."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
QUERY = """
{ workspaceOrError { ... on Workspace { locationEntries { name locationOrLoadError {
  __typename ... on PythonError { message }
  ... on RepositoryLocation { repositories {
    assetNodes { assetKey { path } partitionDefinition { description } }
    schedules { name cronSchedule scheduleState { status } }
    sensors { name sensorState { status } }
    jobs { name }
} } } } } } }
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _post(url: str, query: str) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps({"query": query}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _restore_sigint() -> None:  # `dagster dev` in the background ignores SIGTERM otherwise
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_dagster_dev_serves_the_asset_graph(tmp_path):
    dagster = Path(sys.executable).parent / "dagster"
    port = _free_port()
    env = {
        **os.environ,
        "AGENTIC_PIPELINE_DATA_DIR": str(tmp_path / "data"),
        "DAGSTER_HOME": str(tmp_path / "home"),
    }
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    log = (tmp_path / "dev.log").open("wb")
    proc = subprocess.Popen(
        [str(dagster), "dev", "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_restore_sigint,
    )
    try:
        url = f"http://127.0.0.1:{port}/graphql"
        deadline = time.time() + 180
        data = None
        while time.time() < deadline:
            assert proc.poll() is None, (tmp_path / "dev.log").read_text()[-3000:]
            try:
                data = _post(url, QUERY)
                entry = data["data"]["workspaceOrError"]["locationEntries"][0]
                if entry["locationOrLoadError"]:
                    break
            except (OSError, KeyError, IndexError, TypeError):
                pass
            time.sleep(1)
        assert data is not None, "webserver did not answer"
        entry = data["data"]["workspaceOrError"]["locationEntries"][0]
        assert entry["name"] == "agentic_pipeline"  # not the module path
        location = entry["locationOrLoadError"]
        assert location["__typename"] == "RepositoryLocation", location
        repo = location["repositories"][0]
        assets = {"/".join(n["assetKey"]["path"]): n for n in repo["assetNodes"]}
        assert {"raw_agent_logs", "raw_quarantine"} <= set(assets)
        assert "Daily" in assets["raw_agent_logs"]["partitionDefinition"]["description"]
        schedules = {s["name"]: s for s in repo["schedules"]}
        assert schedules["daily_pipeline_schedule"]["cronSchedule"] == "15 2 * * *"
        assert schedules["daily_pipeline_schedule"]["scheduleState"]["status"] == "RUNNING"
        assert "late_file_sensor" in {s["name"] for s in repo["sensors"]}
        assert "daily_pipeline" in {j["name"] for j in repo["jobs"]}
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
    assert proc.returncode is not None


DAEMONS = """{ instance { daemonHealth { allDaemonStatuses { daemonType healthy } } } }"""


@pytest.mark.slow
def test_production_webserver_and_daemon_serve_and_tick(tmp_path):
    """docs/operations.md's two production processes (`dagster-webserver`, `dagster-daemon run`),
    on a loopback port instead of 0.0.0.0:3000: the graph is served and the daemon is healthy."""
    bin_dir = Path(sys.executable).parent
    port = _free_port()
    home = tmp_path / "home"
    home.mkdir()
    from dagster import DagsterInstance

    with DagsterInstance.from_config(str(home)):
        pass  # the storage exists before two processes open it (as on a deployed instance)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    env = {
        **os.environ,
        "AGENTIC_PIPELINE_DATA_DIR": str(tmp_path / "data"),
        "DAGSTER_HOME": str(home),
    }
    commands = [
        [
            str(bin_dir / "dagster-webserver"),
            "-w",
            "workspace.yaml",
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
        ],
        [str(bin_dir / "dagster-daemon"), "run", "-w", "workspace.yaml"],
    ]
    procs = [
        subprocess.Popen(
            command,
            cwd=REPO,
            env=env,
            stdout=(tmp_path / f"proc{i}.log").open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_restore_sigint,
        )
        for i, command in enumerate(commands)
    ]
    try:
        url = f"http://127.0.0.1:{port}/graphql"
        deadline = time.time() + 240
        healthy: set[str] = set()
        while time.time() < deadline:
            for i, proc in enumerate(procs):
                assert proc.poll() is None, (tmp_path / f"proc{i}.log").read_text()[-3000:]
            try:
                entry = _post(url, QUERY)["data"]["workspaceOrError"]["locationEntries"][0]
                statuses = _post(url, DAEMONS)["data"]["instance"]["daemonHealth"]
                healthy = {s["daemonType"] for s in statuses["allDaemonStatuses"] if s["healthy"]}
                if entry["locationOrLoadError"] and {"SENSOR", "SCHEDULER"} <= healthy:
                    break
            except (OSError, KeyError, IndexError, TypeError):
                pass
            time.sleep(2)
        assert entry["locationOrLoadError"]["__typename"] == "RepositoryLocation", entry
        sensors = {s["name"] for s in entry["locationOrLoadError"]["repositories"][0]["sensors"]}
        assert {"late_file_sensor", "decisions_follow_inputs"} <= sensors
        assert {"SENSOR", "SCHEDULER", "ASSET"} <= healthy, healthy
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
