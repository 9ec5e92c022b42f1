"""Second line of defence: a high-precision scan of masked tables for personal data.

It looks for strict patterns (email, phone, Luhn-valid card, SSN, IBAN, IPv4, user ids), for
every raw value masking found (``known_values``, globally or per episode), and, with detectors of
another family than the ones that masked (``scan/detectors.py``: phones of every region, cards,
IBAN shapes, national ids, birth dates and names in context), for what masking missed. It reports
*where* a leak is (column, row, entity type, detector, a keyed hash of the value), never the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from agentic_pipeline.jsonutil import json_leaves
from agentic_pipeline.masking.json_walker import structures_in
from agentic_pipeline.masking.pseudonyms import TOKEN_RE, value_hash
from agentic_pipeline.masking.scan.detectors import card_findings, independent_findings
from agentic_pipeline.masking.text_view import text_view
from agentic_pipeline.pii_patterns import strict_matches
from agentic_pipeline.schema import ID_COLUMNS

#: The masked text columns and the identifier columns (never masked: replay and joins need them).
#: The scan itself covers every string column of a table unless told otherwise.
MASKED_AND_ID_COLUMNS = (
    "content",
    "tool_arguments",
    "task_description",
    "task_goal",
    "context",
    *ID_COLUMNS,
)


#: The day partition the pipeline writes on every row (an ISO date checked at ingestion): the
#: patterns read it, the known values are not searched in it (a masked "2026", an employee's
#: number, is the day's year there, no leak).
PARTITION_COLUMN = "ds"


@dataclass(frozen=True)
class Leak:
    """One suspected leak; ``value_hash`` lets two reports be compared without the raw value."""

    column: str
    row: int
    entity_type: str
    value_hash: str
    detector: str  # "pattern", "known_value" or a ``scan_*`` detector of scan/detectors.py

    def __str__(self) -> str:
        where = f"{self.column}[{self.row}]"
        return f"{self.entity_type} in {where} ({self.detector} {self.value_hash})"


class PIILeakError(RuntimeError):
    """Masked output still holds personal data; the message never includes a raw value."""

    def __init__(self, leaks: Sequence[Leak]) -> None:
        self.leaks = list(leaks)
        kinds: dict[str, int] = {}
        for lk in self.leaks:
            k = f"{lk.column}:{lk.entity_type}"
            kinds[k] = kinds.get(k, 0) + 1
        summary = ", ".join(f"{k}={v}" for k, v in sorted(kinds.items()))
        super().__init__(f"{len(self.leaks)} PII leak(s) after masking: {summary}")


#: Between two words of a value read by the scan, where the scan blanked a token to a space.
_GAP_WITH_TOKENS = rf"(?:\s|{TOKEN_RE.pattern})+"


def compile_values(values: Iterable[str], across_tokens: bool = False) -> re.Pattern[str] | None:
    """One case-insensitive, word-bounded alternation of ``values`` (longest first). With
    ``across_tokens``, the spaces between a value's words also match tokens: the scan reads a
    cell with its tokens blanked, so a value it reports may run across one."""
    uniq = sorted({v for v in values if v and v.strip()}, key=lambda v: (-len(v), v))
    if not uniq:
        return None
    if across_tokens:
        alts = "|".join(_GAP_WITH_TOKENS.join(map(re.escape, v.split())) for v in uniq)
    else:
        alts = "|".join(re.escape(v) for v in uniq)
    return re.compile(rf"(?<!\w)(?:{alts})(?!\w)", re.IGNORECASE)


def _column(table: Any, name: str) -> list[Any]:
    if isinstance(table, pa.Table):
        return table.column(name).to_pylist()
    return list(table[name])


def _columns(table: Any) -> list[str]:
    return list(table.column_names if isinstance(table, pa.Table) else table.columns)


def string_columns(table: Any) -> list[str]:
    """Every column that can hold text: Arrow string types, or pandas object/string columns."""
    if isinstance(table, pa.Table):
        return [
            f.name
            for f in table.schema
            if pa.types.is_string(f.type)
            or pa.types.is_large_string(f.type)
            or pa.types.is_dictionary(f.type)
        ]
    return [c for c in table.columns if str(table[c].dtype) in ("object", "string", "str")]


def _decoded_leaves(objects: list[Any]) -> tuple[list[str], list[int]]:
    """The string values and keys of ``objects``, decoded, and their integers (floats are left
    out: a float artefact such as ``113.71000000000004`` is not a card)."""
    strings: list[str] = []
    ints: list[int] = []
    stack = list(objects)
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            strings.extend(str(k) for k in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            strings.append(node)
        elif isinstance(node, int) and not isinstance(node, bool):
            ints.append(node)
    return strings, ints


def _values_text(pieces: list[str], objects: list[Any]) -> str:
    """A cell's text around its structures and their values, decoded: keys are schema, not data
    (a customer surnamed "Case" must not make the key ``"case"`` a leak)."""
    return "\n".join([*pieces, *(str(leaf) for leaf in json_leaves(objects))])


def independent_leaks(
    text: str, parts: tuple[list[str], list[Any]] | None = None
) -> list[tuple[str, str, str]]:
    """``(entity_type, detector, value)`` found by the scan's own detectors in one cell's text
    (tokens already blanked), read as the masking reads it (``structures_in``, or ``parts`` when
    the caller has it): structures leaf by leaf, keys included, and the text around them."""
    pieces, objects = structures_in(text) if parts is None else parts
    strings, ints = _decoded_leaves(objects)
    found: list[tuple[str, str, str]] = []
    for part in [*pieces, *strings]:
        for s, e, et, det in independent_findings(part):
            found.append((et, det, part[s:e]))
    for number in ints:
        digits = str(number)
        for s, e, et, det in card_findings(digits):
            found.append((et, det, digits[s:e]))
    return list(dict.fromkeys(found))  # one report per value, type and detector, in order


def scan_for_leaks(
    table: Any,
    known_values: Iterable[str] | Mapping[str, Iterable[str]] | None = None,
    columns: Sequence[str] | None = None,
    min_known_len: int = 4,
    independent: bool = True,
) -> list[Leak]:
    """Scan ``columns`` (default: every string column) of a pyarrow Table or pandas DataFrame.

    ``known_values`` is either one collection for all rows or a mapping ``episode_id -> values``
    (then the table needs an ``episode_id`` column). Values shorter than ``min_known_len`` are not
    searched (too many false alarms). Already-masked tokens are ignored. ``independent=False``
    leaves out the detectors of ``scan/detectors.py``.
    """
    return [
        leak for leak, _ in find_leaks(table, known_values, columns, min_known_len, independent)
    ]


def find_leaks(
    table: Any,
    known_values: Iterable[str] | Mapping[str, Iterable[str]] | None = None,
    columns: Sequence[str] | None = None,
    min_known_len: int = 4,
    independent: bool = True,
) -> list[tuple[Leak, str]]:
    """``scan_for_leaks`` with each leak's raw value, for masking to mask it (never to log)."""
    if columns is None:
        columns = string_columns(table)
    present = [c for c in columns if c in _columns(table)]
    global_rx: re.Pattern[str] | None = None
    per_episode: dict[str, re.Pattern[str] | None] = {}
    episodes: list[Any] | None = None
    if isinstance(known_values, Mapping):
        episodes = _column(table, "episode_id")
        for ep, vals in known_values.items():
            per_episode[ep] = compile_values(v for v in vals if len(v) >= min_known_len)
    elif known_values is not None:
        global_rx = compile_values(v for v in known_values if len(v) >= min_known_len)
    leaks: list[tuple[Leak, str]] = []
    # episode columns repeat on every row (a day of 5,000 rows holds 200 task goals): each
    # distinct cell is prepared and scanned by the detectors once, each distinct cell of an
    # episode searched for that episode's values once; the rows then share the result
    found: dict[str, tuple[str, list[tuple[str, str, str, str]]]] = {}
    known: dict[tuple[Any, str], list[tuple[str, str]]] = {}
    for col in present:
        for row, cell in enumerate(_column(table, col)):
            if not isinstance(cell, str) or not cell:
                continue
            scanned = found.get(cell)
            if scanned is None:
                scanned = found[cell] = _scan_cell(cell, independent)
            values_text, hits = scanned
            for et, det, value, digest in hits:
                leaks.append((Leak(col, row, et, digest, det), value))
            rx = global_rx if episodes is None else per_episode.get(episodes[row])
            if rx is not None and col != PARTITION_COLUMN:
                key = (None if episodes is None else episodes[row], cell)
                values = known.get(key)
                if values is None:
                    values = known[key] = [
                        (m.group(), value_hash(m.group().casefold()))
                        for m in rx.finditer(values_text)
                    ]
                for value, digest in values:
                    leaks.append((Leak(col, row, "KNOWN_VALUE", digest, "known_value"), value))
    return leaks


def _scan_cell(cell: str, independent: bool) -> tuple[str, list[tuple[str, str, str, str]]]:
    """One cell as scanned: the text searched for known values (tokens blanked; full-width,
    %XX-encoded, &#64; decoded; its structures' values decoded, keys left out) and its findings
    ``(entity type, detector, value, value hash)`` by the patterns and, with ``independent``,
    the scan's own detectors. The cell's structures are read once for both."""
    text = TOKEN_RE.sub(" ", cell)
    view = text_view(text)
    text = view.text if view else text
    parts = structures_in(text)
    hits = [(et, "pattern", text[s:e]) for s, e, et in strict_matches(text)]
    if independent:
        hits += independent_leaks(text, parts)
    findings = [(et, det, value, value_hash(value)) for et, det, value in hits]
    return _values_text(*parts), findings
