"""One partitioned Parquet IO manager for every daily asset (DESIGN.md §3).

Outputs are pandas DataFrames or Arrow tables with a ``ds`` column. A run over several partitions
(a single-run backfill) hands over one multi-day frame, which is split into one file per day; every
day of the run is written, an empty day included, so re-materializing replaces exactly those days.
The zone comes from the asset's ``zone`` metadata (``restricted`` for raw personal data).
Inputs load the requested upstream days (a window mapping may ask for several; days that do not
exist yet, near the start date, are skipped) as one pandas DataFrame.
"""

import pandas as pd
import pyarrow as pa
from dagster import ConfigurableIOManager, InputContext, OutputContext

from agentic_pipeline.storage import DataRoot, split_by_day


def _zone(metadata) -> str:
    return str((metadata or {}).get("zone", "warehouse"))


def _asset_name(context) -> str:
    return context.asset_key.path[-1]


class PartitionedParquetIOManager(ConfigurableIOManager):
    """Hive-partitioned Parquet under ``<data root>/<zone>/<asset>/ds=YYYY-MM-DD/``."""

    path: str

    @property
    def root(self) -> DataRoot:
        return DataRoot(self.path)

    def handle_output(self, context: OutputContext, obj) -> None:
        if obj is None:
            return
        table = (
            obj if isinstance(obj, pa.Table) else pa.Table.from_pandas(obj, preserve_index=False)
        )
        days = context.asset_partition_keys if context.has_asset_partitions else []
        if not days:
            raise ValueError(f"{context.asset_key.to_user_string()} must be daily-partitioned")
        zone = _zone(context.definition_metadata)
        for ds, day_table in split_by_day(table, days).items():
            self.root.write_partition(zone, _asset_name(context), ds, day_table)
        context.log.debug(f"wrote {table.num_rows} rows over {len(days)} day(s) to {zone}")

    def load_input(self, context: InputContext) -> pd.DataFrame:
        upstream = context.upstream_output
        zone = _zone(upstream.definition_metadata if upstream else None)
        days = context.asset_partition_keys
        table = self.root.read_partitions(zone, _asset_name(context), days)
        return table.to_pandas()
