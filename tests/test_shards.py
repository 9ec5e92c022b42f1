"""Shards within a day (issue #16, point 1): part files by episode hash, streamed, swapped whole."""

import hashlib
import os

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from agentic_pipeline.storage import (
    PART_FILE,
    DataRoot,
    n_shards_for,
    shard_index,
    split_shards,
)
from resources.io_manager import DayTables, PartitionedParquetIOManager, Shards, SpooledShards

DAY = "2026-11-01"


def _steps(n_episodes: int, steps: int = 5) -> pa.Table:
    """Rows of ``n_episodes`` interleaved episodes (as a log file would hold them)."""
    ids, step, text = [], [], []
    for s in range(steps):
        for e in range(n_episodes):
            ids.append(f"ep-{e:04d}")
            step.append(s)
            text.append(f"episode {e} step {s}")
    return pa.table({"episode_id": ids, "step": pa.array(step, pa.int32()), "content": text})


def _parts(root, zone, asset, ds=DAY) -> list[str]:
    return [p.name for p in DataRoot(root).part_files(zone, asset, ds)]


def test_shard_index_is_a_stable_hash_of_the_episode_id():
    # sha256-based: the same ids land in the same shards in every process and Python version
    ids = ["ep-0001", "ep-0002", "ep-0003", None]
    expected = [
        int.from_bytes(hashlib.sha256((e or "").encode()).digest()[:8], "big") % 7 for e in ids
    ]
    assert shard_index(ids, 7).tolist() == expected == [0, 0, 5, 1]
    assert n_shards_for(0, 100) == 1 and n_shards_for(100, 100) == 1 and n_shards_for(101, 100) == 2


def test_large_day_is_split_by_episode_and_reads_back_in_shard_order(tmp_path):
    table = _steps(40)  # 200 rows
    root = DataRoot(tmp_path, rows_per_shard=50)
    first = root.write_partition("warehouse", "t", DAY, table)
    names = _parts(tmp_path, "warehouse", "t")
    assert first.name == "part-00000.parquet" and len(names) >= 3
    assert all(n.startswith("part-") and len(n) == len("part-00000.parquet") for n in names)
    shards = list(root.iter_shards("warehouse", "t", DAY))
    episodes = [set(s.column("episode_id").to_pylist()) for s in shards]
    for i, a in enumerate(episodes):  # an episode never spans two shards
        for b in episodes[i + 1 :]:
            assert not a & b
    # steps keep their order within each episode; the day is shard order, then original order
    expected = pa.concat_tables(split_shards(table, 50))
    day = root.read_partition("warehouse", "t", DAY)
    assert day.drop_columns(["ds"]).equals(expected)
    assert sum(s.num_rows for s in shards) == table.num_rows == day.num_rows
    for s in shards:
        eps = s.column("episode_id").to_pylist()
        for ep in set(eps):
            steps = [st for e, st in zip(eps, s.column("step").to_pylist(), strict=True) if e == ep]
            assert steps == sorted(steps)
    # re-writing the same table gives the same files (deterministic)
    before = {n: (tmp_path / "warehouse" / "t" / f"ds={DAY}" / n).read_bytes() for n in names}
    root.write_partition("warehouse", "t", DAY, table)
    after = {n: (tmp_path / "warehouse" / "t" / f"ds={DAY}" / n).read_bytes() for n in names}
    assert before == after
    # hive readers see the whole day
    assert pads.dataset(tmp_path / "warehouse" / "t", partitioning="hive").count_rows() == 200
    assert sum(t.num_rows for t in root.iter_shards("warehouse", "t", DAY)) == 200


def test_a_smaller_rewrite_replaces_every_shard(tmp_path):
    root = DataRoot(tmp_path, rows_per_shard=50)
    root.write_partition("warehouse", "t", DAY, _steps(40))
    assert len(_parts(tmp_path, "warehouse", "t")) > 1
    root.write_partition("warehouse", "t", DAY, _steps(3))  # 15 rows: one shard, no stale parts
    assert _parts(tmp_path, "warehouse", "t") == ["part-00000.parquet"]
    assert root.read_partition("warehouse", "t", DAY).num_rows == 15


def test_rows_per_shard_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTIC_PIPELINE_ROWS_PER_SHARD", "60")
    DataRoot(tmp_path).write_partition("warehouse", "t", DAY, _steps(40))
    assert len(_parts(tmp_path, "warehouse", "t")) == 4
    for bad in ("0", "many"):
        monkeypatch.setenv("AGENTIC_PIPELINE_ROWS_PER_SHARD", bad)
        with pytest.raises(ValueError, match="positive integer"):
            DataRoot(tmp_path)


def test_old_single_part_days_stay_readable(tmp_path):
    folder = tmp_path / "warehouse" / "t" / f"ds={DAY}"
    folder.mkdir(parents=True)
    pq.write_table(_steps(2), folder / PART_FILE)
    (folder / "rl.parquet").write_bytes(b"not a part")  # other files of a day are not parts
    root = DataRoot(tmp_path)
    assert root.has_partition("warehouse", "t", DAY)
    assert _parts(tmp_path, "warehouse", "t") == [PART_FILE]
    assert root.read_partition("warehouse", "t", DAY).num_rows == 10
    assert not root.has_partition("warehouse", "t", "2026-11-02")
    with pytest.raises(FileNotFoundError):
        root.read_partition("warehouse", "t", "2026-11-02")


def test_a_reader_holds_the_version_it_listed_while_the_day_is_swapped(tmp_path):
    root = DataRoot(tmp_path, rows_per_shard=50)
    root.write_partition("warehouse", "t", DAY, _steps(40))
    reader = root.iter_shards("warehouse", "t", DAY)
    first = next(reader)  # every part of the old version is open now
    root.write_partition("warehouse", "t", DAY, _steps(2))  # swapped in, old folder deleted
    rest = list(reader)
    assert first.num_rows + sum(s.num_rows for s in rest) == 200  # the old day, whole
    assert root.read_partition("warehouse", "t", DAY).num_rows == 10


def test_a_write_killed_between_shards_leaves_the_old_day(tmp_path):
    root = DataRoot(tmp_path, rows_per_shard=50)
    root.write_partition("warehouse", "t", DAY, _steps(40))

    def shards():
        yield _steps(1)
        raise RuntimeError("worker died")

    with pytest.raises(RuntimeError, match="worker died"):
        root.write_partition_shards("warehouse", "t", DAY, shards())
    assert root.read_partition("warehouse", "t", DAY).num_rows == 200
    root.write_partition("warehouse", "t", DAY, _steps(1))  # the next writer clears the staging
    leftovers = [n for n in os.listdir(tmp_path / "warehouse" / "t") if not n.endswith(".lock")]
    assert leftovers == [f"ds={DAY}"]


class _Ctx:
    """The parts of a Dagster OutputContext the IO manager reads."""

    has_asset_partitions = True
    definition_metadata = {"zone": "warehouse"}

    def __init__(self, days):
        from dagster import AssetKey

        self.asset_partition_keys = days
        self.asset_key = AssetKey("t")
        self.metadata = {}

    def add_output_metadata(self, metadata):
        self.metadata.update(metadata)


def test_io_manager_writes_a_days_shards_as_its_part_files(tmp_path):
    io = PartitionedParquetIOManager(path=str(tmp_path), rows_per_shard=50)
    days = [DAY, "2026-11-02"]
    items = [(DAY, Shards(iter([_steps(2), _steps(3)]))), ("2026-11-02", _steps(40))]
    io.handle_output(_Ctx(days), DayTables(iter(items), lambda: {"n": 3}))
    assert _parts(tmp_path, "warehouse", "t") == ["part-00000.parquet", "part-00001.parquet"]
    assert len(_parts(tmp_path, "warehouse", "t", "2026-11-02")) == 4  # a whole day: by size
    day = DataRoot(tmp_path).read_partition("warehouse", "t", DAY)
    assert day.drop_columns(["ds"]).equals(pa.concat_tables([_steps(2), _steps(3)]))
    with pytest.raises(ValueError, match="not one of the run's partitions"):
        io.handle_output(_Ctx([DAY]), DayTables(iter([("2026-11-03", _steps(1))])))


def test_spooled_shards_keep_tables_compressed_and_give_them_back_in_order(tmp_path):
    spool = SpooledShards()
    tables = [_steps(40), _steps(3)]
    for table in tables:
        spool.append(table)
    assert spool.num_rows == 215
    assert sum(p.size for p in spool._parts) < sum(t.nbytes for t in tables)
    assert [t.equals(e) for t, e in zip(spool, tables, strict=True)] == [True, True]
    DataRoot(tmp_path).write_partition_shards("warehouse", "t", DAY, spool)
    assert len(_parts(tmp_path, "warehouse", "t")) == 2
