"""The one atomic writer (``agentic_pipeline.storage.files``) and the one per-day helper
(``assets.days.RunDays``), issue #13 point 4."""

import errno
import os
import stat
import threading

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetSpec,
    DagsterInstance,
    Definitions,
    asset,
    define_asset_job,
    in_process_executor,
)

from agentic_pipeline.storage import (
    DataRoot,
    atomic_path,
    atomic_write_bytes,
    atomic_write_text,
)
from agentic_pipeline.storage import files as storage_files
from assets.days import RunDays
from assets.metadata import REDACTIONS_KEY
from assets.partitions import daily_partitions
from resources import PartitionedParquetIOManager
from resources.io_manager import DayReader


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _names(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --- the atomic writer ------------------------------------------------------------------------


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_partial_one(tmp_path, monkeypatch):
    target = tmp_path / "registry.json"
    target.write_bytes(b'{"old": true}')

    def disk_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(storage_files.os, "fsync", disk_full)  # the bytes are written, not synced
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(target, b'{"new": true}' * 1000)
    monkeypatch.undo()
    assert target.read_bytes() == b'{"old": true}'
    assert _names(tmp_path) == ["registry.json"]  # the temporary file is gone

    with pytest.raises(RuntimeError, match="renderer died"):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half a file")
            raise RuntimeError("renderer died")
    assert target.read_bytes() == b'{"old": true}'
    assert _names(tmp_path) == ["registry.json"]


def test_modes_are_set_exactly_and_new_files_follow_the_umask_by_default(tmp_path):
    old_umask = os.umask(0o022)
    try:
        loose = tmp_path / "loose.txt"
        loose.write_text("x")
        os.chmod(loose, 0o644)
        atomic_write_text(loose, "private", mode=0o600)  # replacing a 0644 file
        assert _mode(loose) == 0o600 and loose.read_text() == "private"
        assert _mode(atomic_write_text(tmp_path / "plain.txt", "x")) == 0o644  # as open("w")
        os.umask(0o077)  # a strict umask cannot tighten a zone's explicit mode either
        assert _mode(atomic_write_bytes(tmp_path / "shared.bin", b"x", mode=0o644)) == 0o644
        # a writer that needs a path: the mode holds before it writes and after it is done
        with atomic_path(tmp_path / "chart.png", mode=0o600) as tmp:
            assert tmp.suffix == ".png" and tmp.parent == tmp_path  # format inference works
            assert _mode(tmp) == 0o600
            tmp.unlink()  # a writer that re-creates the file gets the umask's mode ...
            tmp.write_bytes(b"\x89PNG")
        assert _mode(tmp_path / "chart.png") == 0o600  # ... and the target still gets 0600
    finally:
        os.umask(old_umask)


def test_zone_files_get_the_zone_modes_and_stay_inside_the_zone(tmp_path):
    root = DataRoot(tmp_path)
    path = root.atomic_write(
        "restricted", root.root / "restricted" / "notes" / "ds=2026-11-01" / "a.json", b"{}"
    )
    assert _mode(path) == 0o600
    assert _mode(tmp_path / "restricted" / "notes" / "ds=2026-11-01") == 0o700
    assert _mode(tmp_path / "restricted") == 0o700
    with root.atomic_path("warehouse", root.root / "warehouse" / "reg" / "chart.png") as tmp:
        tmp.write_bytes(b"png")
    assert _mode(tmp_path / "warehouse" / "reg" / "chart.png") == 0o644
    with pytest.raises(ValueError, match="not inside"):
        root.atomic_write("warehouse", root.root / "restricted" / "x.json", b"{}")


def test_readers_see_the_old_file_or_the_new_one_never_a_part(tmp_path):
    target = tmp_path / "latest.json"
    payloads = [bytes([65 + i]) * 300_000 for i in range(2)]  # large: many write() chunks
    atomic_write_bytes(target, payloads[0])
    seen, stop = set(), threading.Event()

    def read() -> None:
        while not stop.is_set():
            data = target.read_bytes()  # never missing: os.replace swaps the name in one step
            seen.add(data if data in payloads else b"torn")

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(60):
            atomic_write_bytes(target, payloads[i % 2])
    finally:
        stop.set()
        reader.join()
    assert b"torn" not in seen and seen
    assert _names(tmp_path) == ["latest.json"]


def test_an_object_store_path_is_written_through_the_same_api():
    root = DataRoot("memory://atomic-write-test")
    path = root.root / "warehouse" / "erasure_receipts" / "r1.json"
    root.atomic_write("warehouse", path, b'{"receipt": 1}')
    root.atomic_write("warehouse", path, b'{"receipt": 2}')
    assert path.read_bytes() == b'{"receipt": 2}'
    assert [p.name for p in path.parent.iterdir()] == ["r1.json"]


# --- the per-day helper -----------------------------------------------------------------------

DAYS = ["2026-11-01", "2026-11-02", "2026-11-03"]
UPSTREAM = AssetSpec("upstream", partitions_def=daily_partitions, metadata={"zone": "warehouse"})


def _defs(tmp_path, calls: list):
    class Opened:
        def __enter__(self):
            calls.append("open")
            return "resource"

        def __exit__(self, *exc):
            calls.append("close")

    @asset(
        ins={"upstream": AssetIn(metadata={"load": "by_day"})},
        partitions_def=daily_partitions,
        backfill_policy=None,
        metadata={"zone": "warehouse"},
    )
    def doubled(context: AssetExecutionContext, upstream: DayReader):
        days = RunDays(context)
        days.require(upstream, hint="materialize it first")
        total = {"rows": 0}

        def produce(ds: str, resource: str) -> pa.Table:
            calls.append(ds)
            table = upstream.read_table(ds)
            total["rows"] += table.num_rows
            days.log(ds, f"{table.num_rows} rows with {resource}")
            return table.append_column("y", pc.multiply(table.column("x"), 2))

        def metadata() -> dict:
            calls.append("metadata")
            return {"dagster/row_count": total["rows"], "note": "mail bob@example.com"}

        return days.tables(produce, metadata, using=Opened)

    return Definitions(
        assets=[UPSTREAM, doubled],
        jobs=[define_asset_job("doubled_job", ["doubled"], executor_def=in_process_executor)],
        resources={"io_manager": PartitionedParquetIOManager(path=str(tmp_path))},
    )


def _store_upstream(tmp_path, days):
    root = DataRoot(tmp_path)
    for i, ds in enumerate(days):
        root.write_partition("warehouse", "upstream", ds, pa.table({"x": list(range(i + 1))}))
    return root


def _logs(instance, result) -> list[str]:
    return [r.user_message for r in instance.all_logs(result.run_id)]


def test_run_days_over_one_day(tmp_path):
    root = _store_upstream(tmp_path, DAYS)
    calls: list = []
    job = _defs(tmp_path, calls).resolve_job_def("doubled_job")
    with DagsterInstance.ephemeral() as instance:
        result = job.execute_in_process(instance=instance, partition_key=DAYS[1])
        assert result.success
        assert calls == ["open", DAYS[1], "close", "metadata"]
        assert root.partitions("warehouse", "doubled") == [DAYS[1]]
        day = root.read_partition("warehouse", "doubled", DAYS[1])
        assert day.column("y").to_pylist() == [0, 2] and set(day.column("ds").to_pylist()) == {
            DAYS[1]
        }
        meta = result.asset_materializations_for_node("doubled")[0].metadata
        assert meta["dagster/row_count"].value == 2
        assert "bob@example.com" not in str(meta["note"].value)  # the leak scan ran
        assert meta[REDACTIONS_KEY].value == 1
        assert f"{DAYS[1]}: 2 rows with resource" in _logs(instance, result)


def test_run_days_over_a_single_run_backfill(tmp_path):
    root = _store_upstream(tmp_path, DAYS)
    calls: list = []
    defs = _defs(tmp_path, calls)
    tags = {
        "dagster/asset_partition_range_start": DAYS[0],
        "dagster/asset_partition_range_end": DAYS[-1],
    }
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("doubled_job").execute_in_process(
            instance=instance, tags=tags
        )
        assert result.success
        # day order, one resource for the whole run, metadata once every day is written
        assert calls == ["open", *DAYS, "close", "metadata"]
        assert root.partitions("warehouse", "doubled") == DAYS
        for i, ds in enumerate(DAYS):
            day = root.read_partition("warehouse", "doubled", ds)
            assert day.num_rows == i + 1 and set(day.column("ds").to_pylist()) == {ds}
        meta = result.asset_materializations_for_node("doubled")[0].metadata
        assert meta["dagster/row_count"].value == 6
        assert {f"{ds}: {i + 1} rows with resource" for i, ds in enumerate(DAYS)} <= set(
            _logs(instance, result)
        )

        # an upstream day missing: the run fails before any day is produced, naming the day
        root.delete_partition("warehouse", "upstream", DAYS[2])
        calls.clear()
        failed = defs.resolve_job_def("doubled_job").execute_in_process(
            instance=instance, tags=tags, raise_on_error=False
        )
        assert not failed.success and calls == []
        step_failure = next(e for e in failed.all_events if e.is_step_failure)
        message = str(step_failure.step_failure_data.error)
        assert f"upstream has no partition for {DAYS[2]}: materialize it first" in message
