"""Issue #16 without a cluster: the key's fingerprint and a worker's key check, bounded memory of
the pseudonym cache and of spaCy's StringStore, and the local shard masker; issue #22.7: token
authentication required, a missing head reported at once, the documented head's settings.

The Ray side (whole shards on actors, the refusal of a worker with another key, the same bytes)
is in ``test_ray.py``.
"""

import socket
import time
from pathlib import Path

import pyarrow as pa
import pytest

from agentic_pipeline.masking import DEV_MASKING_KEY, Masker, mask_steps
from agentic_pipeline.masking.engine import AnalyzerConfig, TextAnalyzer
from agentic_pipeline.masking.keys import (
    DEV_MODE_ENV,
    MASKING_KEY_ENV,
    key_fingerprint,
)
from agentic_pipeline.masking.pseudonyms import Pseudonymizer, pseudonym_for
from agentic_pipeline.masking.ray_cluster import (
    DRIVER_NO_TOKEN_AUTH_MESSAGE,
    PROBE_SECONDS,
    SINGLE_MACHINE_ENV,
    WORKER_NO_TOKEN_AUTH_MESSAGE,
    RayAuthError,
    RayClusterError,
    RayUnavailableError,
    has_token_auth,
    head_command,
    head_environment,
    host_port,
    probe,
    token_auth_error,
)
from agentic_pipeline.masking.shards import (
    KEY_MISMATCH_MESSAGE,
    WORKER_NO_KEY_MESSAGE,
    LocalShardMasker,
    RayShardMasker,
    WorkerKeyError,
    shard_masker,
    worker_key,
)

KEY = "shard-test-secret-key-5e0b7f-4c21a9d3e8"
REPO = Path(__file__).resolve().parents[1]


def test_fingerprint_is_short_stable_and_tells_keys_apart():
    fp = key_fingerprint(KEY)
    assert fp == key_fingerprint(KEY.encode()) and len(fp) == 16
    assert fp != key_fingerprint(KEY + "x") and fp != key_fingerprint(DEV_MASKING_KEY)
    assert KEY not in fp and fp not in pseudonym_for("x", "PERSON", KEY)


def test_a_worker_resolves_its_own_key_and_refuses_another():
    """Point 2: the worker's key comes from its environment; another key, or none, is refused
    with a one-line message that holds no key material."""
    fp = key_fingerprint(KEY)
    assert worker_key(fp, False, {MASKING_KEY_ENV: KEY}) == KEY
    for env, dev, message in (
        ({MASKING_KEY_ENV: "another-secret-key-91-0f3b8e2d7a6c5"}, False, KEY_MISMATCH_MESSAGE),
        ({}, False, WORKER_NO_KEY_MESSAGE),
        # the driver's real key; the worker only has development mode: never the public key
        ({DEV_MODE_ENV: "1"}, False, WORKER_NO_KEY_MESSAGE),
    ):
        with pytest.raises(WorkerKeyError) as info:
            worker_key(fp, dev, env)
        text = str(info.value)
        assert text == message and "\n" not in text
        assert KEY not in text and "another-secret" not in text and fp not in text
    # a driver in development mode: the worker uses the development key too, unless it has a
    # real key of its own (then the keys differ and it refuses)
    dev_fp = key_fingerprint(DEV_MASKING_KEY)
    assert worker_key(dev_fp, True, {}) == DEV_MASKING_KEY
    with pytest.raises(WorkerKeyError, match="differs"):
        worker_key(dev_fp, True, {MASKING_KEY_ENV: KEY})


def test_pseudonym_cache_is_bounded_and_tokens_do_not_change():
    """Point 3: the cache keeps at most ``max_cache`` entries (least recently used go); an evicted
    value gets the same token again."""
    p = Pseudonymizer(KEY, max_cache=4)
    first = [p.token(f"person {i}", "PERSON") for i in range(10)]
    assert len(p._cache) == 4
    assert first == [pseudonym_for(f"person {i}", "PERSON", KEY) for i in range(10)]
    p.token("person 6", "PERSON")  # used again: kept, the oldest other one goes
    p.token("person 10", "PERSON")
    assert ("PERSON", "person 6") in p._cache and ("PERSON", "person 7") not in p._cache
    assert [p.token(f"person {i}", "PERSON") for i in range(10)] == first


def test_spacy_string_store_does_not_grow_with_the_texts_analysed():
    """Point 3: every distinct token spaCy met stayed in its StringStore for good (a worker grew
    with each day); analysis now runs in a memory zone, so the store is back to its size after
    each call, and the detections are those of the same texts analysed one by one."""
    analyzer = TextAnalyzer(AnalyzerConfig())
    strings = analyzer.nlp.vocab.strings
    texts = [
        f"Please call Marta Quixbelloq{i} at zorvex{i}@example.com, ref QX{i}Z9." for i in range(40)
    ]
    analyzer.analyze(texts[:1], True)
    before = len(strings)
    for chunk in (texts[:20], texts[20:]):
        analyzer.analyze(chunk, True)
        analyzer.analyze(chunk, False)  # pattern recognizers only: tokenizer strings too
    assert len(strings) == before
    assert "Quixbelloq7" not in strings and "zorvex33@example.com" not in strings
    together = analyzer.analyze(texts, True)
    assert together == [analyzer.analyze([t], True)[0] for t in texts]
    assert any(span[2] == "EMAIL_ADDRESS" for span in together[5])


def _shards() -> list[pa.Table]:
    def rows(ep: str, name: str) -> dict:
        return {
            "episode_id": [ep, ep],
            "step": [0, 1],
            "ds": ["2026-11-10"] * 2,
            "content": [f"Hi, I am {name}, email {name.split()[0].lower()}@example.com", "ok"],
        }

    return [pa.table(rows("e1", "Rosa Quintanar")), pa.table(rows("e2", "John Carter"))]


def test_local_shard_masker_is_mask_steps_shard_by_shard(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    shards = _shards()
    sm = shard_masker(KEY, n_workers=1, phone_regions=("US",))
    assert isinstance(sm, LocalShardMasker)
    with sm, Masker(key=KEY, n_workers=1, phone_regions=("US",)) as masker:
        got = list(sm.map(iter(shards)))
        want = [mask_steps(t, masker) for t in shards]
    assert [r.masked for r in got] == [r.masked for r in want]
    assert [r.audit for r in got] == [r.audit for r in want]
    assert "Rosa" not in str(got[0].masked.column("content").to_pylist())
    with pytest.raises(ValueError, match="ray_address"):
        LocalShardMasker(KEY, ray_address="127.0.0.1:1")  # the shard masker decides where


def test_shard_masker_uses_ray_only_with_an_address(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    sm = shard_masker(KEY)
    assert not isinstance(sm, RayShardMasker)
    sm.close()


# --- issue #22.7: token authentication and a missing head, without a cluster ---------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once the socket is closed


AUTH_TOKEN_PATH = "RAY_AUTH_TOKEN_PATH"


def test_token_authentication_is_read_like_ray_reads_it(tmp_path):
    """On when RAY_AUTH_MODE=token and a token is set, in the variable, a file it points to, or
    Ray's default file under the home folder; off otherwise."""
    token_file = tmp_path / "token"
    token_file.write_text("cluster-token-from-a-file\n")
    home = {"HOME": str(tmp_path / "home")}  # no ~/.ray/auth_token there yet
    assert has_token_auth({**home, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "t0k3n"})
    assert has_token_auth({**home, "RAY_AUTH_MODE": "TOKEN", AUTH_TOKEN_PATH: str(token_file)})
    for env in (
        {},
        {"RAY_AUTH_TOKEN": "t0k3n"},  # a token without the mode: Ray does not check it
        {"RAY_AUTH_MODE": "disabled", "RAY_AUTH_TOKEN": "t0k3n"},
        {"RAY_AUTH_MODE": "token"},  # the mode without a token
        {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": " "},
        {"RAY_AUTH_MODE": "token", AUTH_TOKEN_PATH: str(tmp_path / "missing")},
    ):
        assert not has_token_auth({**home, **env}), env
    (tmp_path / "home" / ".ray").mkdir(parents=True)
    (tmp_path / "home" / ".ray" / "auth_token").write_text("default-file-token")
    assert has_token_auth({**home, "RAY_AUTH_MODE": "token"})


def test_a_driver_without_token_authentication_is_refused_before_ray(monkeypatch, tmp_path):
    """The actors hold the key: without Ray's token authentication the masker refuses in one
    line, before connecting (the address here has no head: the refusal comes first)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(name, raising=False)
    address = f"127.0.0.1:{_closed_port()}"
    for env in ({}, {"RAY_AUTH_MODE": "token"}, {"RAY_AUTH_TOKEN": "t0k3n"}):
        with pytest.MonkeyPatch.context() as mp:
            for name, value in env.items():
                mp.setenv(name, value)
            t0 = time.monotonic()
            with pytest.raises(RayAuthError) as info:
                shard_masker(KEY, address=address, ray_workers=1)
            assert time.monotonic() - t0 < 1
            assert str(info.value) == DRIVER_NO_TOKEN_AUTH_MESSAGE and "\n" not in str(info.value)
            assert KEY not in str(info.value)
    # a worker on a node without token authentication refuses too (its own line)
    error = token_auth_error({})
    assert isinstance(error, RayAuthError) and str(error) == WORKER_NO_TOKEN_AUTH_MESSAGE
    assert token_auth_error({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "t0k3n"}) is None


def test_a_missing_head_is_reported_in_one_line_at_once(monkeypatch):
    """Nothing listens at the address: one line naming it, within the probe's seconds (``ray.init``
    alone retried for minutes); a malformed address is one line too."""
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", "t0k3n-of-the-cluster")
    address = f"127.0.0.1:{_closed_port()}"
    t0 = time.monotonic()
    with pytest.raises(RayUnavailableError) as info:
        shard_masker(KEY, address=address, ray_workers=1)
    assert time.monotonic() - t0 < PROBE_SECONDS + 10  # the import of Ray included
    message = str(info.value)
    assert message.startswith(f"no Ray head answers at {address} (") and "\n" not in message
    assert isinstance(info.value, RayClusterError)
    for bad in ("head-without-port", "ray://", "host:port"):
        with pytest.raises(RayUnavailableError, match="not a Ray address"):
            probe(bad)
    assert host_port("ray://head.svc:10001") == ("head.svc", 10001)
    assert host_port("[::1]:6379") == ("::1", 6379)


def test_the_documented_head_needs_token_authentication_and_keeps_loopback(tmp_path):
    """The head's environment: refused without token authentication; usage statistics off, no
    RAY_ADDRESS, and Ray's single-machine switch for a loopback host only."""
    with pytest.raises(RayAuthError, match="needs token authentication"):
        head_environment("127.0.0.1", {"HOME": str(tmp_path), "RAY_AUTH_TOKEN": "t0k3n"})
    auth = {"HOME": str(tmp_path), "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "t0k3n"}
    env = head_environment("127.0.0.1", {**auth, "RAY_ADDRESS": "elsewhere:6379"})
    assert env[SINGLE_MACHINE_ENV] == "0" and env["RAY_USAGE_STATS_ENABLED"] == "0"
    assert "RAY_ADDRESS" not in env and env["RAY_AUTH_TOKEN"] == "t0k3n"
    assert SINGLE_MACHINE_ENV not in head_environment("10.1.2.3", auth)
    cmd = head_command("127.0.0.1", 6379, 10001, 2, str(tmp_path))
    assert cmd[1:4] == ["start", "--head", "--block"]
    assert cmd[cmd.index("--node-ip-address") + 1] == "127.0.0.1"
    assert "--include-dashboard=false" in cmd and "--disable-usage-stats" in cmd


def test_the_kuberay_manifest_requires_the_token_and_keeps_the_key_in_secrets():
    """deploy/ray-cluster.yaml: every Ray container has token authentication with the token from a
    Secret, the masking key only from a Secret and only on the workers, and a NetworkPolicy
    admits only the run pods and the cluster's own pods to the Ray pods."""
    import yaml

    cluster, policy = yaml.safe_load_all((REPO / "deploy" / "ray-cluster.yaml").read_text())
    spec = cluster["spec"]
    groups = [("head", spec["headGroupSpec"])] + [("worker", g) for g in spec["workerGroupSpecs"]]
    ray_pods = policy["spec"]["podSelector"]["matchLabels"]
    for kind, group in groups:
        template = group["template"]
        assert ray_pods.items() <= template["metadata"]["labels"].items(), kind
        for container in template["spec"]["containers"]:
            env = {e["name"]: e for e in container["env"]}
            assert env["RAY_AUTH_MODE"]["value"] == "token", kind
            assert "secretKeyRef" in env["RAY_AUTH_TOKEN"]["valueFrom"], kind
            key = env.get(MASKING_KEY_ENV)
            assert (key is not None) == (kind == "worker"), kind
            assert key is None or "value" not in key and "secretKeyRef" in key["valueFrom"]
    sources = [f["podSelector"]["matchLabels"] for f in policy["spec"]["ingress"][0]["from"]]
    assert ray_pods in sources and {"agentic-pipeline/role": "dagster-run"} in sources
