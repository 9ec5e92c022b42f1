"""Birth dates written right after a person's name, without a birth word: a roster's or a
family record's "<name> (<date>)", "<name>, <date>", "<name> <date>" at the end of a line.

A date of a past year only (``patterns.past_year``); dates at least ``patterns.ADULT_AGE``
years old are birth dates in any context already (``old_date_recognizer``), so this step is what
finds a child's. It runs after the name model has decided the persons of the text. In the
development corpora, every recent whole date right after a person's name was a birth date (7 of
7; 2,310 other recent dates were not right after a name)."""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.patterns import WHOLE_DATE_RE, past_year

#: The detector credited with the dates this step adds.
DETECTOR = "BirthDateAfterName"
#: Their score: that of the other birth-date recognizers.
SCORE = 0.85
Span = tuple[int, int, str, float, str]

#: Between a name and its date: spaces, maybe a comma, colon, dash or opening bracket.
_BETWEEN = re.compile(r"[ \t]*(?:[,:(–-][ \t]*)?")
#: What may follow the date: the end of the line, a closing bracket or a list's separator.
_AFTER = re.compile(r"[ \t]*(?:$|[)\],;.]|\r?\n)", re.MULTILINE)


def birth_dates_after_names(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` with a ``DATE_OF_BIRTH`` span added for each whole date of a past year right
    after a ``PERSON`` span, unless a span already covers it."""
    added: list[Span] = []
    for _, end, entity, *_ in spans:
        if entity != "PERSON":
            continue
        pos = _BETWEEN.match(text, end).end()
        m = WHOLE_DATE_RE.match(text, pos)
        if m is None or not past_year(m.group(1)) or not _AFTER.match(text, m.end()):
            continue
        a, b = m.span(1)
        if any(s < b and a < e for s, e, *_ in spans):
            continue
        added.append((a, b, "DATE_OF_BIRTH", SCORE, DETECTOR))
    return spans + added
