"""Helpers that turn tables into Dagster materialization metadata (never with content).

Metadata lands in Dagster's event log (``dagster_home``), which is readable by operators and shown
in the UI: it must hold no personal data. Tables are keyed by values from the data (policy ids,
task types, field paths, episode ids), so :func:`safe_metadata` passes every value through the
warehouse leak scan (:func:`agentic_pipeline.masking.scan.scan_for_leaks`) before an asset hands
its metadata to Dagster: a value that fails is replaced by :data:`REDACTED`, and the number of
replacements is recorded under :data:`REDACTIONS_KEY`. Every asset and check wraps its metadata
dict with it.

Pseudonyms are personal data too (linkable to the person until erased) and the event log cannot be
erased: every token in a value becomes its entity type (``<EMAIL_ADDRESS>``) before the scan.

What one "value" is: a cell of a markdown table (other markdown lines: the whole line), a text,
path or URL value, a plain string, and each key and string leaf of a JSON value.
"""

import re
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
from dagster import (
    JsonMetadataValue,
    MarkdownMetadataValue,
    MetadataValue,
    PathMetadataValue,
    TableColumn,
    TableSchema,
    TextMetadataValue,
    UrlMetadataValue,
)

from agentic_pipeline.masking.pseudonyms import LEGACY_TOKEN_RE, TOKEN_RE
from agentic_pipeline.masking.scan import scan_for_leaks
from assets.column_docs import COLUMN_DESCRIPTIONS

_ARROW_TO_TYPE = {"string": "string", "large_string": "string", "bool": "bool"}

#: What a value that fails the leak scan becomes.
REDACTED = "<redacted>"
#: Metadata key holding the number of values :func:`safe_metadata` replaced.
REDACTIONS_KEY = "metadata_redacted_values"
#: A markdown line that is only an inline image (the selection chart): pixels, not text.
_DATA_IMAGE = re.compile(r"^!\[[^\]\n]*\]\(data:image/[a-z]+;base64,[A-Za-z0-9+/=]+\)$")


def column_schema(schema: pa.Schema) -> TableSchema:
    """``dagster/column_schema`` from an Arrow schema, each column with its description
    (:data:`assets.column_docs.COLUMN_DESCRIPTIONS`), shown in the catalog."""
    return TableSchema(
        columns=[
            TableColumn(
                f.name,
                _ARROW_TO_TYPE.get(str(f.type), str(f.type)),
                description=COLUMN_DESCRIPTIONS.get(f.name),
            )
            for f in schema
        ]
    )


def _cell(value: Any) -> str:
    """A markdown table cell: one line, ``|`` escaped (so a cell is always one value)."""
    if value is None:
        return ""
    return " ".join(str(value).split()).replace("|", "\\|")


def markdown_table(rows: list[dict], max_rows: int = 20) -> MetadataValue:
    """A small markdown table; callers pass only non-personal columns (and the asset's
    :func:`safe_metadata` scans every cell anyway)."""
    if not rows:
        return MetadataValue.md("_no rows_")
    header = list(rows[0])
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    for row in rows[:max_rows]:
        lines.append("| " + " | ".join(_cell(row[h]) for h in header) + " |")
    return MetadataValue.md("\n".join(lines))


def counts_md(counts: dict, key: str = "key", value: str = "count") -> MetadataValue:
    return markdown_table([{key: k, value: v} for k, v in sorted(counts.items())], max_rows=200)


# --- the leak scan of metadata -----------------------------------------------------------------

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
#: Any pseudonym (of this width or an older one): the event log cannot be erased, so it never
#: holds one; a token becomes its entity type (``<EMAIL_ADDRESS>``).
_ANY_TOKEN = re.compile(rf"{TOKEN_RE.pattern}|{LEGACY_TOKEN_RE.pattern}")


def _without_pseudonyms(text: str) -> str:
    return _ANY_TOKEN.sub(lambda m: "<" + m.group()[1:].rsplit("_", 1)[0] + ">", text)


class _Scan:
    """Collects every value of a metadata dict, scans them in one pass, then rebuilds it."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self.leaky: set[int] = set()

    def add(self, text: str) -> int:
        self.values.append(_without_pseudonyms(text))
        return len(self.values) - 1

    def run(self) -> None:
        if self.values:
            leaks = scan_for_leaks(pa.table({"value": self.values}), columns=("value",))
            self.leaky = {leak.row for leak in leaks}

    def get(self, index: int) -> str:
        return REDACTED if index in self.leaky else self.values[index]


def _md_units(text: str, scan: _Scan) -> list[Any]:
    """Each line of markdown as its cells' value indices (table rows) or one index."""
    out: list[Any] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if _DATA_IMAGE.match(stripped):
            out.append(line)  # kept as is: an inline image carries no text
        elif stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1:
            cells = _CELL_SPLIT.split(stripped[1:-1])
            out.append([scan.add(c) for c in cells])
        else:
            out.append(scan.add(line))
    return out


def _md_build(units: list[Any], scan: _Scan) -> str:
    lines = []
    for unit in units:
        if isinstance(unit, str):
            lines.append(unit)
        elif isinstance(unit, list):
            cells = (f" {REDACTED} " if i in scan.leaky else scan.values[i] for i in unit)
            lines.append("|" + "|".join(cells) + "|")
        else:
            lines.append(scan.get(unit))
    return "\n".join(lines)


def _json_units(value: Any, scan: _Scan) -> Any:
    if isinstance(value, str):
        return ("s", scan.add(value))
    if isinstance(value, Mapping):
        return ("d", [(scan.add(str(k)), _json_units(v, scan)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return ("l", [_json_units(v, scan) for v in value])
    return ("v", value)


def _json_build(unit: Any, scan: _Scan) -> Any:
    kind, body = unit
    if kind == "s":
        return scan.get(body)
    if kind == "d":
        out: dict[str, Any] = {}
        for n, (k, v) in enumerate(body):
            key = scan.get(k)
            out[key if key not in out else f"{key}#{n}"] = _json_build(v, scan)
        return out
    if kind == "l":
        return [_json_build(v, scan) for v in body]
    return body


def safe_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` with every value that fails the leak scan replaced by :data:`REDACTED`.

    Numbers, booleans, ``TableSchema`` and other structured values pass unchanged; the count of
    replaced values is added under :data:`REDACTIONS_KEY`.
    """
    scan = _Scan()
    plan: dict[str, tuple[str, Any]] = {}
    for key, value in metadata.items():
        if isinstance(value, MarkdownMetadataValue):
            plan[key] = ("md", _md_units(value.value or "", scan))
        elif isinstance(value, (TextMetadataValue, PathMetadataValue, UrlMetadataValue)):
            plan[key] = (type(value).__name__, scan.add(str(value.value)))
        elif isinstance(value, JsonMetadataValue):
            plan[key] = ("json", _json_units(value.value, scan))
        elif isinstance(value, str):
            plan[key] = ("str", scan.add(value))
        else:
            plan[key] = ("keep", value)
    scan.run()
    out: dict[str, Any] = {}
    for key, (kind, unit) in plan.items():
        if kind == "md":
            out[key] = MetadataValue.md(_md_build(unit, scan))
        elif kind == "TextMetadataValue":
            out[key] = MetadataValue.text(scan.get(unit))
        elif kind == "PathMetadataValue":
            out[key] = MetadataValue.path(scan.get(unit))
        elif kind == "UrlMetadataValue":
            out[key] = MetadataValue.url(scan.get(unit))
        elif kind == "json":
            out[key] = MetadataValue.json(_json_build(unit, scan))
        elif kind == "str":
            out[key] = scan.get(unit)
        else:
            out[key] = unit
    out[REDACTIONS_KEY] = len(scan.leaky)
    return out
