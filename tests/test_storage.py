"""The partitioned Parquet layout: atomic day replacement, permissions, per-day splitting."""

import stat

import pyarrow as pa
import pyarrow.dataset as pads
import pytest

from agentic_pipeline.storage import DataRoot, split_by_day


def _table(ds: str, n: int) -> pa.Table:
    return pa.table({"ds": [ds] * n, "x": list(range(n))})


def test_write_replaces_exactly_one_day(tmp_path):
    root = DataRoot(tmp_path)
    root.write_partition("warehouse", "t", "2026-11-01", _table("2026-11-01", 3))
    root.write_partition("warehouse", "t", "2026-11-02", _table("2026-11-02", 2))
    root.write_partition("warehouse", "t", "2026-11-01", _table("2026-11-01", 5))
    assert root.partitions("warehouse", "t") == ["2026-11-01", "2026-11-02"]
    assert root.read_partition("warehouse", "t", "2026-11-01").num_rows == 5
    assert root.read_partition("warehouse", "t", "2026-11-02").num_rows == 2
    # no staging or trash folders are left behind (only the days' hidden lock files)
    names = (tmp_path / "warehouse" / "t").iterdir()
    assert sorted(p.name for p in names if not p.name.endswith(".lock")) == [
        "ds=2026-11-01",
        "ds=2026-11-02",
    ]


def test_hive_layout_is_readable_by_pyarrow_dataset(tmp_path):
    root = DataRoot(tmp_path)
    for ds, n in (("2026-11-01", 3), ("2026-11-02", 4)):
        root.write_partition("warehouse", "t", ds, _table(ds, n))
    dataset = pads.dataset(tmp_path / "warehouse" / "t", partitioning="hive")
    table = dataset.to_table()
    assert table.num_rows == 7
    assert sorted(set(table.column("ds").to_pylist())) == ["2026-11-01", "2026-11-02"]


def test_restricted_zone_permissions(tmp_path):
    root = DataRoot(tmp_path)
    path = root.write_partition("restricted", "raw", "2026-11-01", _table("2026-11-01", 1))
    assert stat.S_IMODE((tmp_path / "restricted").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "restricted" / "raw").stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_split_by_day_covers_every_day_and_rejects_strays():
    table = pa.concat_tables([_table("2026-11-01", 2), _table("2026-11-03", 1)])
    parts = split_by_day(table, ["2026-11-01", "2026-11-02", "2026-11-03"])
    assert {k: v.num_rows for k, v in parts.items()} == {
        "2026-11-01": 2,
        "2026-11-02": 0,
        "2026-11-03": 1,
    }
    with pytest.raises(ValueError, match="outside the run"):
        split_by_day(table, ["2026-11-01"])


def test_fsspec_memory_filesystem(tmp_path):
    root = DataRoot("memory://agentic-test")
    root.write_partition("warehouse", "t", "2026-11-01", _table("2026-11-01", 3))
    root.write_partition("warehouse", "t", "2026-11-01", _table("2026-11-01", 2))
    assert root.read_partition("warehouse", "t", "2026-11-01").num_rows == 2
    assert root.partitions("warehouse", "t") == ["2026-11-01"]


# --- crash safety and concurrent writers (issue #11, point 9) -------------------------------

DAY = "2026-11-01"
#: A writer that kills itself (SIGKILL) at a chosen point of ``write_partition``.
KILLED_WRITER = """
import os, shutil, signal, sys
import pyarrow as pa
from agentic_pipeline.storage import DataRoot

root_dir, point, n, day = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
real_rename, real_rmtree = os.rename, shutil.rmtree

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def rename(src, dst):
    dst_name = os.path.basename(str(dst))
    if point == "staging-written" and ".ready-" in dst_name:
        die()  # every file is written, the staging folder is not marked complete yet
    real_rename(src, dst)
    if point == "marked-ready" and ".ready-" in dst_name:
        die()
    if point == "between-renames" and dst_name.startswith(".trash-"):
        die()  # the old day is in the trash, the new one not swapped in yet

def rmtree(path, *args, **kwargs):
    if point == "before-trash-removed" and os.path.basename(str(path)).startswith(".trash-"):
        die()
    real_rmtree(path, *args, **kwargs)

os.rename, shutil.rmtree = rename, rmtree
table = pa.table({"ds": [day] * n, "x": list(range(n))})
DataRoot(root_dir).write_partition("warehouse", "t", day, table)
print("not killed")
"""


def _leftover_folders(asset_dir) -> list[str]:
    return sorted(p.name for p in asset_dir.iterdir() if p.is_dir() and p.name.startswith("."))


def _run_killed_writer(tmp_path, point: str, n: int):
    import signal
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(tmp_path), point, str(n), DAY],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("point", "expected_rows"),
    [
        ("staging-written", 3),  # not committed: the old day stays
        ("marked-ready", 3),  # complete but the old day was not moved yet: the old day stays
        ("between-renames", 7),  # committed: the new day is rolled in (the old code lost it)
        ("before-trash-removed", 7),
    ],
)
def test_writer_killed_at_any_point_leaves_a_readable_day(tmp_path, point, expected_rows):
    root = DataRoot(tmp_path)
    root.write_partition("warehouse", "t", DAY, _table(DAY, 3))
    _run_killed_writer(tmp_path, point, 7)
    asset_dir = tmp_path / "warehouse" / "t"
    # a reader sees the day (old or new, never none) and repairs the swap
    assert root.partitions("warehouse", "t") == [DAY]
    assert root.has_partition("warehouse", "t", DAY)
    assert root.read_partition("warehouse", "t", DAY).num_rows == expected_rows
    # the next writer is not blocked by the dead one's lock and removes every leftover
    root.write_partition("warehouse", "t", DAY, _table(DAY, 2))
    assert root.read_partition("warehouse", "t", DAY).num_rows == 2
    assert _leftover_folders(asset_dir) == []


def test_day_lost_between_renames_is_restored_by_a_read(tmp_path):
    """The instance lists the day as materialized: a read after the kill must find it."""
    root = DataRoot(tmp_path)
    root.write_partition("warehouse", "t", DAY, _table(DAY, 3))
    _run_killed_writer(tmp_path, "between-renames", 7)
    assert not (tmp_path / "warehouse" / "t" / f"ds={DAY}").exists()  # the broken state
    assert root.read_partition("warehouse", "t", DAY).num_rows == 7
    assert _leftover_folders(tmp_path / "warehouse" / "t") == []


def test_trash_left_by_an_interrupted_swap_of_the_old_layout_is_renamed_back(tmp_path):
    """No complete staging: the previous day comes back (an incomplete staging is dropped)."""
    root = DataRoot(tmp_path)
    root.write_partition("warehouse", "t", DAY, _table(DAY, 3))
    asset_dir = tmp_path / "warehouse" / "t"
    (asset_dir / f"ds={DAY}").rename(asset_dir / f".trash-ds={DAY}-0badc0de")
    (asset_dir / f".ds={DAY}.tmp-0badc0de").mkdir()
    assert root.recover() == [("warehouse", "t", DAY)]
    assert root.read_partition("warehouse", "t", DAY).num_rows == 3
    assert _leftover_folders(asset_dir) == []


def test_recover_skips_a_day_whose_writer_is_alive(tmp_path):
    root = DataRoot(tmp_path)
    root.write_partition("warehouse", "t", DAY, _table(DAY, 3))
    staging = tmp_path / "warehouse" / "t" / f".ds={DAY}.tmp-0badc0de"
    staging.mkdir()
    with root.partition_lock("warehouse", "t", DAY):  # a live writer
        assert root.recover() == []
        assert staging.exists()
    assert root.recover() == [("warehouse", "t", DAY)]
    assert not staging.exists()


def test_delete_killed_midway_never_leaves_half_a_day(tmp_path):
    root = DataRoot(tmp_path)
    root.write_partition("warehouse", "t", DAY, _table(DAY, 3))
    asset_dir = tmp_path / "warehouse" / "t"
    # what a kill between the rename and the removal of a delete leaves
    (asset_dir / f"ds={DAY}").rename(asset_dir / f".deleted-ds={DAY}-0badc0de")
    assert root.partitions("warehouse", "t") == []
    assert not root.has_partition("warehouse", "t", DAY)
    assert _leftover_folders(asset_dir) == []
    root.write_partition("warehouse", "t", DAY, _table(DAY, 1))
    assert root.delete_partition("warehouse", "t", DAY)
    assert root.partitions("warehouse", "t") == [] and _leftover_folders(asset_dir) == []


CONCURRENT_WRITER = """
import sys, time
import pyarrow as pa
from agentic_pipeline.storage import DataRoot

root_dir, writer, start_at, day = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
root = DataRoot(root_dir)
time.sleep(max(0.0, start_at - time.time()))
for i in range(60):
    n = 10 * writer + 1
    root.write_partition("warehouse", "t", day, pa.table({"x": [writer] * n}))
print("ok")
"""


def test_concurrent_writers_of_one_day_serialize(tmp_path):
    """Four processes rewrite one day at once: all succeed, the day is one of theirs, no leftovers
    (the old code raised ENOTEMPTY / FileNotFoundError and left staging and trash folders)."""
    import subprocess
    import sys
    import time

    root = DataRoot(tmp_path)
    root.write_partition("warehouse", "t", DAY, _table(DAY, 1))
    start_at = time.time() + 3
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT_WRITER, str(tmp_path), str(w), str(start_at), DAY],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(1, 5)
    ]
    outcomes = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [err[-2000:] for _, err in outcomes]
    table = root.read_partition("warehouse", "t", DAY)
    writers = set(table.column("x").to_pylist())
    assert len(writers) == 1
    (writer,) = writers
    assert table.num_rows == 10 * writer + 1
    assert _leftover_folders(tmp_path / "warehouse" / "t") == []


def test_a_corrupt_part_file_is_named_with_its_path_and_how_to_rebuild_it(tmp_path):
    import pyarrow as pa
    import pytest

    from agentic_pipeline.storage import CorruptPartitionError, DataRoot

    root = DataRoot(tmp_path / "data")
    root.write_partition("warehouse", "episode_rewards", "2026-10-05", pa.table({"x": [1, 2]}))
    (part,) = root.part_files("warehouse", "episode_rewards", "2026-10-05")
    part.write_bytes(b"PAR1 this is not parquet PAR1")
    with pytest.raises(CorruptPartitionError) as err:
        root.read_partition("warehouse", "episode_rewards", "2026-10-05")
    message = str(err.value)
    assert str(part) in message and "\n" not in message
    assert "agentic-pipeline materialize --start 2026-10-05 --select episode_rewards" in message
