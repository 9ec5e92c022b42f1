"""Fixed Arrow schemas at write time: a day's table type never depends on its content.

pandas infers column types from the values: an integer column with one missing value becomes
``float64``, a column that is null on every row becomes ``null`` and a column of mixed values
becomes ``object``. Written as-is, two days of the same asset then disagree on a column's type and
a reader that concatenates days (a trailing window) fails. :func:`conform` converts a frame to a
given schema instead: missing columns become null, extra columns are dropped, and each column is
coerced to its field's type.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa


def _series(values: pd.Series, dtype: pa.DataType) -> pd.Series:
    """``values`` coerced to what Arrow's ``dtype`` can take without guessing."""
    if pa.types.is_integer(dtype):
        numbers = pd.to_numeric(values, errors="coerce")
        # a non-integral value cannot be stored in an integer column: null, not truncated
        numbers = numbers.where(numbers.isna() | (numbers == numbers.round()))
        return numbers.astype("Int64")
    if pa.types.is_floating(dtype):
        return pd.to_numeric(values, errors="coerce").astype("float64")
    if pa.types.is_boolean(dtype):
        return values.astype("boolean")
    if pa.types.is_string(dtype) or pa.types.is_large_string(dtype):
        return (
            values.astype(object)
            .where(values.notna(), None)
            .map(lambda v: v if v is None or isinstance(v, str) else str(v))
        )
    return values


def conform(frame: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """``frame`` as an Arrow table with exactly ``schema`` (missing columns null, extra dropped)."""
    n = len(frame)
    columns: dict[str, pa.Array] = {}
    for f in schema:
        if f.name in frame.columns:
            values = _series(frame[f.name].reset_index(drop=True), f.type)
            columns[f.name] = pa.array(values, type=f.type, from_pandas=True)
        else:
            columns[f.name] = pa.nulls(n, f.type)
    return pa.table(columns, schema=schema)
