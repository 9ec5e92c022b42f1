"""Decisions follow their inputs (issue #23): declarative automation re-runs the next days.

A late file re-runs its day (the late-file sensor); then Dagster's own automation condition on
``policy_selection`` and ``training_datasets`` requests the following days, which are run as the
sensor's backfill runs them (day order), until nothing is left to request. Evaluated with
Dagster's ``evaluate_automation_conditions``, the same evaluation the daemon's sensor performs.
"""

import pytest
from conftest import chat_episode, write_jsonl
from dagster import (
    AssetKey,
    AssetRecordsFilter,
    AutomationConditionSensorDefinition,
    DagsterInstance,
    build_sensor_context,
    evaluate_automation_conditions,
)

from assets.automation import FOLLOWING_ASSETS, late_file_sensor
from assets.definitions import build_definitions

DAYS = ["2026-11-01", "2026-11-02", "2026-11-03"]
FOLLOWING = [AssetKey(name) for name in FOLLOWING_ASSETS]


def _land(data_root, ds: str, name: str = "episodes.jsonl", n: int = 3) -> None:
    episodes = [chat_episode(f"{ds}-{name}-{i}") for i in range(n)]
    write_jsonl(data_root / "landing" / ds / name, episodes)


def _latest(instance, key: AssetKey, ds: str) -> int:
    """Storage id of the newest materialization of ``key`` for ``ds`` (0 if none)."""
    records = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=key, asset_partitions=[ds]), limit=1
    ).records
    return records[0].storage_id if records else 0


def _requested(result) -> dict[str, set[str]]:
    return {
        key.to_user_string(): set(result.get_requested_partitions(key))
        for key in FOLLOWING
        if result.get_num_requested(key)
    }


@pytest.fixture
def instance():
    with DagsterInstance.ephemeral() as inst:
        yield inst


def test_the_sensor_is_dagsters_declarative_automation_and_on_by_default():
    defs = build_definitions()
    sensor = defs.resolve_sensor_def("decisions_follow_inputs")
    assert isinstance(sensor, AutomationConditionSensorDefinition)
    assert sensor.default_status.value == "RUNNING"
    graph = defs.resolve_asset_graph()
    for key in FOLLOWING:
        assert graph.get(key).automation_condition is not None


def test_a_late_file_reruns_the_next_days_decisions_without_a_hand(data_root, instance):
    for ds in DAYS:
        _land(data_root, ds)
    defs = build_definitions(str(data_root))
    job = defs.resolve_job_def("daily_pipeline")
    for ds in DAYS:  # the days as the schedule or a backfill made them, in order
        assert job.execute_in_process(instance=instance, partition_key=ds).success
    result = evaluate_automation_conditions(defs=defs, instance=instance)
    assert result.total_requested == 0  # everything is current

    # a late file for the first day: the late-file sensor re-runs that day, whole
    _land(data_root, DAYS[0], name="late.jsonl", n=2)
    context = build_sensor_context(
        instance=instance, resources={"data_root": defs.resources["data_root"]}
    )
    (request,) = [r for r in late_file_sensor(context) if hasattr(r, "partition_key")]
    assert request.partition_key == DAYS[0]
    assert job.execute_in_process(
        instance=instance, partition_key=DAYS[0], tags=request.tags
    ).success
    rerun = _latest(instance, AssetKey("policy_selection"), DAYS[0])

    # Dagster's automation now asks for the following days' decisions and training files
    ticks = []
    while True:
        result = evaluate_automation_conditions(defs=defs, instance=instance, cursor=result.cursor)
        requested = _requested(result)
        if not requested:
            break
        ticks.append(requested)
        assert len(ticks) < 5, ticks
        days = sorted(set().union(*requested.values()))
        for ds in days:  # the sensor's backfill runs a self-dependent asset in day order
            keys = [k for k in FOLLOWING if ds in requested.get(k.to_user_string(), set())]
            assert job.execute_in_process(
                instance=instance, partition_key=ds, asset_selection=keys
            ).success
    assert ticks, "nothing was requested after the late day changed"
    print("automation ticks:", ticks)
    assert set().union(*(t["policy_selection"] for t in ticks)) == set(DAYS[1:])
    # every later decision was re-made after the late day's, in day order
    later = [_latest(instance, AssetKey("policy_selection"), ds) for ds in DAYS[1:]]
    assert rerun < later[0] < later[1]
    for ds in DAYS[1:]:  # and each day's training files after its decision
        assert _latest(instance, AssetKey("training_datasets"), ds) > _latest(
            instance, AssetKey("policy_selection"), ds
        )
