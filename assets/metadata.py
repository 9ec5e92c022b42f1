"""Helpers that turn tables into Dagster materialization metadata (never with content)."""

import pyarrow as pa
from dagster import MetadataValue, TableColumn, TableSchema

_ARROW_TO_TYPE = {"string": "string", "large_string": "string", "bool": "bool"}


def column_schema(schema: pa.Schema) -> TableSchema:
    """``dagster/column_schema`` from an Arrow schema."""
    return TableSchema(
        columns=[TableColumn(f.name, _ARROW_TO_TYPE.get(str(f.type), str(f.type))) for f in schema]
    )


def markdown_table(rows: list[dict], max_rows: int = 20) -> MetadataValue:
    """A small markdown table; callers pass only non-personal columns."""
    if not rows:
        return MetadataValue.md("_no rows_")
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows[:max_rows]:
        lines.append(
            "| " + " | ".join("" if row[h] is None else str(row[h]) for h in header) + " |"
        )
    return MetadataValue.md("\n".join(lines))


def counts_md(counts: dict, key: str = "key", value: str = "count") -> MetadataValue:
    return markdown_table([{key: k, value: v} for k, v in sorted(counts.items())], max_rows=200)
