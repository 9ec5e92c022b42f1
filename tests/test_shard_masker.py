"""Issue #16 without a cluster: the key's fingerprint and a worker's key check, bounded memory of
the pseudonym cache and of spaCy's StringStore, and the local shard masker.

The Ray side (whole shards on actors, the refusal of a worker with another key, the same bytes)
is in ``test_ray.py``.
"""

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

    return [pa.table(rows("e1", "Maria Lopez")), pa.table(rows("e2", "John Carter"))]


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
    assert "Maria" not in str(got[0].masked.column("content").to_pylist())
    with pytest.raises(ValueError, match="ray_address"):
        LocalShardMasker(KEY, ray_address="127.0.0.1:1")  # the shard masker decides where


def test_shard_masker_uses_ray_only_with_an_address(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    sm = shard_masker(KEY)
    assert not isinstance(sm, RayShardMasker)
    sm.close()
