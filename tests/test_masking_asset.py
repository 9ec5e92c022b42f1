"""The masking stage in Dagster: real Presidio over simulated logs, audit, blocking leak check."""

import datetime as dt

import pyarrow as pa
import pytest
from dagster import AssetCheckKey, AssetKey, DagsterInstance

from agentic_pipeline.simulator import generate_episodes, write_landing
from agentic_pipeline.storage import DataRoot
from assets.definitions import build_definitions

DS = "2026-11-10"
STAGES = ["raw_agent_logs", "raw_quarantine", "masked_trajectories", "pii_audit"]


@pytest.fixture(scope="module")
def masked_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("masking") / "data"
    write_landing(root, dt.date.fromisoformat(DS), 1, 12, seed=5)
    defs = build_definitions(str(root))
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("daily_pipeline").execute_in_process(
            instance=instance,
            partition_key=DS,
            asset_selection=[AssetKey(k) for k in [*STAGES, "replayed_episodes"]],
        )
        yield root, defs, instance, result


def _planted_values(n: int = 12) -> set[str]:
    values = set()
    for episode in generate_episodes(dt.date.fromisoformat(DS), n, seed=5):
        c = episode.customer
        values |= {
            str(c[k]) for k in ("email", "phone", "card_number", "dob", "last_name") if c.get(k)
        }
    return values


def test_masked_partition_holds_no_planted_value(masked_run):
    root, _, _, result = masked_run
    assert result.success
    data = DataRoot(root)
    masked = data.read_partition("warehouse", "masked_trajectories", DS)
    raw = data.read_partition("restricted", "raw_agent_logs", DS)
    assert masked.num_rows == raw.num_rows
    assert masked.column("tool_call_id").equals(raw.column("tool_call_id"))
    text = "\n".join(
        str(v)
        for col in ("content", "tool_arguments", "task_description", "task_goal")
        for v in masked.column(col).to_pylist()
        if v
    )
    planted = _planted_values()
    assert planted and not [v for v in planted if v in text]
    assert "<EMAIL_ADDRESS_" in text and "<PERSON_" in text


def test_audit_and_metadata_never_hold_raw_values(masked_run):
    root, _, _, result = masked_run
    audit = DataRoot(root).read_partition("warehouse", "pii_audit", DS)
    assert audit.num_rows > 0
    dump = str(audit.to_pylist())
    metadata = str(
        [
            e.event_specific_data.materialization.metadata
            for e in result.get_asset_materialization_events()
        ]
    )
    for value in _planted_values():
        assert value not in dump and value not in metadata


def test_leak_check_passes_then_blocks_downstream_on_a_leak(masked_run):
    root, defs, instance, result = masked_run
    checks = {
        e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }
    assert checks["no_personal_data_in_masked"] is True
    assert instance.get_materialized_partitions(AssetKey("replayed_episodes")) == {DS}

    # plant a leak in a stored partition (as a buggy writer would): the check catches it
    data = DataRoot(root)
    day2 = "2026-11-11"
    table = data.read_partition("warehouse", "masked_trajectories", DS)
    leaked = table.set_column(
        table.schema.get_field_index("content"),
        "content",
        pa.array(["write to jane.doe@example.org please"] * table.num_rows),
    )
    data.write_partition("warehouse", "masked_trajectories", day2, leaked)
    assert _run_check(defs, instance, day2) is False


def _run_check(defs, instance, ds: str) -> bool:
    """Run only the stored-data check for ``ds`` (the masked partition is already on disk)."""
    job = defs.resolve_job_def("daily_pipeline").get_subset(
        asset_selection=set(),
        asset_check_selection={
            AssetCheckKey(AssetKey("masked_trajectories"), "no_personal_data_in_masked")
        },
    )
    result = job.execute_in_process(instance=instance, partition_key=ds, raise_on_error=False)
    evaluations = [
        e.asset_check_evaluation_data
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    ]
    assert len(evaluations) == 1
    assert evaluations[0].metadata["leaks"].value > 0
    assert "jane.doe" not in str(evaluations[0].metadata)
    return evaluations[0].passed


def test_leak_check_is_blocking_and_per_partition():
    from assets.masking import no_personal_data_in_masked

    (spec,) = no_personal_data_in_masked.check_specs
    assert spec.blocking is True
    assert no_personal_data_in_masked.partitions_def is not None


def test_a_leaking_day_in_a_range_writes_nothing_and_earlier_days_keep_their_audit(tmp_path):
    """A personal value used as a JSON key is not masked (keys are schema), so the leak scan
    stops that day; the days before it in the same single-run backfill stay complete."""
    import json

    from conftest import chat_episode, write_jsonl

    root = tmp_path / "data"
    days = ["2026-11-12", "2026-11-13"]
    write_jsonl(root / "landing" / days[0] / "e.jsonl", [chat_episode("clean-1")])
    leaky = chat_episode("leaky-1")
    leaky["messages"][3]["content"] = json.dumps({"by_email": {"bob.smith@example.com": 1}})
    write_jsonl(root / "landing" / days[1] / "e.jsonl", [leaky])
    defs = build_definitions(str(root))
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("daily_pipeline").execute_in_process(
            instance=instance,
            asset_selection=[AssetKey(k) for k in STAGES],
            tags={"dagster/asset_partition_range_start": days[0],
                  "dagster/asset_partition_range_end": days[1]},
            raise_on_error=False,
        )
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure)
    message = failure.step_failure_data.error.message
    assert "masking left personal data" in message and "bob.smith" not in message
    data = DataRoot(root)
    assert data.partitions("warehouse", "masked_trajectories") == [days[0]]
    assert data.partitions("warehouse", "pii_audit") == [days[0]]
