"""Shards: how one day of a table is cut into part files.

Rows are assigned to shards by a stable hash of their ``episode_id`` (``shard_index``: sha256 of
the id, modulo the shard count), the count chosen from the day's size so that no shard is much
above ``rows_per_shard`` rows (``AGENTIC_PIPELINE_ROWS_PER_SHARD``, default
``DEFAULT_ROWS_PER_SHARD``); an episode never spans two shards and keeps its row order. Every part
is a zstd-compressed Parquet file (``parquet_bytes``).
"""

import hashlib
import math
import os
import re
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

#: The single part file of days written before shards (and of the training summary): shard 0.
PART_FILE = "part-0.parquet"
#: Name of shard ``i`` of a day.
SHARD_FILE = "part-{:05d}.parquet"
SHARD_RE = re.compile(r"^part-(\d+)\.parquet$")
#: Target rows per shard: about 5k episodes of ~20 steps, masked in a few hundred MB.
DEFAULT_ROWS_PER_SHARD = 100_000
ROWS_PER_SHARD_ENV = "AGENTIC_PIPELINE_ROWS_PER_SHARD"


def rows_per_shard_default() -> int:
    """``AGENTIC_PIPELINE_ROWS_PER_SHARD`` if set (a positive int), else the default."""
    raw = os.environ.get(ROWS_PER_SHARD_ENV, "").strip()
    if not raw:
        return DEFAULT_ROWS_PER_SHARD
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{ROWS_PER_SHARD_ENV} must be a positive integer, got {raw!r}")
    return value


def n_shards_for(num_rows: int, rows_per_shard: int) -> int:
    """How many shards a day of ``num_rows`` rows gets (at least one)."""
    return max(1, math.ceil(num_rows / max(1, rows_per_shard)))


def shard_index(episode_ids: Iterable[object], n_shards: int) -> np.ndarray:
    """Shard of each row: the first 8 bytes of sha256(episode id) modulo ``n_shards``.

    Stable across processes, machines and Python versions (unlike ``hash``); ``None`` hashes as "".
    """
    out = [
        int.from_bytes(hashlib.sha256(str("" if e is None else e).encode()).digest()[:8], "big")
        % n_shards
        for e in episode_ids
    ]
    return np.asarray(out, dtype=np.int64)


def split_shards(table: pa.Table, rows_per_shard: int) -> list[pa.Table]:
    """``table`` cut into shards by episode id (see the module doc), non-empty ones in order.

    A table without an ``episode_id`` column, or small enough, is one shard.
    """
    n = n_shards_for(table.num_rows, rows_per_shard)
    if n == 1 or "episode_id" not in table.column_names:
        return [table]
    index = shard_index(table.column("episode_id").to_pylist(), n)
    shards = []
    for s in range(n):
        rows = np.flatnonzero(index == s)  # ascending: the original order within the shard
        if len(rows):
            shards.append(table.take(pa.array(rows)))
    return shards


def parquet_bytes(table: pa.Table) -> pa.Buffer:
    """``table`` as the bytes of a zstd-compressed Parquet file (the format of every part)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()
