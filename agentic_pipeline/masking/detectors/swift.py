"""The parties of SWIFT MT payment messages pasted into a log (a bank's tool result, a payment
ticket): the ordering customer's and beneficiary's account, name and address (fields 50a and
59a, ``swift.yaml``).

A field starts where a line starts with its tag (":59:", ":50K:") and runs to the next tag's
line. In the free-format options the lines after the account line are the name, then the
address; in the structured options (50F, 59F) each line's number says what it holds. Banks'
messages write names in capitals, one party to a field, with no sentence around them: the name
model, reading prose, does not take them, so the field's position decides. A party whose name
has an organisation word ("LTD", "GmbH") is a company and stays. Our own reader: the parsers of
the format (``mt-940`` reads statements only) expect a whole message, where logs carry fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentic_pipeline.masking.detectors.data_files import data_file
from agentic_pipeline.masking.detectors.span_finder import SpanFinderRecognizer

#: The detector name recorded in the audit; its person spans are decided by position, not by the
#: name model (``names/recognizer.decide_persons``).
DETECTOR = "SwiftFieldRecognizer"
#: As sure as a value under its label (``hl7.SCORE``).
SCORE = 0.95
#: A field's tag at the start of a line (":59:", ":50K:").
_TAG = re.compile(r"^[ \t]*:(?P<tag>\d\d[A-Z]?):", re.M)
#: The account line of a party field ("/GB29NWBK...", "/12345678").
_ACCOUNT = re.compile(r"/[ \t]*(?P<account>[A-Z0-9][A-Z0-9 -]{3,40}[A-Z0-9])[ \t]*$")
#: A line of a structured option: its number, "/", the value.
_NUMBERED = re.compile(r"(?P<code>\d)/(?P<value>.*\S)")
#: A party field has at most this many lines of name and address.
_MAX_LINES = 4
#: A line that ends a message's text block ("-}") or opens another ("{5:").
_BLOCK_EDGE = re.compile(r"[ \t]*(?:-\}|\{|\})")
_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=1)
def _fields() -> tuple[dict[str, str], dict[str, str]]:
    """(tag -> how its lines are read, structured line number -> entity), of ``swift.yaml``."""
    data = data_file("swift.yaml")
    options = {
        str(tag): kind
        for kind in ("free_format", "account_only", "structured")
        for tag in data[kind]
    }
    return options, {str(k): v for k, v in data["structured_lines"].items()}


def _lines(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each non-blank line of ``text[start:end]``, stripped."""
    for m in re.finditer(r"[^\r\n]+", text[start:end]):
        line = m.group()
        if _BLOCK_EDGE.match(line):
            return
        if line.strip():
            lead = len(line) - len(line.lstrip())
            yield start + m.start() + lead, start + m.start() + len(line.rstrip())


def _company(name: str) -> bool:
    """A party's name with an organisation word ("LTD", "GmbH"): a company's."""
    # imported here: the names package reads this module's DETECTOR (``decide_persons``)
    from agentic_pipeline.masking.names.floor import organisation_word

    return any(organisation_word(w) for w in _WORD.findall(name))


def _account(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The account of a party field's first line ("/<account>"), if it has one."""
    m = _ACCOUNT.fullmatch(text, *lines[0]) if lines else None
    return [(m.start("account"), m.end("account"), "BANK_ACCOUNT")] if m else []


def _free_format(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The account, then the name (first line) and address (the others) of a party."""
    out = _account(text, lines)
    lines = lines[len(out) :][:_MAX_LINES]
    if not lines or _company(text[slice(*lines[0])]):
        return out
    out.append((*lines[0], "PERSON"))
    if len(lines) > 1:
        out.append((lines[1][0], lines[-1][1], "STREET_ADDRESS"))
    return out


def _structured(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The account, then each numbered line's value as its number says (``swift.yaml``)."""
    entity_of = _fields()[1]
    out = _account(text, lines)
    named = [m for s, e in lines[len(out) :] if (m := _NUMBERED.fullmatch(text, s, e))]
    if any(m.group("code") == "1" and _company(m.group("value")) for m in named):
        return out
    last = None
    for m in named:
        entity = entity_of.get(m.group("code"))
        entity = last if entity == "continues" else entity
        if entity is not None:
            out.append((m.start("value"), m.end("value"), entity))
        last = entity
    return out


def swift_parties(text: str) -> list[tuple[int, int, str]]:
    """(start, end, entity type) of the accounts, names and addresses of the ordering customers
    and beneficiaries of the SWIFT MT fields in ``text``."""
    if ":5" not in text:
        return []
    options = _fields()[0]
    tags = list(_TAG.finditer(text))
    out = []
    for i, tag in enumerate(tags):
        kind = options.get(tag.group("tag"))
        if kind is None:
            continue
        end = tags[i + 1].start() if i + 1 < len(tags) else len(text)
        out.extend(_READERS[kind](text, list(_lines(text, tag.end(), end))))
    return out


_READERS = {
    "free_format": _free_format,
    "account_only": _account,
    "structured": _structured,
}


class SwiftFieldRecognizer(SpanFinderRecognizer):
    """The parties of SWIFT MT payment fields (``swift_parties``)."""

    def __init__(self) -> None:
        entities = {"PERSON", "STREET_ADDRESS", "BANK_ACCOUNT"} | set(_fields()[1].values())
        super().__init__(swift_parties, entities - {"continues"}, DETECTOR, SCORE)
