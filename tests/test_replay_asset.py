"""Real Dagster runs of ``replayed_episodes`` over a temporary data root (the shadow assets:
``tests/test_shadow_assets.py``)."""

import datetime as dt

import pyarrow as pa
import pytest
from dagster import (
    AssetKey,
    AssetSpec,
    DagsterInstance,
    Definitions,
    define_asset_job,
    in_process_executor,
)

from agentic_pipeline.demo import write_landing
from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.schema import STEP_SCHEMA
from agentic_pipeline.storage import DataRoot
from assets.partitions import daily_partitions
from assets.replay import replayed_episodes
from resources import PartitionedParquetIOManager
from resources.catalogue import ToolCatalogueResource

DAYS = ["2026-04-01", "2026-04-02"]
MASKED = AssetSpec(
    "masked_trajectories", partitions_def=daily_partitions, metadata={"zone": "warehouse"}
)


@pytest.fixture(scope="module")
def day_tables(tmp_path_factory) -> dict[str, pa.Table]:
    """Canonical rows standing in for the masking stage's output (the replay is equality-based)."""
    root = tmp_path_factory.mktemp("land")
    write_landing(root, dt.date.fromisoformat(DAYS[0]), len(DAYS), 40, seed=2)
    return {ds: ingest_day(root / "landing" / ds, ds).steps for ds in DAYS}


def _defs(root) -> Definitions:
    return Definitions(
        assets=[MASKED, replayed_episodes],
        jobs=[define_asset_job("replay_job", selection=["replayed_episodes"])],
        resources={
            "io_manager": PartitionedParquetIOManager(path=str(root)),
            "tool_catalogue": ToolCatalogueResource(),
        },
        executor=in_process_executor,
    )


@pytest.fixture
def root(tmp_path, day_tables):
    data = DataRoot(tmp_path / "data")
    for ds, table in day_tables.items():
        assert table.schema == STEP_SCHEMA
        data.write_partition("warehouse", "masked_trajectories", ds, table)
    return tmp_path / "data"


def _metadata(result, key: str) -> dict:
    events = [e for e in result.get_asset_materialization_events() if e.asset_key == AssetKey(key)]
    return events[-1].materialization.metadata


def test_replayed_episodes_for_one_day(root):
    defs = _defs(root)
    with DagsterInstance.ephemeral() as instance:
        job = defs.resolve_job_def("replay_job")
        result = job.execute_in_process(instance=instance, partition_key=DAYS[0])
        assert result.success
        data = DataRoot(root)
        replayed = data.read_partition("warehouse", "replayed_episodes", DAYS[0]).to_pandas()
        assert len(replayed) == 40 and set(replayed["ds"]) == {DAYS[0]}
        assert set(replayed["replay_status"]) == {"ok"}
        meta = _metadata(result, "replayed_episodes")
        assert meta["dagster/row_count"].value == 40
        assert "replay_status" in [c.name for c in meta["dagster/column_schema"].schema.columns]
        assert "| policy_id |" in meta["rates_by_policy"].value
        assert "ok" in meta["status_counts"].value
        assert meta["tool_catalogue"].value == ToolCatalogueResource().load().version
        assert meta["unknown_tools"].value == 0 and "crm" in meta["tool_sets"].value
        assert {"n_writes", "unknown_tools"} <= set(replayed.columns)
        text = " ".join(str(v.value) for v in meta.values())
        assert "@" not in text  # no personal data in the metadata

        # re-materializing gives the same bytes-level content
        assert job.execute_in_process(instance=instance, partition_key=DAYS[0]).success
        again = data.read_partition("warehouse", "replayed_episodes", DAYS[0]).to_pandas()
        assert again.equals(replayed)


def test_single_run_backfill(root):
    defs = _defs(root)
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("replay_job").execute_in_process(
            instance=instance,
            tags={
                "dagster/asset_partition_range_start": DAYS[0],
                "dagster/asset_partition_range_end": DAYS[-1],
            },
        )
        assert result.success
        data = DataRoot(root)
        assert data.partitions("warehouse", "replayed_episodes") == DAYS
        for ds in DAYS:
            table = data.read_partition("warehouse", "replayed_episodes", ds)
            assert table.num_rows == 40 and set(table.column("ds").to_pylist()) == {ds}
        assert instance.get_materialized_partitions(AssetKey("replayed_episodes")) == set(DAYS)
