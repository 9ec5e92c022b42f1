"""Masking on a real Ray cluster (issue #16, points 2-4).

A Ray head is started on loopback with two CPUs (``ray start --head --block`` in its own process
group, usage statistics off, no dashboard) with the masking key in its environment, as a KubeRay
worker pod has it from a Secret. A day of several shards, one episode of which the final scan
withholds, is materialized through it with Dagster (whole shards masked on 1 actor, then on 2) and
compared byte for byte with the local process-pool run; a driver with another key is refused; and
the head's process group is stopped.
"""

import datetime as dt
import json
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
from agentic_pipeline.masking.engine import AnalyzerConfig, AnalyzerPool
from agentic_pipeline.masking.keys import key_fingerprint
from agentic_pipeline.masking.ray_pool import (
    RayAnalyzerPool,
    analyzer_pool,
    balanced_batches,
)
from agentic_pipeline.masking.shards import (
    ACTOR_READY,
    KEY_MISMATCH_MESSAGE,
    LocalShardMasker,
    RayShardMasker,
    WorkerKeyError,
    shard_masker,
)
from assets.ingestion import raw_agent_logs
from assets.masking import masked_trajectories
from assets.replay import replayed_episodes
from resources import DataRootResource, PartitionedParquetIOManager
from resources.catalogue import ToolCatalogueResource
from resources.masking import MaskingResource

pytestmark = pytest.mark.slow

DS = "2026-11-10"
RAY = Path(sys.executable).parent / "ray"
#: A production-like key: it must never reach the Ray cluster (its logs, its objects on disk).
SECRET_KEY = "ray-test-secret-key-7c1d9a0e5b-3f82e61d"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head():
    """A real local Ray cluster: one head on 127.0.0.1 with 2 CPUs; yields (address, temp dir)."""
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's socket paths
    port = _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}  # offline: no usage report
    env.pop("RAY_ADDRESS", None)
    env["AGENTIC_PIPELINE_MASKING_KEY"] = SECRET_KEY  # the workers' Secret
    log = (temp / "head.log").open("wb")
    cmd = [
        str(RAY), "start", "--head", "--block", "--num-cpus", "2",
        "--node-ip-address", "127.0.0.1", "--port", str(port),
        "--ray-client-server-port", str(_free_port()),
        "--disable-usage-stats", "--include-dashboard=false", "--temp-dir", str(temp),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while b"block forever" not in (temp / "head.log").read_bytes():
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = (temp / "head.log").read_text(errors="replace")[-2000:]
                pytest.fail(f"the Ray head did not start:\n{tail}")
            time.sleep(0.5)
        yield f"127.0.0.1:{port}", temp
    finally:
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
    # one more episode whose personal value is a JSON key (never masked): the scan withholds it
    from conftest import chat_episode, write_jsonl

    leaky = chat_episode("leaky-1", started_at=f"{DS}T10:15:00Z")
    leaky["messages"][3]["content"] = json.dumps({"by_email": {"bob.smith@example.com": 1}})
    write_jsonl(root / "landing" / DS / "leaky.jsonl", [leaky])
    with DagsterInstance.ephemeral() as instance:
        result = materialize(
            [raw_agent_logs, masked_trajectories, replayed_episodes],
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
    address, temp = ray_head
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
    address, _ = ray_head
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
    address, _ = ray_head
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
    text = f"Hello, this is Maria Lopez{i}, call me at +1 415 555 01{i:02d}."
    n = 30 if long else 2
    return pa.table(
        {
            "episode_id": [f"ep-{i}"] * n,
            "step": list(range(n)),
            "ds": [DS] * n,
            "content": [text] * n,
        }
    )


def test_analysis_only_pool_from_the_resource_or_the_environment(ray_head, monkeypatch):
    """``Masker(ray_address=...)`` still sends only its analysis to Ray (``RayAnalyzerPool``)."""
    address, _ = ray_head
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    config = AnalyzerConfig()
    local = analyzer_pool(config, n_workers=2)
    assert isinstance(local, AnalyzerPool) and local.n_workers == 2  # the default: no Ray
    local.close()
    monkeypatch.setenv("RAY_ADDRESS", address)
    pool = analyzer_pool(config, n_workers=2, ray_workers=1)
    try:
        assert isinstance(pool, RayAnalyzerPool)
        texts = ["Call Maria Lopez at +1 415 555 0134.", "maria.lopez@example.com", "ok"]
        assert pool.analyze(texts, True) == pool_local_analyze(texts)
    finally:
        pool.close()


def pool_local_analyze(texts: list[str]) -> list:
    return AnalyzerPool(AnalyzerConfig(), n_workers=1).analyze(texts, True)


def test_balanced_batches_cover_every_text_once():
    texts = ["x" * n for n in (5, 50, 500, 1, 20, 300, 7)]
    batches = balanced_batches(texts, 3)
    assert sorted(i for b in batches for i in b) == list(range(len(texts)))
    assert balanced_batches(texts, 3) == batches and len(batches) == 3
    assert balanced_batches(texts[:2], 8) == [[1], [0]]  # no empty batches
