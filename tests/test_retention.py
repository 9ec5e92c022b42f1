"""Retention deletes old raw days only, and records what it deleted."""

from conftest import chat_episode, write_jsonl
from dagster import AssetKey, DagsterEventType, DagsterInstance, EventRecordsFilter

from agentic_pipeline.storage import DataRoot
from assets.definitions import build_definitions

DAYS = ["2026-10-01", "2026-10-02", "2026-11-20"]


def test_retention_job_deletes_old_restricted_days_and_audits(data_root):
    for ds in DAYS:
        write_jsonl(data_root / "landing" / ds / "e.jsonl", [chat_episode(f"{ds}-1")])
    defs = build_definitions(str(data_root))
    root = DataRoot(data_root)
    with DagsterInstance.ephemeral() as instance:
        pipeline = defs.resolve_job_def("daily_pipeline")
        for ds in DAYS:
            assert pipeline.execute_in_process(
                instance=instance,
                partition_key=ds,
                asset_selection=[AssetKey("raw_agent_logs"), AssetKey("raw_quarantine")],
            ).success
        root.write_partition("warehouse", "derived", "2026-10-01", _one_row("2026-10-01"))
        result = defs.resolve_job_def("retention_job").execute_in_process(
            instance=instance,
            run_config={
                "ops": {"apply_raw_retention": {"config": {"keep_days": 30, "today": "2026-11-30"}}}
            },
        )
        assert result.success
        for asset in ("raw_agent_logs", "raw_quarantine"):
            assert root.partitions("restricted", asset) == ["2026-11-20"]
        assert root.partitions("warehouse", "derived") == ["2026-10-01"]  # derived data stays
        audit = root.read_partition("warehouse", "retention_audit", "2026-11-30").to_pylist()
        assert sorted((a["asset"], a["partition"]) for a in audit) == [
            ("landing", "2026-10-01"),
            ("landing", "2026-10-02"),
            ("raw_agent_logs", "2026-10-01"),
            ("raw_agent_logs", "2026-10-02"),
            ("raw_quarantine", "2026-10-01"),
            ("raw_quarantine", "2026-10-02"),
        ]
        assert sorted(p.name for p in (data_root / "landing").iterdir()) == ["2026-11-20"]
        assert {a["run_id"] for a in audit} == {result.run_id}
        assert audit[0]["rows"] >= 0 and audit[0]["deleted_at"]
        # the event log says it too
        observations = instance.get_event_records(
            EventRecordsFilter(DagsterEventType.ASSET_OBSERVATION, AssetKey("raw_agent_logs"))
        )
        meta = observations[0].event_log_entry.dagster_event.asset_observation_data
        assert meta.asset_observation.metadata["retention_deleted_days"].value == (
            "2026-10-01, 2026-10-02"
        )
        # a second run finds nothing more to delete
        again = defs.resolve_job_def("retention_job").execute_in_process(
            instance=instance,
            run_config={
                "ops": {"apply_raw_retention": {"config": {"keep_days": 30, "today": "2026-11-30"}}}
            },
        )
        assert again.success
        assert len(root.read_partition("warehouse", "retention_audit", "2026-11-30")) == 6


def _one_row(ds):
    import pyarrow as pa

    return pa.table({"ds": [ds], "x": [1]})
