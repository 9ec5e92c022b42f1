"""Delimited text (CSV, TSV, semicolon- or bar-separated): its delimiters and what its header
line looks like. One test for the masking's table readers (``csv_cells``, the address columns of
``detectors/address_fields``) and the name model's column feature (``names/features``)."""

from __future__ import annotations

import re

#: The delimiters of CSV-like text, tried in this order.
DELIMITERS = (",", "\t", ";", "|")
#: Most words of a header cell ("Account Holder Name"); a longer cell is a sentence.
HEADER_CELL_WORDS = 5


def inner_cells(cells: list[str]) -> list[str]:
    """``cells`` without the empty first and last ones that a Markdown table's outer bars make
    ("| MRN | Ward |")."""
    if len(cells) > 2 and not cells[0].strip() and not cells[-1].strip():
        return cells[1:-1]
    return cells


#: A cell of a Markdown table's rule line ("---", ":--:").
_RULE_CELL = re.compile(r"\s*:?-{3,}:?\s*")


def markdown_rows(rows: list[list[str]]) -> list[list[str]]:
    """Rows split on "|" as a Markdown table writes them: their ``inner_cells``, without the
    table's rule line ("|---|:--:|")."""
    rows = [inner_cells(row) for row in rows]
    return [row for row in rows if not all(_RULE_CELL.fullmatch(c) for c in row)]


def header_like(cells: list[str]) -> bool:
    """The cells of a first line read as a table's header (a Markdown table's too: its
    ``inner_cells``): every cell but the first (an index column may have none) holds a word, and
    none more than ``HEADER_CELL_WORDS`` words. A letter's salutation ("Dear Hiring Manager,") or
    a sentence with commas is no header, though the lines after it hold as many commas."""
    words = [len(c.split()) for c in inner_cells(cells)]
    return all(words[1:]) and max(words, default=0) <= HEADER_CELL_WORDS


#: Title lines a table may have above its header ("Staff export Q2", "Statement for ...").
MAX_TITLE_LINES = 2


def header_lines(lines: list[str]) -> range:
    """Indices of the lines that may be a table's header: the first, or one under at most
    ``MAX_TITLE_LINES`` title lines, with a row under it."""
    return range(min(MAX_TITLE_LINES, len(lines) - 2) + 1)


def header_candidates(lines: list[str]) -> list[tuple[int, str]]:
    """``(index, delimiter)`` of the lines that may be a table's header, in the order to try
    them: the first line, or one after at most ``MAX_TITLE_LINES`` title lines without that
    delimiter; the delimiter the line holds most first ("No. | Surname, Given | DOB": bars)."""
    out = []
    for skip in header_lines(lines):
        for delim in sorted(DELIMITERS, key=lambda d: -lines[skip].count(d)):
            if delim in lines[skip] and not any(delim in ln for ln in lines[:skip]):
                out.append((skip, delim))
    return out
