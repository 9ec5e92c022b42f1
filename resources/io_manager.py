"""One partitioned Parquet IO manager for every daily asset.

Outputs:

- a pandas DataFrame or Arrow table with a ``ds`` column: a run over several partitions (a
  single-run backfill) hands over one multi-day frame, which is split into one file per day;
- a :class:`DayTables`: the asset yields one day at a time and each day is written as soon as it
  is produced, so a backfill of a month never holds more than one day in memory. A day given as
  :class:`Shards` is written shard by shard as they are produced (``write_partition_shards``): an
  asset that works shard by shard never holds a whole day. Metadata the asset computes while its
  days are consumed is attached to the materialization afterwards.

Every day of the run is written, an empty day included, so re-materializing replaces exactly those
days. The zone comes from the asset's ``zone`` metadata (``restricted`` for raw personal data).

Inputs load the requested upstream days (a window mapping may ask for several; days that do not
exist yet, near the start date, are skipped) as one pandas DataFrame, or, when the input's metadata
says ``{"load": "by_day"}``, as a lazy :class:`DayReader` that reads one day (or one shard) at a
time.
"""

from collections.abc import Callable, Iterable, Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from dagster import ConfigurableIOManager, InputContext, OutputContext

from agentic_pipeline.storage import DataRoot, parquet_bytes, split_by_day
from resources.retries import retry_transient

Table = pa.Table | pd.DataFrame


def _arrow(table: Table) -> pa.Table:
    if isinstance(table, pa.Table):
        return table
    return pa.Table.from_pandas(table, preserve_index=False)


class Shards:
    """One day's output as an iterable of tables, its part files in order (consumed lazily)."""

    def __init__(self, tables: Iterable[Table]):
        self._tables = tables

    def __iter__(self) -> Iterator[Table]:
        return iter(self._tables)


class SpooledShards:
    """Tables kept as compressed Parquet until they are written: an output the asset collects over
    a whole day (``pii_audit``) costs its compressed size, and is decoded one shard at a time."""

    def __init__(self) -> None:
        self._parts: list[pa.Buffer] = []
        self.num_rows = 0

    def append(self, table: pa.Table) -> None:
        self._parts.append(parquet_bytes(table))
        self.num_rows += table.num_rows

    def __iter__(self) -> Iterator[pa.Table]:
        for part in self._parts:
            yield pq.read_table(pa.BufferReader(part))


class DayTables:
    """An output produced day by day: an iterable of ``(ds, table or Shards)`` and a metadata
    callback.

    ``metadata()`` is called once every day has been written; its result is attached to the
    materialization (counts, schema, previews: never personal data).
    """

    def __init__(
        self,
        days: Iterable[tuple[str, Table | Shards]],
        metadata: Callable[[], dict] | None = None,
    ):
        self._days = days
        self._metadata = metadata

    def __iter__(self) -> Iterator[tuple[str, Table | Shards]]:
        return iter(self._days)

    def metadata(self) -> dict:
        return self._metadata() if self._metadata else {}


class DayReader:
    """Lazy access to the upstream days of one input: iterate ``(ds, DataFrame)`` pairs, or read
    one day shard by shard (``iter_shards``) to bound memory by the shard size."""

    def __init__(self, root: DataRoot, zone: str, asset: str, days: list[str]):
        self.root, self.zone, self.asset = root, zone, asset
        self.days = [ds for ds in days if root.has_partition(zone, asset, ds)]
        self.missing = [ds for ds in days if ds not in self.days]

    def read_table(self, ds: str) -> pa.Table:
        return self.root.read_partition(self.zone, self.asset, ds)

    def iter_shards(self, ds: str) -> Iterator[pa.Table]:
        """The day's shards in order (their concatenation is ``read_table(ds)``)."""
        return self.root.iter_shards(self.zone, self.asset, ds)

    def read(self, ds: str) -> pd.DataFrame:
        return self.read_table(ds).to_pandas()

    def __iter__(self) -> Iterator[tuple[str, pd.DataFrame]]:
        for ds in self.days:
            yield ds, self.read(ds)


def _zone(metadata) -> str:
    return str((metadata or {}).get("zone", "warehouse"))


def _asset_name(context) -> str:
    return context.asset_key.path[-1]


class PartitionedParquetIOManager(ConfigurableIOManager):
    """Hive-partitioned Parquet under ``<data root>/<zone>/<asset>/ds=YYYY-MM-DD/``."""

    path: str
    #: Target rows per part file of a day (0: ``AGENTIC_PIPELINE_ROWS_PER_SHARD`` or the default).
    rows_per_shard: int = 0

    @property
    def root(self) -> DataRoot:
        return DataRoot(self.path, rows_per_shard=self.rows_per_shard or None)

    @retry_transient
    def handle_output(self, context: OutputContext, obj) -> None:
        if obj is None:
            return
        days = context.asset_partition_keys if context.has_asset_partitions else []
        if not days:
            raise ValueError(f"{context.asset_key.to_user_string()} must be daily-partitioned")
        zone, name = _zone(context.definition_metadata), _asset_name(context)
        if isinstance(obj, DayTables):
            pending = set(days)
            for ds, table in obj:
                if ds not in pending:
                    raise ValueError(f"{name}: day {ds} is not one of the run's partitions")
                if isinstance(table, Shards):  # streamed into the day's staging folder
                    day_shards = (split_by_day(_arrow(t), [ds])[ds] for t in table)
                    self.root.write_partition_shards(zone, name, ds, day_shards)
                else:  # one table for the day: sharded by size, as any output
                    (day_table,) = split_by_day(_arrow(table), [ds]).values()
                    self.root.write_partition(zone, name, ds, day_table)
                pending.discard(ds)
            if pending:
                raise ValueError(f"{name}: no output for {sorted(pending)}")
            context.add_output_metadata(obj.metadata())
            return
        for ds, day_table in split_by_day(_arrow(obj), days).items():
            self.root.write_partition(zone, name, ds, day_table)

    @retry_transient
    def load_input(self, context: InputContext) -> pd.DataFrame | DayReader:
        upstream = context.upstream_output
        zone = _zone(upstream.definition_metadata if upstream else None)
        days = list(context.asset_partition_keys)
        if (context.definition_metadata or {}).get("load") == "by_day":
            return DayReader(self.root, zone, _asset_name(context), days)
        return self.root.read_partitions(zone, _asset_name(context), days).to_pandas()
