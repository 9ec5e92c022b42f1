"""The storage layer: every byte the project writes goes through it.

- :mod:`~agentic_pipeline.storage.files`: the one file writer (``atomic_write_bytes``,
  ``atomic_write_text``, ``atomic_path``; ``write_file`` for files of a staging folder) and the
  zones' modes;
- :mod:`~agentic_pipeline.storage.shards`: how a day is cut into Parquet part files;
- :mod:`~agentic_pipeline.storage.days`: day ranges and the split of a multi-day table by day;
- :mod:`~agentic_pipeline.storage.root`: :class:`DataRoot`, the zones' hive-partitioned day
  folders, replaced atomically under a per-day lock and repaired after a crash.
"""

from agentic_pipeline.storage.days import day_range, split_by_day
from agentic_pipeline.storage.files import (
    DIR_MODE,
    FILE_MODE,
    atomic_path,
    atomic_write_bytes,
    atomic_write_text,
    fsync_dir,
    write_file,
)
from agentic_pipeline.storage.root import ZONES, CorruptPartitionError, DataRoot
from agentic_pipeline.storage.shards import (
    DEFAULT_ROWS_PER_SHARD,
    PART_FILE,
    ROWS_PER_SHARD_ENV,
    SHARD_FILE,
    n_shards_for,
    parquet_bytes,
    rows_per_shard_default,
    shard_index,
    split_shards,
)

__all__ = [
    "CorruptPartitionError",
    "DEFAULT_ROWS_PER_SHARD",
    "DIR_MODE",
    "FILE_MODE",
    "PART_FILE",
    "ROWS_PER_SHARD_ENV",
    "SHARD_FILE",
    "ZONES",
    "DataRoot",
    "atomic_path",
    "atomic_write_bytes",
    "atomic_write_text",
    "day_range",
    "fsync_dir",
    "n_shards_for",
    "parquet_bytes",
    "rows_per_shard_default",
    "shard_index",
    "split_by_day",
    "split_shards",
    "write_file",
]
