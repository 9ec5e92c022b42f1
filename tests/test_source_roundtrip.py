"""Tokens agree downstream: the same agent trace landed raw, and landed after masking at the source,
gives the same ``masked_trajectories`` rows through the real Dagster job, tokens stay tokens, and
erasure finds the person in both data roots."""

import json

import pytest
from dagster import AssetKey, DagsterInstance
from test_source_otel import EMAIL, NAME, PHONE, RAW_VALUES, traced

from agentic_pipeline.erasure import plan_erasure
from agentic_pipeline.masking import DEV_MASKING_KEY
from agentic_pipeline.masking.pseudonyms import TOKEN_RE
from agentic_pipeline.source.otel import otlp_json
from agentic_pipeline.storage import DataRoot
from assets.definitions import build_definitions

DS = "2026-11-30"
STAGES = [
    "raw_agent_logs",
    "raw_quarantine",
    "masked_trajectories",
    "pii_audit",
    "withheld_episodes",
]
#: Lineage of the landed bytes: the sha256 of a masked record differs from the raw one's.
LINEAGE = {"source_sha256"}


def _materialize(root, spans) -> DataRoot:
    landing = root / "landing" / DS
    landing.mkdir(parents=True)
    (landing / "traces.jsonl").write_text(json.dumps(otlp_json(spans)) + "\n")
    defs = build_definitions(str(root))
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("daily_pipeline").execute_in_process(
            instance=instance, partition_key=DS, asset_selection=[AssetKey(k) for k in STAGES]
        )
    assert result.success
    return DataRoot(root)


@pytest.fixture(scope="module")
def two_roots(tmp_path_factory):
    raw_spans, masked_spans = traced()
    raw = _materialize(tmp_path_factory.mktemp("raw") / "data", raw_spans)
    source = _materialize(tmp_path_factory.mktemp("source") / "data", masked_spans)
    return raw, source, masked_spans


def test_masked_at_the_source_gives_the_same_warehouse_rows(two_roots):
    raw, source, _ = two_roots
    a = raw.read_partition("warehouse", "masked_trajectories", DS)
    b = source.read_partition("warehouse", "masked_trajectories", DS)
    assert a.num_rows == b.num_rows >= 8  # system, user, 3 calls, 3 results, reply
    assert raw.read_partition("restricted", "withheld_episodes", DS).num_rows == 0
    assert source.read_partition("restricted", "withheld_episodes", DS).num_rows == 0
    for col in a.column_names:
        if col not in LINEAGE:
            assert a.column(col).equals(b.column(col)), col
    text = "\n".join(
        str(v) for col in ("content", "tool_arguments") for v in b.column(col).to_pylist()
    )
    for value in RAW_VALUES:
        assert value not in text, value


def test_a_token_stays_a_token(two_roots):
    _, source, masked_spans = two_roots
    landed = set(TOKEN_RE.findall("\n".join(s.to_json() for s in masked_spans)))
    stored = source.read_partition("warehouse", "masked_trajectories", DS)
    text = "\n".join(str(v) for v in stored.column("content").to_pylist())
    assert set(TOKEN_RE.findall(text)) <= landed  # no new token for a token
    # the pipeline found nothing left to mask in the source-masked rows
    audit = source.read_partition("warehouse", "pii_audit", DS)
    assert [r for r in audit.column("detector").to_pylist() if r != "guard"] == []


def test_erasure_finds_the_person_in_both_paths(two_roots):
    raw, source, _ = two_roots
    for root in (raw, source):
        plan = plan_erasure(root, [EMAIL, PHONE, NAME], DEV_MASKING_KEY)
        assert plan.episodes_by_day == {DS: {"conv-7f3a"}}
