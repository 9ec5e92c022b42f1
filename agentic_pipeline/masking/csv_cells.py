"""CSV-like text a tool returns (a header line and rows): its table as ``csv`` reads it, the cells
whose column header names personal data, and the columns that hold things' ids."""

from __future__ import annotations

import re

from agentic_pipeline.masking.delimited import (
    DELIMITERS,
    header_candidates,
    header_like,
    header_lines,
    markdown_rows,
)
from agentic_pipeline.masking.detectors.bare_numbers import thing_key
from agentic_pipeline.masking.detectors.id_shapes import is_year, label_value_ok
from agentic_pipeline.masking.detectors.key_rules import normalize_key
from agentic_pipeline.masking.detectors.label_lists import id_labels, id_word_set
from agentic_pipeline.masking.detectors.labels import (
    GENERIC_LABELS,
    handle_value_ok,
    id_value_ok,
    label_entity,
    norm_label,
)
from agentic_pipeline.masking.detectors.login_names import handle_keys
from agentic_pipeline.masking.detectors.redacted import placeholder_value
from agentic_pipeline.masking.episode import PROPAGATE
from agentic_pipeline.masking.json_walker import key_entity
from agentic_pipeline.masking.pseudonyms import TOKEN_RE

#: Types of the id labels: a cell under such a header is an id only with an id's shape.
_LABEL_ID_TYPES = frozenset(id_labels().values())


def thing_column(header: str) -> bool:
    """A CSV header or JSON key that names a thing's id or value ("order_id", "sku") and no
    personal field ("patient_id", "Patient ID")."""
    return thing_key(header) and not _entity(header)


def thing_values(table: tuple[list[str], list[list[str]]]) -> set[str]:
    """The non-empty cells of ``table``'s columns of things (``thing_column``)."""
    header, rows = table
    things = [k for k, h in enumerate(header) if thing_column(h.strip())]
    return {row[k].strip() for row in rows for k in things if k < len(row) and row[k]}


def csv_table(text: str) -> tuple[list[str], list[list[str]]] | None:
    """(header, rows) of CSV-like text (a header line, maybe under a title line or two, and rows,
    most as long as the header, in one of ``DELIMITERS``; a Markdown table, a table aligned with
    spaces too), or None. Fields are counted as ``csv`` reads them: a quoted cell may hold the
    delimiter ("12 Oak Row, Springfield")."""
    import csv

    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return None
    # "claim_id   patient" over "C-1   <Last>, <First>": no CSV of commas
    first_undelimited = not any(d in lines[0] for d in DELIMITERS)
    if first_undelimited and (aligned := _aligned_table(lines)) is not None:
        return aligned
    for skip, delim in header_candidates(lines):
        rows = list(csv.reader(lines[skip:], delimiter=delim))
        rows = markdown_rows(rows) if delim == "|" else rows
        if len(rows) < 2:
            continue
        n = len(rows[0])
        if not header_like(rows[0]):
            continue
        if delim == ",":
            rows = _names_rejoined(rows)
        if sum(len(r) == n for r in rows[1:]) >= max(1, (len(rows) - 1) // 2):
            return rows[0], rows[1:]
    return None if first_undelimited else _aligned_table(lines)


def _names_rejoined(rows: list[list[str]]) -> list[list[str]]:
    """``rows`` (the header first) of a comma-separated table with each name cell whole when an
    export left "<Surname>, <Given>" unquoted: a row longer than the header whose cells after
    the one column of names start with a space, as the comma's in a name does and a column's
    seldom; other rows as they are. The column of names is the one its header names, or else
    the one column after which every longer row's extra cells start with a space."""
    header = rows[0]
    names = [k for k, h in enumerate(header) if _entity(h.strip()) == "PERSON"]
    if len(names) != 1:
        names = _spaced_column(rows)
        if len(names) != 1:
            return rows
    k = names[0]
    out = [header]
    for row in rows[1:]:
        extra = len(row) - len(header)
        tail = row[k + 1 : k + 1 + extra]
        if extra > 0 and len(tail) == extra and all(c.startswith(" ") and c.strip() for c in tail):
            row = [*row[:k], ",".join(row[k : k + 1 + extra]), *row[k + 1 + extra :]]
        out.append(row)
    return out


def _spaced_column(rows: list[list[str]]) -> list[int]:
    """The one column after which every row longer than the header (``rows[0]``) has its extra
    cells, and no other of its cells, start with a space and a letter, as a list; else []."""
    columns = set()
    for row in rows[1:]:
        extra = len(row) - len(rows[0])
        if extra <= 0:
            continue
        spaced = [i for i, c in enumerate(row) if c[:1] == " " and c[1:2].isalpha()]
        if not spaced or spaced != list(range(spaced[0], spaced[0] + extra)):
            return []
        columns.add(spaced[0] - 1)
    return sorted(columns) if len(columns) == 1 else []


def _entity(header: str) -> str | None:
    """The personal type a column's header names (a key rule, a label of ``labels.yaml``, or a
    handle key: a "user" column holds login names, its cells checked as such)."""
    handle = "USER_ID" if normalize_key(header) in handle_keys() else None
    return key_entity(header) or label_entity(header) or handle


#: A list's bullet, indented from its item by spaces as an aligned column would be.
_BULLET = re.compile(r"[*\-•·‣▪►>]+|\d{1,2}[.)]")
#: Between the columns of a table aligned with spaces (a CLI's or SQL client's output).
_COLUMN_GAP = re.compile(r"[ \t\u3000]{2,}|\t")
#: Chinese and Japanese tables part their columns with one ideographic space too.
_WIDE_GAP = re.compile(r"[ \t\u3000]{2,}|[\t\u3000]")


def _aligned_table(lines: list[str]) -> tuple[list[str], list[list[str]]] | None:
    """(header, rows) of a table whose columns are aligned with runs of spaces ("claim_id
    patient   member_id"), maybe under a title line or two: a header of two or more cells and
    rows, most split into as many cells; else None."""
    gaps = (_COLUMN_GAP, _WIDE_GAP) if "\u3000" in lines[0] + lines[-1] else (_COLUMN_GAP,)
    for gap in gaps:
        for skip in header_lines(lines):
            if "|" in lines[skip]:
                continue  # a pipe table under a title line: the delimiters read it
            rows = [gap.split(ln.strip(" \t\u3000")) for ln in lines[skip:]]
            n = len(rows[0])
            if n < 2 or not header_like(rows[0]) or _BULLET.fullmatch(rows[0][0]):
                continue  # "*   First Name:" over "*   Last Name:": a bulleted list, no table
            if sum(len(r) == n for r in rows[1:]) >= max(1, (len(rows) - 1) // 2 + 1):
                return rows[0], rows[1:]
    return None


def tabular_values(
    text: str, table: tuple[list[str], list[list[str]]] | None = None
) -> list[tuple[str, str]]:
    """Cells of CSV-like text (``csv_table``, or ``table`` when already read) whose column
    header names personal data (``name``, ``email``, ``phone``, or a label of ``labels.yaml``:
    ``Account Name``, ``Payee``, ``MRN``, ``Policy No``...): ``[(value, entity_type)]``.
    NER is weak on such text; the header is a structured field."""
    table = table if table is not None else csv_table(text)
    if table is None:
        return []
    names, rows = table
    header = [_entity(h.strip()) for h in names]
    if not any(header):
        return []
    if "PERSON" in header:  # "Nr. | Name | DOB": the number column of a list of people is theirs
        numbered = [_number_header(h) for h in names]
        header = [et or ("USER_ID" if n else None) for et, n in zip(header, numbered, strict=True)]
    else:
        numbered = [False] * len(names)
    # a header of both lists ("Student #", "Patient") over an id names that id, as in prose
    as_id = [label_entity(h.strip(), ids_first=True) for h in names]
    out = []
    for row in rows:
        if len(names) >= 2 and len(row) == 1:
            continue  # a line of prose after the table ("Assistant: I've drafted …"), no row
        for et, id_et, number, cell in zip(header, as_id, numbered, row, strict=False):
            cell = cell.strip()
            if number and (not id_value_ok(cell) or is_year(cell)):
                continue  # a row's number ("1", "2") or a year, no one's id
            if et == "PERSON" and id_et not in (None, "PERSON") and _id_cell(cell):
                et = id_et
            if et not in PROPAGATE or not cell or TOKEN_RE.fullmatch(cell):
                continue
            if placeholder_value(cell):
                continue  # "N/A", "[redacted]": nobody's value
            if et == "PERSON" and not any(c.isalpha() for c in cell):
                continue
            if et == "USER_ID" and not handle_value_ok(cell):
                continue  # a login column's cell must look like a login name
            id_column = et in _LABEL_ID_TYPES and et != "USER_ID"
            if id_column and not label_value_ok(et, cell):
                continue  # an id column's cell must look like an id ("40-11-28": a sort code)
            out.append((cell, et))
    return out


def _number_header(header: str) -> bool:
    """A column header that is a number word or "ID" alone ("Nr.", "No", "#", "Nº", "ID")."""
    norm = norm_label(header)
    return header.strip() == "#" or norm in id_word_set() or norm in GENERIC_LABELS


def _id_cell(cell: str) -> bool:
    """A cell with a digit and an id's shape ("QX-4471", "20114587"), no name."""
    return any(c.isdigit() for c in cell) and id_value_ok(cell)
