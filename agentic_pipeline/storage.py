"""The data root and its hive-partitioned Parquet zones (DESIGN.md §3).

``<root>/<zone>/<asset>/ds=YYYY-MM-DD/part-0.parquet``: one folder per day, so
``pyarrow.dataset``, DuckDB, Polars and Spark read a zone directly with hive partitioning. The
``ds`` column lives in the folder name, not in the file, and is added back on read. A day is
replaced atomically: the new folder is written beside the old one and swapped in with renames, so
readers see either the old day or the new one, and re-materializing a day touches nothing else.
The restricted zone (raw personal data) is created with 0700 folders and 0600 files.
"""

import os
import shutil
import uuid
from collections.abc import Iterable, Iterator, Mapping
from datetime import date, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from upath import UPath

ZONES = ("restricted", "warehouse")
PART_FILE = "part-0.parquet"
DIR_MODE = {"restricted": 0o700, "warehouse": 0o755}
FILE_MODE = {"restricted": 0o600, "warehouse": 0o644}


class DataRoot:
    """Paths under the data root; local or any fsspec URL."""

    def __init__(self, root: str | os.PathLike | UPath):
        self.root = UPath(root)

    @property
    def is_local(self) -> bool:
        return self.root.protocol in ("", "file", "local")

    def landing(self, ds: str | None = None) -> UPath:
        return self.root / "landing" / ds if ds else self.root / "landing"

    def asset_dir(self, zone: str, asset: str) -> UPath:
        if zone not in ZONES:
            raise ValueError(f"unknown zone {zone!r}")
        return self.root / zone / asset

    def partition_dir(self, zone: str, asset: str, ds: str) -> UPath:
        return self.asset_dir(zone, asset) / f"ds={ds}"

    def dagster_home(self) -> Path:
        return Path(str(self.root)) / "dagster_home"

    # -- writing ------------------------------------------------------------------------------

    def _mkdir(self, path: UPath, zone: str) -> None:
        path.mkdir(parents=True, exist_ok=True)
        if self.is_local:
            # tighten every folder we own from the zone down (umask may have loosened them)
            zone_root = self.root / zone
            for p in [zone_root, *[q for q in path.parents if str(q).startswith(str(zone_root))]]:
                if p.exists():
                    os.chmod(str(p), DIR_MODE[zone])
            os.chmod(str(path), DIR_MODE[zone])

    def write_partition(self, zone: str, asset: str, ds: str, table: pa.Table) -> UPath:
        """Replace one day of ``asset`` with ``table`` (its ``ds`` column, if any, is dropped)."""
        if "ds" in table.column_names:
            table = table.drop_columns(["ds"])
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        final = self.replace_partition_files(zone, asset, ds, {PART_FILE: sink.getvalue()})
        return final / PART_FILE

    def replace_partition_files(
        self, zone: str, asset: str, ds: str, files: Mapping[str, bytes | pa.Buffer]
    ) -> UPath:
        """Replace the whole ``ds=`` folder of ``asset`` with ``files`` (name -> content).

        The files are written to a staging folder that is swapped in by rename, so readers see the
        old day or the new one, and re-writing a day touches nothing else.
        """
        final = self.partition_dir(zone, asset, ds)
        staging = final.parent / f".ds={ds}.tmp-{uuid.uuid4().hex[:8]}"
        self._mkdir(staging, zone)
        for name, payload in files.items():
            path = staging / name
            with path.open("wb") as fh:
                fh.write(payload)
            if self.is_local:
                os.chmod(str(path), FILE_MODE[zone])
        self._swap_in(staging, final)
        return final

    def _swap_in(self, staging: UPath, final: UPath) -> None:
        if self.is_local:
            trash = None
            if final.exists():
                trash = final.parent / f".trash-{final.name}-{uuid.uuid4().hex[:8]}"
                os.rename(str(final), str(trash))
            os.rename(str(staging), str(final))
            if trash is not None:
                shutil.rmtree(str(trash))
        else:  # object stores have no atomic folder rename: copy the part, then drop staging
            if final.exists():
                final.fs.rm(final.path, recursive=True)
            final.fs.mv(staging.path, final.path, recursive=True)

    def delete_partition(self, zone: str, asset: str, ds: str) -> bool:
        path = self.partition_dir(zone, asset, ds)
        if not path.exists():
            return False
        if self.is_local:
            shutil.rmtree(str(path))
        else:
            path.fs.rm(path.path, recursive=True)
        return True

    # -- reading ------------------------------------------------------------------------------

    def assets(self, zone: str) -> list[str]:
        """The assets stored in ``zone``, sorted (staging and trash folders excluded)."""
        base = self.root / zone
        if not base.exists():
            return []
        return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))

    def partitions(self, zone: str, asset: str) -> list[str]:
        """The days stored for ``asset``, sorted."""
        base = self.asset_dir(zone, asset)
        if not base.exists():
            return []
        return sorted(p.name[3:] for p in base.iterdir() if p.name.startswith("ds=") and p.is_dir())

    def has_partition(self, zone: str, asset: str, ds: str) -> bool:
        return (self.partition_dir(zone, asset, ds) / PART_FILE).exists()

    def read_partition(
        self, zone: str, asset: str, ds: str, columns: list[str] | None = None
    ) -> pa.Table:
        """One day as an Arrow table with its ``ds`` column restored."""
        path = self.partition_dir(zone, asset, ds) / PART_FILE
        if not path.exists():
            raise FileNotFoundError(f"{zone}/{asset} has no partition ds={ds}")
        file_columns = [c for c in columns if c != "ds"] if columns else None
        with path.open("rb") as fh:
            table = pq.read_table(fh, columns=file_columns)
        if columns is None or "ds" in columns:
            table = table.add_column(0, "ds", pa.array([ds] * table.num_rows, pa.string()))
        return table

    def read_partitions(
        self, zone: str, asset: str, days: Iterable[str], columns: list[str] | None = None
    ) -> pa.Table:
        """Several days concatenated (days without data are skipped)."""
        tables = [
            self.read_partition(zone, asset, ds, columns)
            for ds in days
            if self.has_partition(zone, asset, ds)
        ]
        if not tables:
            raise FileNotFoundError(f"{zone}/{asset} has none of the requested partitions")
        return pa.concat_tables(tables, promote_options="default")

    def iter_batches(
        self, zone: str, asset: str, ds: str, batch_size: int = 10_000
    ) -> Iterator[pa.RecordBatch]:
        """Stream one day in record batches (without the ``ds`` column)."""
        path = self.partition_dir(zone, asset, ds) / PART_FILE
        with path.open("rb") as fh:
            yield from pq.ParquetFile(fh).iter_batches(batch_size=batch_size)


def day_range(start: date, end: date) -> list[str]:
    """Every day from ``start`` to ``end`` inclusive, as ``YYYY-MM-DD``."""
    if end < start:
        raise ValueError(f"end {end} is before start {start}")
    return [(start + timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]


def split_by_day(table: pa.Table, days: Iterable[str]) -> dict[str, pa.Table]:
    """Split a multi-day table on its ``ds`` column; every requested day gets a table (maybe empty).

    Rows whose ``ds`` is not among ``days`` raise ``ValueError``: an asset must not write outside
    the partitions it was asked for.
    """
    days = list(days)
    if "ds" not in table.column_names:
        if len(days) != 1:
            raise ValueError("a multi-day output needs a 'ds' column to be split by day")
        return {days[0]: table}
    ds_values = set(table.column("ds").to_pylist())
    stray = ds_values - set(days)
    if stray:
        raise ValueError(f"output has rows for days outside the run: {sorted(stray)[:5]}")
    return {ds: table.filter(pc.equal(table.column("ds"), ds)) for ds in days}
