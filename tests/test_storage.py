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
    # no staging or trash folders are left behind
    assert sorted(p.name for p in (tmp_path / "warehouse" / "t").iterdir()) == [
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
