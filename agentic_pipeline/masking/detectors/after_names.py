"""Values written right after a person's name, in a roster's or a family record's way. The step
runs after the name model has decided the persons of the text.

* Birth dates without a birth word: "<name> (<date>)", "<name>, <date>", "<name> <date>" at the
  end of a line, or followed by anything in a text that speaks of birth dates elsewhere
  ("Client: <name> <date> <ssn>" under "names, DOBs and SSNs"; a family chat asking for the
  grandchildren's birthdays: "<name>: <date>!"; there a visit's date right after a doctor's
  name is masked too, a date of nobody's that costs no word). A date of a past year only
  (``dates.past_year``); dates at least ``dates.ADULT_AGE`` years old are birth dates in any
  context already (``old_date_recognizer``), so this step is what finds a child's. In the
  development corpora, every recent whole date right after a person's name at a line's end was
  a birth date (7 of 7; 2,310 other recent dates were not right after a name).
* A life span in brackets right after a name ("<name> (1902–1977)"): its first year is the
  person's birth year.
* Ids of the person: a code of letters and digits, or a number after its sign, in brackets,
  between dashes or as the next cell of a row right after the name ("<name> (WH2-4410)",
  "<name> (#48120)", "• <name> — KT-88120 — <email>", "<name> | QH-20931 | …"), or as the cell
  that opens the row right before it ("QH-20931, <name>, …"), of an identifier's shape
  (``id_floor.floor_shape``) or a roster's short code ("QW-418"), as ``ID_NUMBER``.
"""

from __future__ import annotations

import bisect
import itertools
import re

from agentic_pipeline.masking.detectors.dates import (
    ANY_YEAR_DIGITS,
    BIRTH_WORD_RE,
    WHOLE_DATE_RE,
    past_year,
)
from agentic_pipeline.masking.detectors.id_floor import FLOOR_TYPE, floor_shape

#: The detector credited with the values this step adds.
DETECTOR = "AfterNameRecognizer"
#: Their score: that of the birth-date recognizers.
SCORE = 0.85
Span = tuple[int, int, str, float, str]

#: Between a name and its date: spaces, maybe a relation in brackets ("(son)"), maybe a comma,
#: colon, dash or opening bracket.
_BETWEEN = re.compile(r"[ \t]*(?:\([^\W\d_][^()\n\d]{0,18}\)[ \t]*)?(?:[,:(–-][ \t]*)?")
#: What may follow the date: the end of the line, a closing bracket or a list's separator.
_AFTER = re.compile(r"[ \t]*(?:$|[)\],;.]|\r?\n)", re.MULTILINE)
#: A code's value: capitals and digits, maybe of several letter groups ("QZ-PT-5512",
#: "KV/2024/5512"), or a number after its sign ("#48120").
_CODE_VALUE = (
    r"\#?(?P<code>(?<=\#)\d{4,10}"  # a number after its sign ("(#48120)")
    r"|[A-Z]{1,5}\d{0,2}(?:[-/][A-Z0-9]{1,5}(?=[-/])){0,2}[-/]?\d{3,10}[A-Z]?)"
)
#: A short code of a roster: a few capitals, a hyphen, three digits or more ("QW-418").
_SHORT_CODE = re.compile(r"[A-Z]{1,4}-\d{3,}")
#: A row's cell separator: a bar, a comma or a semicolon, a tab, or two spaces or more.
_CELL_SEPARATOR = r"(?:[ \t]*[|,;][ \t]*|[ \t]*\t[ \t]*|[ ]{2,})"
#: A code in brackets, after a dash or in the next cell right after a name, then a closing
#: bracket, a dash, a comma, a cell's separator or the line's end ("(WH2-4410)", "— KT-88120 —",
#: "| QH-20931 |"), maybe after a lower-case word in the bracket ("(record QV-5512; …)").
_CODE = re.compile(
    rf"(?:[ \t]*\((?:[a-z]{{2,10}}\.?[ \t]+)?|[ \t]*[—–-][ \t]+|{_CELL_SEPARATOR})"
    + _CODE_VALUE
    + rf"(?=\)|[ \t]+[—–-]|[ \t]*(?:,|;|$)|{_CELL_SEPARATOR})",
    re.MULTILINE,
)
#: A code opening a row right before its name, maybe after a bullet or another code and a slash
#: ("A-40912 | <name> | …", "• KT-88120 — <name>", "4410932 / KT-88120  <name>"): matched on
#: the line's text up to the name.
_CODE_BEFORE = re.compile(
    r"[ \t]*(?:[-*•·][ \t]+)?(?:[A-Z0-9][A-Z0-9-]{2,20}[ \t]*/[ \t]*)?"
    + _CODE_VALUE
    + rf"(?:{_CELL_SEPARATOR}|[ \t]+[—–-][ \t]+)"
)


#: A life span in brackets right after a name, a genealogy's or an obituary's ("<name>
#: (1902–1977)"): its first year is the birth year.
_LIFE_SPAN = re.compile(
    rf"[ \t]*\((?:b\.[ \t]?)?(?P<birth>{ANY_YEAR_DIGITS})[ \t]*[–—-][ \t]*"
    rf"(?:d\.[ \t]?)?(?P<death>{ANY_YEAR_DIGITS})\)"
)


def values_after_names(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` with a ``DATE_OF_BIRTH`` span added for each whole date of a past year right
    after a ``PERSON`` span, and an ``ID_NUMBER`` span for each code, unless a span already
    covers it."""
    added: list[Span] = []
    if not any(entity == "PERSON" for _, _, entity, *_ in spans):
        return spans
    births = BIRTH_WORD_RE.search(text) is not None
    # a span overlaps a..b when one that starts before b ends after a: the ends' running maximum
    # over the spans sorted by start answers in a bisection (a roster of thousands of rows)
    bounds = sorted((s, e) for s, e, *_ in spans)
    starts = [s for s, _ in bounds]
    max_ends = list(itertools.accumulate((e for _, e in bounds), max))
    for start, end, entity, *_ in spans:
        if entity != "PERSON":
            continue
        for found in (_value_after(text, end, births), _code_before(text, start)):
            if found is None:
                continue
            i = bisect.bisect_left(starts, found[1])
            if i == 0 or max_ends[i - 1] <= found[0]:
                added.append((*found, SCORE, DETECTOR))
    return spans + added


def _code_before(text: str, start: int) -> tuple[int, int, str] | None:
    """The code that opens the row of a name starting at ``start``, with its type."""
    line = text.rfind("\n", 0, start) + 1
    m = _CODE_BEFORE.fullmatch(text, line, start)
    if m is None or not _code_shape(m.group("code")):
        return None
    return (*m.span("code"), FLOOR_TYPE)


def _value_after(text: str, end: int, births: bool) -> tuple[int, int, str] | None:
    """The code, birth date or life span's birth year right after a name that ends at ``end``,
    with its type; ``births``: the text speaks of birth dates, so anything may follow the date."""
    code = _CODE.match(text, end)
    if code is not None and _code_shape(code.group("code")):
        return (*code.span("code"), FLOOR_TYPE)
    if (life := _LIFE_SPAN.match(text, end)) is not None and life["birth"] < life["death"]:
        return (*life.span("birth"), "DATE_OF_BIRTH")
    m = WHOLE_DATE_RE.match(text, _BETWEEN.match(text, end).end())
    if m is None or not past_year(m.group(1)) or not (births or _AFTER.match(text, m.end())):
        return None
    return (*m.span(1), "DATE_OF_BIRTH")


def _code_shape(code: str) -> bool:
    """An identifier's shape (``id_floor.floor_shape``) or a roster's short code ("QW-418")."""
    return floor_shape(code) or _SHORT_CODE.fullmatch(code) is not None
