"""Real Dagster runs over a temporary data root: re-materialization, ranges, schedule, sensor."""

import json
import os
import time
from datetime import UTC, datetime

import pytest
from conftest import chat_episode, transitions, write_jsonl
from dagster import (
    AssetKey,
    DagsterInstance,
    build_schedule_context,
    build_sensor_context,
)

from agentic_pipeline.storage import DataRoot
from assets.automation import daily_schedule, late_file_sensor
from assets.definitions import build_definitions
from cli.main import main as cli_main

DAYS = ["2026-11-01", "2026-11-02", "2026-11-03"]
RAW = ["raw_agent_logs", "raw_quarantine"]


def _land(data_root, ds: str, n: int = 3) -> None:
    folder = data_root / "landing" / ds
    write_jsonl(folder / "episodes.jsonl", [chat_episode(f"{ds}-e{i}") for i in range(n)])
    write_jsonl(folder / "transitions.jsonl", transitions(f"{ds}-t0"))


def _run(defs, instance, **kwargs):
    job = defs.resolve_job_def("daily_pipeline")
    keys = [AssetKey(k) for k in RAW]
    return job.execute_in_process(instance=instance, asset_selection=keys, **kwargs)


@pytest.fixture
def instance(tmp_path):
    with DagsterInstance.ephemeral() as inst:
        yield inst


def test_rematerializing_a_day_is_idempotent(data_root, instance):
    _land(data_root, DAYS[0])
    defs = build_definitions(str(data_root))
    root = DataRoot(data_root)
    assert _run(defs, instance, partition_key=DAYS[0]).success
    first = root.read_partition("restricted", "raw_agent_logs", DAYS[0])
    assert _run(defs, instance, partition_key=DAYS[0]).success
    second = root.read_partition("restricted", "raw_agent_logs", DAYS[0])
    assert first.equals(second)
    assert first.num_rows == 3 * 5 + 5
    assert root.partitions("restricted", "raw_agent_logs") == [DAYS[0]]


def test_single_run_backfill_writes_one_partition_per_day(data_root, instance):
    for ds in DAYS:
        _land(data_root, ds, n=2)
    defs = build_definitions(str(data_root))
    result = _run(
        defs,
        instance,
        tags={
            "dagster/asset_partition_range_start": DAYS[0],
            "dagster/asset_partition_range_end": DAYS[-1],
        },
    )
    assert result.success
    root = DataRoot(data_root)
    assert root.partitions("restricted", "raw_agent_logs") == DAYS
    for ds in DAYS:
        table = root.read_partition("restricted", "raw_agent_logs", ds)
        assert set(table.column("ds").to_pylist()) == {ds}
        assert len(set(table.column("episode_id").to_pylist())) == 3
    materialized = instance.get_materialized_partitions(AssetKey("raw_agent_logs"))
    assert materialized == set(DAYS)


def test_missing_landing_folder_fails_clearly_and_writes_nothing(data_root, instance):
    defs = build_definitions(str(data_root))
    result = _run(defs, instance, partition_key="2026-11-05", raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure)
    assert "no landing folder for 2026-11-05" in failure.step_failure_data.error.message
    assert DataRoot(data_root).partitions("restricted", "raw_agent_logs") == []


def test_schedule_asks_for_the_previous_day(data_root):
    schedule = build_definitions(str(data_root)).resolve_schedule_def(daily_schedule.name)
    context = build_schedule_context(
        scheduled_execution_time=datetime(2026, 11, 29, 2, 15, tzinfo=UTC)
    )
    requests = list(schedule.evaluate_tick(context).run_requests)
    assert [r.partition_key for r in requests] == ["2026-11-28"]
    assert schedule.cron_schedule == "15 2 * * *"
    assert schedule.execution_timezone == "UTC"
    assert schedule.default_status.value == "RUNNING"


def test_sensor_reruns_a_day_when_a_late_file_lands(data_root, instance):
    _land(data_root, DAYS[0])
    _land(data_root, DAYS[1])
    defs = build_definitions(str(data_root))
    resources = {"data_root": defs.resources["data_root"]}
    assert _run(defs, instance, partition_key=DAYS[0]).success

    def tick():
        context = build_sensor_context(instance=instance, resources=resources)
        return list(late_file_sensor(context))

    # nothing late yet; DAYS[1] was never materialized, so it is the schedule's job, not ours
    assert all(not hasattr(r, "partition_key") for r in tick())
    time.sleep(0.05)
    late = data_root / "landing" / DAYS[0] / "late.jsonl"
    write_jsonl(late, [chat_episode("late-1")])
    os.utime(late, (time.time() + 1, time.time() + 1))
    requests = [r for r in tick() if hasattr(r, "partition_key")]
    assert [r.partition_key for r in requests] == [DAYS[0]]
    assert requests[0].tags["agentic_pipeline/trigger"] == "late_file"
    # once re-run, the day is up to date again
    time.sleep(1.1)
    assert _run(defs, instance, partition_key=DAYS[0]).success
    assert all(not hasattr(r, "partition_key") for r in tick())


def test_sensor_keys_on_content_not_modification_time(data_root, instance):
    """Issue #15: re-writing byte-identical landing files (make demo again) re-ran every day."""
    _land(data_root, DAYS[0])
    defs = build_definitions(str(data_root))
    resources = {"data_root": defs.resources["data_root"]}
    assert _run(defs, instance, partition_key=DAYS[0]).success

    def requested():
        context = build_sensor_context(instance=instance, resources=resources)
        return [r.partition_key for r in late_file_sensor(context) if hasattr(r, "partition_key")]

    folder = data_root / "landing" / DAYS[0]
    later = time.time() + 100
    for path in folder.iterdir():  # same bytes, new files, newer modification times
        data = path.read_bytes()
        path.unlink()
        path.write_bytes(data)
        os.utime(path, (later, later))
    assert requested() == []
    # same size, different content, old modification time: still a change
    episodes = folder / "episodes.jsonl"
    data = bytearray(episodes.read_bytes())
    data[data.index(b"e0")] = ord("f")
    old = time.time() - 10_000
    episodes.write_bytes(bytes(data))
    os.utime(episodes, (old, old))
    assert requested() == [DAYS[0]]
    assert requested() == [DAYS[0]]  # the same content keeps the same run key (deduplicated)
    context = build_sensor_context(instance=instance, resources=resources)
    keys = {r.run_key for r in late_file_sensor(context) if hasattr(r, "run_key")}
    assert len(keys) == 1


def test_cli_materializes_a_range_into_the_instance_under_the_data_root(data_root, capsys):
    for ds in DAYS[:2]:
        _land(data_root, ds)
    code = cli_main(
        [
            "materialize",
            "--start",
            DAYS[0],
            "--end",
            DAYS[1],
            "--data-dir",
            str(data_root),
            "--select",
            "raw_agent_logs",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "raw_agent_logs, raw_quarantine" in out
    home = data_root / "dagster_home"
    assert (home / "dagster.yaml").exists()
    with DagsterInstance.from_config(str(home)) as inst:
        runs = inst.get_runs()
        assert len(runs) == 2 and all(r.is_success for r in runs)
        assert inst.get_materialized_partitions(AssetKey("raw_agent_logs")) == set(DAYS[:2])


def test_cli_rejects_bad_ranges_and_unwritable_roots(data_root, tmp_path, capsys):
    assert (
        cli_main(
            [
                "materialize",
                "--start",
                "2026-11-02",
                "--end",
                "2026-11-01",
                "--data-dir",
                str(data_root),
            ]
        )
        == 2
    )
    # no landing files: nothing to read (exit 3)
    assert cli_main(["materialize", "--start", "2001-01-01", "--data-dir", str(data_root)]) == 3
    write_jsonl(data_root / "landing" / "2001-01-01" / "old.jsonl", [chat_episode("old")])
    assert cli_main(["materialize", "--start", "2001-01-01", "--data-dir", str(data_root)]) == 2
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert (
        cli_main(["materialize", "--start", "2026-11-01", "--data-dir", str(blocker / "sub")]) == 2
    )
    out = capsys.readouterr().out
    assert "before --start" in out and "no landing files for 2001-01-01" in out
    assert "before the partitions' start date" in out
    assert "not writable" in out


def test_quarantine_partition_holds_reasons(data_root, instance):
    folder = data_root / "landing" / DAYS[0]
    write_jsonl(folder / "mixed.jsonl", [chat_episode("ok"), "{not json", json.dumps([1])])
    defs = build_definitions(str(data_root))
    result = _run(defs, instance, partition_key=DAYS[0])
    assert result.success
    quarantine = DataRoot(data_root).read_partition("restricted", "raw_quarantine", DAYS[0])
    assert quarantine.num_rows == 2
    mats = {
        m.asset_key.path[-1]: m.metadata
        for m in (
            e.event_specific_data.materialization for e in result.get_asset_materialization_events()
        )
    }
    assert mats["raw_agent_logs"]["records_read"].value == 3
    assert mats["raw_agent_logs"]["records_quarantined"].value == 2
    assert mats["raw_agent_logs"]["dagster/row_count"].value == 5
    preview = mats["raw_agent_logs"]["preview"].value
    assert "ann@example.com" not in preview and "Ann" not in preview
