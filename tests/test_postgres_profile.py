"""The production profile (deploy/dagster.yaml) against a real PostgreSQL server.

A throw-away server is started from the machine's binaries (initdb, pg_ctl) on a temporary folder
and a loopback port, a day is materialized through an instance built from the documented profile,
and the server is stopped. Skipped only where no PostgreSQL server binaries exist.
"""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import chat_episode, write_jsonl
from dagster import AssetKey, DagsterInstance

from assets.definitions import build_definitions

REPO = Path(__file__).resolve().parents[1]
DS = "2026-11-02"


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def postgres_server():
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) on this machine")
    # initdb refuses to run as root: run the server as the postgres system user then
    as_user: list[str] = []
    workdir = Path(tempfile.mkdtemp(prefix="agentic-pg-"))
    if os.geteuid() == 0:
        try:
            import pwd

            pg_user = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and no 'postgres' system user to run the server")
        os.chown(workdir, pg_user.pw_uid, pg_user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    os.chmod(workdir, 0o755)
    data, port = workdir / "pgdata", _free_port()
    run = lambda *cmd: subprocess.run([*as_user, *cmd], check=True, capture_output=True)  # noqa: E731
    run(initdb, "-D", str(data), "-U", "dagster", "--auth=trust", "-E", "UTF8")
    run(
        pg_ctl,
        "-D",
        str(data),
        "-l",
        str(workdir / "server.log"),
        "-w",
        "start",
        "-o",
        f"-p {port} -k {workdir} -c listen_addresses=127.0.0.1",
    )
    try:
        yield {"host": "127.0.0.1", "port": port, "user": "dagster", "db": "postgres"}
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"], capture_output=True
        )
        shutil.rmtree(workdir, ignore_errors=True)


def test_materialize_a_day_against_postgres(postgres_server, tmp_path, monkeypatch):
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO / "deploy" / "dagster.yaml", home / "dagster.yaml")
    for key, value in {
        "DAGSTER_HOME": str(home),
        "DAGSTER_PG_USERNAME": postgres_server["user"],
        "DAGSTER_PG_PASSWORD": "",
        "DAGSTER_PG_HOST": postgres_server["host"],
        "DAGSTER_PG_PORT": str(postgres_server["port"]),
        "DAGSTER_PG_DB": postgres_server["db"],
    }.items():
        monkeypatch.setenv(key, value)
    data_root = tmp_path / "data"
    write_jsonl(data_root / "landing" / DS / "e.jsonl", [chat_episode(f"e{i}") for i in range(3)])

    defs = build_definitions(str(data_root))
    job = defs.resolve_job_def("daily_pipeline")
    with DagsterInstance.get() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        result = job.execute_in_process(
            instance=instance,
            partition_key=DS,
            asset_selection=[AssetKey("raw_agent_logs"), AssetKey("raw_quarantine")],
        )
        assert result.success
        assert instance.get_materialized_partitions(AssetKey("raw_agent_logs")) == {DS}

    import psycopg2

    with psycopg2.connect(
        host=postgres_server["host"],
        port=postgres_server["port"],
        user=postgres_server["user"],
        dbname=postgres_server["db"],
    ) as conn:
        with conn.cursor() as cur:
            cur.execute("select count(*) from runs where status = 'SUCCESS'")
            assert cur.fetchone()[0] == 1
