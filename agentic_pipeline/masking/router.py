"""Route each string to the cheapest analysis that can find personal data in it.

* ``SKIP``: nothing to find (empty, short, numbers, ISO dates/times, enum-like words, airport or
  reservation codes, uuids);
* ``REGEX``: one token without spaces (ids, emails, phone numbers, card numbers): pattern
  recognizers only, no NER;
* ``NER``: free text (spaces and letters, or letters of a script written without spaces): the
  full analyzer, spaCy NER included.
"""

from __future__ import annotations

import enum
import re

from agentic_pipeline.masking.pseudonyms import TOKEN_RE
from agentic_pipeline.masking.vocabulary import NO_SPACE_SCRIPT


class Route(enum.Enum):
    """How a string is analysed."""

    SKIP = "skip"
    REGEX = "regex"
    NER = "ner"


_SAFE = re.compile(
    r"""(?x)^(?:
        -?\d{1,6}(?:\.\d+)?                                   # small numbers, amounts
      | \d{4}-\d{2}-\d{2}(?:[T\s]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?
      | \d{2}:\d{2}(?::\d{2})?                                # times
      | [a-z]+(?:[_-][a-z]+)*                                 # enums: economy, one_way
      | [A-Z0-9]{2,8}                                         # codes: JFK, HAT069, NO6JO3
      | [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}
      | true|false|null|None|True|False
    )$"""
)
_HAS_SPACE_AND_WORDS = re.compile(r"\s\S*[^\W\d_]{2}|[^\W\d_]{2}\S*\s")


def route(text: str) -> Route:
    """Choose the analysis for ``text`` (see module doc)."""
    s = text.strip()
    if len(s) < 3 or _SAFE.match(s) or TOKEN_RE.fullmatch(s):
        return Route.SKIP
    if _HAS_SPACE_AND_WORDS.search(s) or NO_SPACE_SCRIPT.search(s):
        return Route.NER  # words, or a script written without spaces between them
    return Route.REGEX
