"""Dagster resources: thin configurable wrappers over the ``agentic_pipeline`` library."""

from resources.data_root import DataRootResource, default_data_dir
from resources.io_manager import DayReader, DayTables, PartitionedParquetIOManager

__all__ = [
    "DataRootResource",
    "DayReader",
    "DayTables",
    "PartitionedParquetIOManager",
    "default_data_dir",
]
