"""Postal addresses masked whole: a street line joined with the unit, city, region, postcode
and country that follow it (issue #21).

The street lines and postcodes are found by the street recognizers; this joins them. After a
street span, the parts of the address are read one by one (separated by commas, spaces or a
line break): unit designators, capitalised city or region words, two-letter state codes,
postcodes of the main formats, a country. The span grows only up to a part that proves it is
an address: a postcode (with a city right after it, as Europe writes "10115 Berlin"), or a
country after such a part. So "12 Oak Row, Springfield, IL 62704" and "Larch Row 14\\n80331
Oberwald\\nGermany" become one span each, while a street followed by a sentence keeps its street
only, and a city named alone in prose stays in clear. ``City, ST 62704`` without a street is
joined the same way around its postcode.
"""

from __future__ import annotations

import re

from agentic_pipeline.masking.engine import Span

ADDRESS_TYPES = frozenset({"STREET_ADDRESS", "ZIP_CODE", "UK_POSTCODE"})
#: Type of a joined address (the street recognizers' type: one token type per address).
ADDRESS = "STREET_ADDRESS"
DETECTOR = "AddressJoiner"

_SEP = r"[ \t]*(?:,[ \t]*)?(?:\r?\n[ \t]*)?"
_UNIT = (
    r"(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat|Floor|Fl\.?|Room|Rm\.?|Bldg\.?|Building|#)"
    r"[ \t]*[A-Za-z]?\d[\w-]*"
)
_POSTCODE = (
    r"\d{5}(?:-\d{4})?"  # US, DE, FR, ES, IT...
    r"|\d{4}[ \t]?[A-Z]{2}(?![\w])"  # NL
    r"|\d{2}-\d{3}|\d{4}-\d{3}"  # PL, PT
    r"|\d{3}[ \t]\d{2}"  # CZ, SK, SE, GR
    r"|\d{4}"  # AT, BE, CH, DK, NO, HU...
    r"|[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}"  # UK
    r"|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d"  # CA
)
#: A capitalised word (a city, region or country word).
_CAP_WORD = r"[^\W\d_a-z][^\W\d_]*(?:['’-][^\W\d_]+)*(?!\d)"
_PART = re.compile(
    rf"{_SEP}(?:(?P<unit>{_UNIT})|(?P<postcode>(?:{_POSTCODE}))(?![\w-])"
    rf"|(?P<state>[A-Z]{{2}})(?![\w])|(?P<words>{_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,2}}))"
)
#: "City, ST 62704" before a postcode that has no street before it.
_CITY_STATE_BEFORE = re.compile(
    r"(?:[^\W\d_a-z][\w'’.-]*(?:[ \t]+[^\W\d_a-z][\w'’.-]*){0,2}),[ \t]*[A-Z]{2}[ \t]+$"
)
MAX_PARTS = 8
#: What may follow a city that closes an address without a postcode: the end of a sentence,
#: line, field or text, or the state code or country after another comma.
_CLOSES = re.compile(r"[ \t]*(?:[.;)\n\"']|,[ \t]*(?:[A-Z]{2}(?![\w])|[^\W\d_a-z])|$)")


def _join_after(text: str, end: int) -> int:
    """The end of the address that starts with a street ending at ``end``."""
    committed, pos, after_postcode = end, end, False
    for _ in range(MAX_PARTS):
        m = _PART.match(text, pos)
        if m is None or m.end() == pos:
            break
        if m.group("postcode"):
            committed, after_postcode = m.end(), True
        elif m.group("state"):
            if pos > end:  # "12 Oak Row, Springfield, IL": the state closes the address
                committed = m.end()
        elif m.group("words"):
            if after_postcode:  # "10115 Berlin" (same line), or the country line under a block
                committed = m.end()
                after_postcode = "\n" not in text[pos : m.start("words")]
            elif pos == end and "," in text[pos : m.start("words")]:
                if _CLOSES.match(text, m.end()):  # "12 Oak Row, Springfield." / ", Millbrook\n"
                    committed = m.end()
        elif m.group("unit") and committed == pos:
            committed = m.end()  # "12 Oak Row, Apt 5"
        pos = m.end()
    return committed


def join_addresses(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` with each street span widened to its whole address, and ``City, ST 62704``
    joined around its postcode (see module doc)."""
    if not any(sp[2] in ADDRESS_TYPES for sp in spans):
        return spans
    out: list[Span] = []
    for sp in spans:
        s, e, et, score, det = sp
        if et == "STREET_ADDRESS":
            new_end = _join_after(text, e)
            if new_end > e:
                sp = (s, new_end, ADDRESS, score, det)
        elif et in ("ZIP_CODE", "UK_POSTCODE"):
            before = _CITY_STATE_BEFORE.search(text, max(0, s - 60), s)
            if before is not None:
                sp = (before.start(), e, ADDRESS, score, det)
        out.append(sp)
    return out
