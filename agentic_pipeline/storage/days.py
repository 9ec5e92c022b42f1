"""Days: the ``YYYY-MM-DD`` partitions every daily table is stored and split by."""

from collections.abc import Iterable
from datetime import date, timedelta

import pyarrow as pa
import pyarrow.compute as pc


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
