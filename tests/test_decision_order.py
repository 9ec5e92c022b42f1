"""Issue #15: decisions depend on the previous day's through Dagster lineage, and a backfill of a
few days decides those days only, in day order.

Before: ``policy_selection`` read the previous decision from the registry files (possibly being
rewritten by an overlapping run) and its 14-day window mapping made a two-day backfill of
``episode_rewards`` pull in the 13 following decisions.
"""

import shutil
import time

import pytest
from dagster import AssetKey, DagsterInstance
from dagster._core.execution.asset_backfill import AssetBackfillData
from test_reward_assets import local_defs, range_tags, replayed, run, write_upstream

from agentic_pipeline.selection.registry import read_registry, registry_dir
from agentic_pipeline.storage import DataRoot
from assets.definitions import build_definitions

DAYS = ["2026-10-01", "2026-10-02", "2026-10-03", "2026-10-04"]
ARMS = {("refund", "a"): (40, 0.5), ("refund", "b"): (40, 0.85)}
SELECTION = AssetKey("policy_selection")


@pytest.fixture
def instance():
    with DagsterInstance.ephemeral() as inst:
        yield inst


def test_previous_decision_is_an_input_through_lineage(data_root, instance):
    for i, ds in enumerate(DAYS[:3]):
        write_upstream(data_root, ds, replayed(ds, ARMS, seed=i), steps=False)
    defs = local_defs(data_root)
    graph = defs.resolve_asset_graph()
    assert SELECTION in graph.get(SELECTION).parent_keys  # self-dependency
    assert (
        SELECTION in graph.get(AssetKey("training_datasets")).parent_keys
        if graph.has(AssetKey("training_datasets"))
        else True
    )
    assert run(defs, instance, ["episode_rewards"], tags=range_tags(DAYS[0], DAYS[2])).success
    assert run(defs, instance, ["policy_selection"], DAYS[0]).success
    root = DataRoot(data_root)
    first = read_registry(root, DAYS[0])["task_types"]["refund"]
    # the registry files are not where the previous decision comes from: remove them
    shutil.rmtree(registry_dir(root))
    result = run(defs, instance, ["policy_selection"], DAYS[1])
    assert result.success
    second = read_registry(root, DAYS[1])
    assert second["previous_registry_ds"] == DAYS[0]
    entry = second["task_types"]["refund"]
    assert entry["previous_default"] == first["selected_policy"]
    assert first["selected_policy"] == "b" and entry["selected_policy"] == "b"
    assert not entry["changed"] and entry["default_since"] == DAYS[0]
    # the run loaded the previous day's decision as an input (lineage recorded by Dagster)
    loaded = [
        e
        for e in result.all_events
        if e.event_type_value == "LOADED_INPUT"
        and e.event_specific_data.input_name == "previous_selection"
    ]
    assert loaded


def test_two_day_backfill_targets_the_two_days_only(tmp_path):
    defs = build_definitions(str(tmp_path))
    graph = defs.resolve_asset_graph()
    # training_datasets reads the decision: lineage makes it follow (and go stale with) it
    assert SELECTION in graph.get(AssetKey("training_datasets")).parent_keys
    keys = [node.key for node in graph.asset_nodes]
    with DagsterInstance.ephemeral() as instance:
        data = AssetBackfillData.from_asset_partitions(
            asset_graph=graph,
            partition_names=DAYS[:2],
            asset_selection=keys,
            dynamic_partitions_store=instance,
            backfill_start_timestamp=time.time(),
            all_partitions=False,
        )
    target = data.target_subset
    for key in keys:
        subset = target.partitions_subsets_by_asset_key[key]
        assert sorted(subset.get_partition_keys()) == DAYS[:2], key.to_user_string()
