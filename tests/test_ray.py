"""Masking on a real Ray cluster (issue #16, points 2-4; issue #22, point 7).

A Ray head is started on loopback with two CPUs the documented way (``python -m
agentic_pipeline.masking.ray_cluster``: ``ray start --head --block`` with token authentication, in
its own process group, usage statistics off, no dashboard) with the masking key and the cluster's
token in its environment, as a KubeRay worker pod has them from Secrets. A day of several shards,
one episode of which the final scan withholds, is materialized through it with Dagster (whole
shards masked on 1 actor, then on 2) and compared byte for byte with the local process-pool run; a
driver with another key is refused; every socket of the head listens on loopback only; drivers
without the token are refused; a missing head fails the run in seconds; and the head's process
group is stopped.
"""

import datetime as dt
import ipaddress
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pytest
from dagster import DagsterInstance, materialize

from agentic_pipeline.demo import write_landing
from agentic_pipeline.masking import DEV_MASKING_KEY
from agentic_pipeline.masking.keys import key_fingerprint
from agentic_pipeline.masking.shards import (
    ACTOR_READY,
    KEY_MISMATCH_MESSAGE,
    LocalShardMasker,
    RayShardMasker,
    WorkerKeyError,
    shard_masker,
)
from agentic_pipeline.storage import DataRoot
from assets.ingestion import raw_agent_logs
from assets.masking import masked_trajectories
from assets.replay import replayed_episodes
from resources import DataRootResource, PartitionedParquetIOManager
from resources.catalogue import ToolCatalogueResource
from resources.masking import MaskingResource

pytestmark = pytest.mark.slow

DS = "2026-11-10"
REPO = Path(__file__).resolve().parents[1]
#: A production-like key: it must never reach the Ray cluster (its logs, its objects on disk).
SECRET_KEY = "ray-test-secret-key-7c1d9a0e5b-3f82e61d"
#: The cluster's token (Ray's token authentication), as the run and every node have it.
RAY_TOKEN = "ray-test-cluster-token-3f8e21c6d94b0a57"
AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": RAY_TOKEN}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [pid], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _listening_sockets(pids: list[int]) -> list[tuple[str, int, int]]:
    """(address, port, pid) of every listening TCP socket and bound UDP socket of ``pids``."""
    owner: dict[str, int] = {}
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    owner[link[8:-1]] = pid
        except (FileNotFoundError, PermissionError):
            continue  # a process gone meanwhile
    found = []
    for table, listening in (("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")):
        with open(f"/proc/net/{table}") as fh:
            for line in fh.read().splitlines()[1:]:
                fields = line.split()
                if fields[3] != listening or fields[9] not in owner:
                    continue
                hex_ip, hex_port = fields[1].split(":")
                raw = bytes.fromhex(hex_ip)  # 32-bit words in host (little-endian) order
                raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
                found.append((str(ipaddress.ip_address(raw)), int(hex_port, 16), owner[fields[9]]))
    return found


def _is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


@pytest.fixture(scope="module")
def ray_head():
    """A real local Ray cluster, started the documented way: one head on 127.0.0.1 with 2 CPUs and
    token authentication; yields (address, temp dir, the head's pid, the client port). The driver
    (this process) has the token while the module runs."""
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's socket paths
    port, client_port = _free_port(), _free_port()
    env = {**os.environ, **AUTH}
    env.pop("RAY_ADDRESS", None)
    env["AGENTIC_PIPELINE_MASKING_KEY"] = SECRET_KEY  # the workers' Secret
    log = (temp / "head.log").open("wb")
    cmd = [
        sys.executable, "-m", "agentic_pipeline.masking.ray_cluster", "--host", "127.0.0.1",
        "--port", str(port), "--client-port", str(client_port), "--num-cpus", "2",
        "--temp-dir", str(temp),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip
    driver = pytest.MonkeyPatch()
    for name, value in AUTH.items():
        driver.setenv(name, value)
    try:
        deadline = time.monotonic() + 180
        while b"block forever" not in (temp / "head.log").read_bytes():
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = (temp / "head.log").read_text(errors="replace")[-2000:]
                pytest.fail(f"the Ray head did not start:\n{tail}")
            time.sleep(0.5)
        yield f"127.0.0.1:{port}", temp, proc.pid, client_port
    finally:
        driver.undo()
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(wait)
                time.sleep(1)  # let the group's other members (raylet, gcs) go too
            except subprocess.TimeoutExpired:
                continue
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever of the group is left
        except ProcessLookupError:
            pass
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def _actors_started(temp: Path) -> int:
    """How many shard masker actors the cluster has started (each writes one line to its log)."""
    logs = temp / "session_latest" / "logs"
    return sum(p.read_bytes().count(ACTOR_READY.encode()) for p in logs.glob("worker-*.err"))


def _resources(root: Path, masking: MaskingResource) -> dict:
    return {
        "data_root": DataRootResource(path=str(root)),
        "io_manager": PartitionedParquetIOManager(path=str(root)),
        "masking": masking,
        "tool_catalogue": ToolCatalogueResource(),
    }


def _materialize(root: Path, masking: MaskingResource) -> dict[str, bytes]:
    """Ingest, mask and replay one simulated day; every stored file of the day, by path."""
    write_landing(root, dt.date.fromisoformat(DS), 1, 12, seed=5)
    # one more episode with personal data in an identifier column (masking never rewrites one):
    # masking cannot mask it, so the scan withholds it
    from conftest import chat_episode, make_unmaskable, write_jsonl

    leaky = chat_episode("leaky-1", started_at=f"{DS}T10:15:00Z")
    write_jsonl(root / "landing" / DS / "leaky.jsonl", [leaky])
    assets = [raw_agent_logs, masked_trajectories, replayed_episodes]
    with DagsterInstance.ephemeral() as instance:
        result = materialize(
            assets,
            selection=[raw_agent_logs],
            resources=_resources(root, masking),
            partition_key=DS,
            instance=instance,
        )
        assert result.success
        make_unmaskable(DataRoot(root), DS, "leaky-1")
        result = materialize(
            assets,
            selection=[masked_trajectories, replayed_episodes],
            resources=_resources(root, masking),
            partition_key=DS,
            instance=instance,
        )
    assert result.success
    return {
        str(p.relative_to(root)): p.read_bytes()
        for zone in ("restricted", "warehouse")
        for p in sorted((root / zone).rglob("*.parquet"))
    }


def test_local_and_ray_runs_write_the_same_bytes(ray_head, tmp_path, monkeypatch):
    """Masked output, audit, withheld episodes and replay: identical files whether the day is
    masked by the local process pool, by one Ray actor masking whole shards or by two; the day is
    cut into several shards and one episode is withheld. The key stays a secret: the workers have
    it from their environment, only its fingerprint travels, nothing Ray stored holds it."""
    address, temp, _, _ = ray_head
    monkeypatch.setenv("AGENTIC_PIPELINE_ROWS_PER_SHARD", "50")  # several shards per day
    monkeypatch.setenv("AGENTIC_PIPELINE_MASKING_KEY", SECRET_KEY)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    sent: list[bytes] = []  # every argument of every actor and task the driver sent to Ray
    import ray.actor

    for cls, name in ((ray.actor.ActorClass, "_remote"), (ray.actor.ActorMethod, "_remote")):
        original = getattr(cls, name)

        def spy(self, *a, _original=original, **kw):
            sent.append(pickle.dumps((a, kw.get("args"), kw.get("kwargs"))))
            assert not kw.get("runtime_env")
            return _original(self, *a, **kw)

        monkeypatch.setattr(cls, name, spy)
    local = _materialize(tmp_path / "local", MaskingResource(n_workers=2))
    before = _actors_started(temp)
    one = _materialize(tmp_path / "ray1", MaskingResource(ray_address=address, ray_workers=1))
    after_one = _actors_started(temp)
    two = _materialize(tmp_path / "ray2", MaskingResource(ray_address=address, ray_workers=2))
    assert (after_one - before, _actors_started(temp) - after_one) == (1, 2)  # ran on Ray
    masked = [p for p in local if p.startswith("warehouse/masked_trajectories/")]
    assert len(masked) > 2  # the day was masked shard by shard
    assert any(p.startswith("warehouse/pii_audit/") for p in local)
    assert any(p.startswith("warehouse/replayed_episodes/") for p in local)
    (withheld,) = [p for p in local if p.startswith("restricted/withheld_episodes/")]
    assert b"leaky-1" in local[withheld]  # the withheld episode, the same on Ray
    assert one.keys() == local.keys() == two.keys()
    for path in local:
        assert one[path] == local[path] and two[path] == local[path], path
    # only the fingerprint travelled: the key is in no argument sent, nothing Ray wrote holds it
    assert sent and any(key_fingerprint(SECRET_KEY).encode() in b for b in sent)
    assert not any(SECRET_KEY.encode() in b for b in sent)
    for path in temp.rglob("*"):
        if path.is_file() and not path.is_socket():
            assert SECRET_KEY.encode() not in path.read_bytes(), path


def test_workers_with_another_key_are_refused(ray_head, tmp_path, monkeypatch):
    """Point 2: a driver whose key is not the workers' gets a one-line refusal (no key in it), and
    the run fails at once, without masking anything; the development key is refused as well."""
    address, *_ = ray_head
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    for key in ("another-secret-key-of-the-driver", DEV_MASKING_KEY):
        with pytest.raises(WorkerKeyError) as info:
            shard_masker(key, address=address, ray_workers=1)
        message = str(info.value)
        assert message == KEY_MISMATCH_MESSAGE and "\n" not in message
        assert key not in message and SECRET_KEY not in message
    # through Dagster: the masking step fails once (no retry) with that line, nothing is written
    monkeypatch.setenv("AGENTIC_PIPELINE_MASKING_KEY", "another-secret-key-of-the-driver")
    root = tmp_path / "refused"
    write_landing(root, dt.date.fromisoformat(DS), 1, 2, seed=5)
    with DagsterInstance.ephemeral() as instance:
        result = materialize(
            [raw_agent_logs, masked_trajectories],
            resources=_resources(root, MaskingResource(ray_address=address, ray_workers=1)),
            partition_key=DS,
            instance=instance,
            raise_on_error=False,
        )
    assert not result.success
    (failure,) = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert failure.step_key == "masked_trajectories"
    assert KEY_MISMATCH_MESSAGE in str(failure.event_specific_data.error.message)
    assert "another-secret" not in str(result.all_events)
    assert not (root / "warehouse").exists() or not any((root / "warehouse").rglob("*.parquet"))


def test_shard_order_and_bounded_shards_in_flight(ray_head, monkeypatch):
    """Results come back in shard order whichever actor finishes first, and the driver never has
    more than 2 shards per actor sent and not yet consumed; RAY_ADDRESS selects Ray."""
    address, *_ = ray_head
    monkeypatch.setenv("RAY_ADDRESS", address)
    pulled = 0
    consumed: list[int] = []
    shards = [_shard(i, long=(i % 3 == 0)) for i in range(7)]

    def source():
        nonlocal pulled
        for table in shards:
            assert pulled - len(consumed) < 4  # 2 actors x 2 in flight
            pulled += 1
            yield table

    with shard_masker(SECRET_KEY) as sm:  # RAY_ADDRESS, one actor per CPU
        assert isinstance(sm, RayShardMasker) and sm.n_workers == 2
        info = sm.actor_info()
        assert len({i["pid"] for i in info}) == 2 and all(i["peak_rss_mb"] > 0 for i in info)
        results = []
        for result in sm.map(source()):
            consumed.append(len(consumed))
            results.append(result)
    with LocalShardMasker(SECRET_KEY) as lm:
        want = list(lm.map(shards))
    assert [r.masked for r in results] == [r.masked for r in want]
    assert [r.audit for r in results] == [r.audit for r in want]


def _shard(i: int, long: bool) -> pa.Table:
    text = f"Hello, this is Rosa Quintanar{i}, call me at +1 415 555 01{i:02d}."
    n = 30 if long else 2
    return pa.table(
        {
            "episode_id": [f"ep-{i}"] * n,
            "step": list(range(n)),
            "ds": [DS] * n,
            "content": [text] * n,
        }
    )


def test_every_socket_of_the_head_listens_on_loopback(ray_head, monkeypatch):
    """Issue #22.7: the documented head started on 127.0.0.1 listens there only: its GCS, raylet
    and object manager, Ray client server, agents and worker processes (an actor is running), and
    this driver's own Ray server. With Ray 2.60's ``ray start --node-ip-address 127.0.0.1``
    alone, the GCS and the raylet listened on every interface."""
    address, _, head_pid, client_port = ray_head
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with shard_masker(SECRET_KEY, address=address, ray_workers=1) as sm:
        actor_pid = sm.actor_info()[0]["pid"]
        processes = _descendants(head_pid)
        assert actor_pid in processes
        sockets = _listening_sockets([*processes, os.getpid()])
    ports = {port for _, port, _ in sockets}
    assert {int(address.rsplit(":", 1)[1]), client_port} <= ports  # the GCS and the Ray client
    assert len({pid for *_, pid in sockets}) >= 3  # the GCS, the raylet, the client server, ...
    assert [s for s in sockets if not _is_loopback(s[0])] == []


#: What any client that reaches the head could run: a task that returns the workers' key.
KEY_THIEF = """
import os, sys, ray
ray.init(address=sys.argv[1], logging_level="ERROR", log_to_driver=False)

@ray.remote
def key():
    return os.environ.get("AGENTIC_PIPELINE_MASKING_KEY", "")

print("GOT", ray.get(key.remote(), timeout=60), flush=True)
"""


#: The pipeline's own driver with a wrong token: one line, within about 20 s.
OUR_MASKER = """
import sys
from agentic_pipeline.masking.ray_cluster import RayClusterError
from agentic_pipeline.masking.shards import shard_masker
try:
    shard_masker("a-driver-key-with-a-guessed-token", address=sys.argv[1], ray_workers=1)
except RayClusterError as exc:
    print("REFUSED", type(exc).__name__, exc, flush=True)
"""


def test_a_driver_without_the_cluster_token_is_refused(ray_head):
    """Issue #22.7: a client on this machine that reaches the head without the cluster's token
    (none, or a guessed one; by the GCS address or the Ray client port) runs nothing there and
    never reads the workers' key. The control, with the token, reads it: the token is the guard.
    The pipeline's own masker with a guessed token is refused in one line."""
    address, _, _, client_port = ray_head
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # reach the loopback head as it is
    guessed = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "guessed-" + RAY_TOKEN[8:]}
    attempts = {
        "no token, GCS": (address, {}),
        "guessed token, GCS": (address, guessed),
        "no token, Ray client": (f"ray://127.0.0.1:{client_port}", {}),
        "the token (control)": (address, AUTH),
        "our masker, guessed token": (address, guessed),
    }
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-c", OUR_MASKER if name.startswith("our") else KEY_THIEF, target],
            cwd=REPO,
            env={**env, **extra},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (target, extra) in attempts.items()
    }
    outputs = {}
    for name, proc in procs.items():
        try:
            out, err = proc.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        outputs[name] = (proc.returncode, out, err)
    code, out, err = outputs.pop("the token (control)")
    assert code == 0 and f"GOT {SECRET_KEY}" in out, err[-2000:]
    code, out, err = outputs.pop("our masker, guessed token")
    assert code == 0 and out.startswith("REFUSED RayUnavailableError "), out + err[-2000:]
    assert f"the Ray head at {address} answers but refused this driver" in out
    for name, (code, out, err) in outputs.items():
        assert code != 0, name
        assert "GOT" not in out and SECRET_KEY not in out + err, name


def test_a_missing_head_fails_the_run_in_seconds_and_frees_the_masking_pool(tmp_path):
    """Issue #22.7: with nothing listening at the Ray address, the masking step fails within
    seconds (``ray.init`` alone waited minutes, printing connection warnings), with one line, no
    retry, and the masking pool's slot is given back."""
    from dagster._core.instance.ref import InstanceRef

    data_dir = tmp_path / "data"
    write_landing(data_dir, dt.date.fromisoformat(DS), 1, 3, seed=5)
    address = f"127.0.0.1:{_free_port()}"  # nothing listens there
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "RAY_"))}
    env.update(
        AUTH,
        AGENTIC_PIPELINE_DATA_DIR=str(data_dir),
        AGENTIC_PIPELINE_MASKING_KEY=SECRET_KEY,
        RAY_ADDRESS=address,
        COLUMNS="200",
        PYTHONWARNINGS="ignore",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "materialize", "--start", DS],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, (proc.stdout + proc.stderr)[-3000:]
    # the CLI's own line (Dagster's log of the failure goes to stderr)
    lines = [line for line in proc.stdout.splitlines() if "masked_trajectories:" in line]
    assert lines == [f"{DS} masked_trajectories: " + lines[0].split(": ", 1)[1]], proc.stdout
    assert f"no Ray head answers at {address} (" in lines[0], proc.stdout
    assert "Traceback" not in proc.stdout
    instance = DagsterInstance.from_ref(InstanceRef.from_dir(str(data_dir / "dagster_home")))
    (record,) = instance.get_run_records()
    events = [
        e
        for e in instance.all_logs(record.dagster_run.run_id)
        if e.dagster_event and e.dagster_event.step_key == "masked_trajectories"
    ]
    (start,) = [e for e in events if e.dagster_event.event_type_value == "STEP_START"]
    (failure,) = [e for e in events if e.dagster_event.event_type_value == "STEP_FAILURE"]
    assert failure.timestamp - start.timestamp < 30
    assert instance.event_log_storage.get_concurrency_info("masking").claimed_slots == []
