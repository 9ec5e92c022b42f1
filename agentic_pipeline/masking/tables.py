"""The tables of one masked day: audit and withheld-episode schemas and builders, and the
column helpers shared by ``pyarrow`` tables and pandas frames."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pyarrow as pa

from agentic_pipeline.masking.scan import Leak

_SURROGATES = re.compile(r"[\ud800-\udfff]")

AUDIT_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("episode_id", pa.string()),
        ("step", pa.int32()),
        ("row", pa.int64()),
        ("field", pa.string()),
        ("entity_type", pa.string()),
        ("detector", pa.string()),
        ("score", pa.float64()),
        ("pseudonym", pa.string()),
    ]
)


WITHHELD_SCHEMA = pa.schema(
    [
        ("ds", pa.string()),
        ("episode_id", pa.string()),
        ("rows", pa.int64()),
        ("leaks", pa.int64()),
        ("reason", pa.string()),
    ]
)


@dataclass
class AuditRecord:
    row: int
    field: str
    entity_type: str
    detector: str
    score: float
    pseudonym: str | None


def table_columns(table: Any) -> list[str]:
    return list(table.column_names if isinstance(table, pa.Table) else table.columns)


def column_values(table: Any, name: str, n: int) -> list[Any]:
    if name not in table_columns(table):
        return [None] * n
    if isinstance(table, pa.Table):
        return table.column(name).to_pylist()
    return [None if (isinstance(v, float) and v != v) else v for v in table[name].tolist()]


def withheld_episodes(
    leaks: list[Leak],
    episode_ids: list[str],
    ds: list[Any],
    failed: dict[str, str] | None = None,
) -> pa.Table:
    """One row per episode with a leak or whose masking failed (``failed``: episode id to where
    and the exception's type): its row and leak counts and the reason, made of column, entity type
    and detector counts, or of the failure (never a value). Sorted by episode id."""
    failed = failed or {}
    by_episode: dict[str, Counter] = defaultdict(Counter)
    for lk in leaks:
        by_episode[episode_ids[lk.row]][f"{lk.column}:{lk.entity_type}/{lk.detector}"] += 1
    rows = Counter(episode_ids)
    first_ds: dict[str, Any] = {}
    for e, d in zip(episode_ids, ds, strict=True):
        first_ds.setdefault(e, d)
    eps = sorted(by_episode.keys() | failed.keys())

    def reason(e: str) -> str:
        if e in failed:
            return f"masking failed: {failed[e]}"
        counts = sorted(by_episode[e].items())
        return "final scan found personal data: " + ", ".join(f"{k}={v}" for k, v in counts)

    return pa.table(
        {
            "ds": [None if first_ds[e] is None else str(first_ds[e]) for e in eps],
            "episode_id": eps,
            "rows": [rows[e] for e in eps],
            "leaks": [sum(by_episode[e].values()) for e in eps],
            "reason": [reason(e) for e in eps],
        },
        schema=WITHHELD_SCHEMA,
    )


def take_rows(table: Any, rows: list[int]) -> Any:
    if isinstance(table, pa.Table):
        return table.take(pa.array(rows, pa.int64()))
    return table.iloc[rows]


def replace_columns(table: Any, new: dict[str, list[str | None]]) -> Any:
    if isinstance(table, pa.Table):
        for col, values in new.items():
            idx = table.column_names.index(col)
            old = table.schema.field(idx)
            typ = old.type if pa.types.is_large_string(old.type) else pa.string()
            table = table.set_column(idx, old.with_type(typ), pa.array(values, typ))
        return table
    out = table.copy()
    for col, values in new.items():
        out[col] = pd.Series(values, index=out.index, dtype=object)
    return out


def audit_table(
    records: list[AuditRecord], ds: list[Any], eps: list[str], steps: list[Any]
) -> pa.Table:
    def step(r: int) -> int | None:
        v = steps[r]
        return None if v is None else int(v)

    return pa.table(
        {
            "ds": [None if ds[r.row] is None else str(ds[r.row]) for r in records],
            "episode_id": [eps[r.row] for r in records],
            "step": [step(r.row) for r in records],
            "row": [r.row for r in records],
            "field": [r.field for r in records],
            "entity_type": [r.entity_type for r in records],
            "detector": [r.detector for r in records],
            "score": [float(r.score) for r in records],
            "pseudonym": [r.pseudonym for r in records],
        },
        schema=AUDIT_SCHEMA,
    )


def clean_text(value: Any) -> tuple[str | None, bool]:
    """A str for any cell value; the flag says the value was not clean text."""
    if value is None:
        return None, False
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace"), True
    if not isinstance(value, str):
        if isinstance(value, float) and value != value:  # NaN from pandas
            return None, False
        return str(value), False
    if _SURROGATES.search(value):
        return _SURROGATES.sub("\ufffd", value), True
    return value, False
