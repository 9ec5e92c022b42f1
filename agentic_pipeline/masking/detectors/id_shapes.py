"""The shapes of identifiers, and of what looks like one but is none (a year, a date, an amount,
a quantity): shared by the id labels (``labels.py``) and the plain-Presidio floor
(``id_floor.py``)."""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.label_lists import (
    ends_with_id_label,
    id_word_set,
    label_words,
    number_word_set,
)
from agentic_pipeline.masking.vocabulary import STOP_WORDS, is_vocabulary

_YEAR = re.compile(r"(?:19|20)\d\d")
_DATE = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}")
#: An amount: thousands and decimals parted by different signs ("1,234.50", "1.234,50"), or a
#: decimal part alone ("12.50"); "6.412.907.55" (dots only) is an id's grouping.
_AMOUNT = re.compile(r"\d{1,3}(?:,\d{3})*\.\d{1,2}|\d{1,3}(?:\.\d{3})*,\d{1,2}|\d+[.,]\d{1,2}")
#: A unit after a number: a quantity or an amount, no id ("25000 miles", "1000000 dollars").
UNIT_AFTER = re.compile(
    r"(?i)[ \t]*(?:dollars?|usd|eur|euros?|pounds?|gbp|inr|rupees?|points?|miles?|km|kg|lbs?|"
    r"items?|units?|%|percent|people|users|customers|members|accounts|times|days|hours|years)\b"
)


#: The next entry of a list of ids after a comma, a semicolon or "and" ("A-1, A-2 and A-3").
_LIST_NEXT = re.compile(r"[ \t]*(?:[,;]|[,;]?[ \t]+(?:and|&|et|und|y|e|i|en))[ \t]*([\w-]+)")
#: The longest list of ids read after one label.
_LIST_ENTRIES = 50


def same_shape_list(text: str, end: int, value: str) -> list[tuple[int, int]]:
    """The ids listed after an id ending at ``end`` that share its shape (the same letters, the
    same number of digits: "claims QK-40021, QK-51873 and QK-66120"), a list's label being
    written once."""
    shape = re.sub(r"\d", "9", value)
    if len(value) < 5 or shape.count("9") < 3:
        return []
    out: list[tuple[int, int]] = []
    while len(out) < _LIST_ENTRIES and (m := _LIST_NEXT.match(text, end)) is not None:
        if re.sub(r"\d", "9", m.group(1)) != shape or m.group(1) == value:
            break
        out.append(m.span(1))
        end = m.end()
    return out


def handle_value_ok(value: str) -> bool:
    """A login name's shape: a digit, or ``_ . @`` inside, or a word that is no frequent word
    ("quietfern" yes, "not", "broken", "for" no)."""
    if not 3 <= len(value) <= 40:
        return False
    if any(c.isdigit() for c in value) or any(c in "_.@" for c in value):
        return True
    return value.lower() not in STOP_WORDS and not is_vocabulary(value)


def id_value_ok(value: str) -> bool:
    """An id's shape: 3+ digits (or 2 digits and a letter), 4-40 characters, not a year, a date,
    an amount or a decimal."""
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    if not 4 <= len(value) <= 40 or digits < 2 or (digits < 3 and not letters):
        return False
    return not (_YEAR.fullmatch(value) or is_date(value) or _AMOUNT.fullmatch(value))


def is_date(value: str) -> bool:
    """Three numbers that read as a date in year-month-day, day-month-year or month-day-year
    order ("2024-05-01", "14/03/61"); "20-44-91" (a sort code) and "55-10-2231" are none."""
    if not _DATE.fullmatch(value):
        return False
    a, b, c = re.split(r"[./-]", value)

    def ymd(y: str, m: str, d: str) -> bool:
        return len(y) in (2, 4) and 1 <= int(m) <= 12 and 1 <= int(d) <= 31

    return ymd(a, b, c) or ymd(c, b, a) or ymd(c, a, b)


def is_compact_date(digits: str) -> bool:
    """Eight digits that read as a date, year first ("20240318": a build, a file's date)."""
    if len(digits) != 8 or not digits.isdigit():
        return False
    y, m, d = int(digits[:4]), int(digits[4:6]), int(digits[6:])
    return 1900 <= y <= 2099 and 1 <= m <= 12 and 1 <= d <= 31


def is_year(digits: str) -> bool:
    """A year of the last two centuries ("2024"; "FY2024" and "1990s" hold one and no more)."""
    return _YEAR.fullmatch(digits) is not None


_MONTH = re.compile(r"((?:19|20)\d\d)[./-](\d{1,2})|(\d{1,2})[./-]((?:19|20)\d\d)")


def is_month(value: str) -> bool:
    """A month of a year, year first or last ("2026-03", "03/2026")."""
    m = _MONTH.fullmatch(value)
    return m is not None and 1 <= int(m.group(2) or m.group(3)) <= 12


#: A British or Irish bank sort code ("20-18-33"): three pairs of digits, written as a date may be.
SORT_CODE = re.compile(r"\d\d-\d\d-\d\d")
#: What makes a number a quantity or a sum, not an id ("100%", "250 €", "120 kg").
_SUM_AFTER = re.compile(r"[ \t]?[%$€£¥₹]")
#: Letters an id's value may hold: Latin (with the accented letters of Latin-1 and Latin
#: Extended-A: "BÅT-…"), Greek and Cyrillic ("ΑΒ…", "МК-…": a Greek or Russian id's series);
#: not the letters of scripts that write no space between words, which would run on into them.
ID_LETTERS = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017f\u0386\u0388-\u03ce\u0400-\u04ff"
#: ``ID_LETTERS`` and digits.
ID_CHARS = ID_LETTERS + "0-9"
#: The signs that number a value after its label ("MRN: 612", "Member #612", "№ 612").
NUMBER_SIGN = re.compile(r"[:#=№]")


def quantity_after(text: str, end: int) -> bool:
    """A unit or a currency or percent sign follows the number that ends at ``end``."""
    return bool(_SUM_AFTER.match(text, end) or UNIT_AFTER.match(text, end))


def id_token(value: object) -> bool:
    """A string of one token, 4 to 64 characters, with a digit (a platform's record id of any
    shape: "U0QWERTYUI", "cus_8Kq2")."""
    text = value if isinstance(value, str) else ""
    return 4 <= len(text) <= 64 and not re.search(r"\s", text) and bool(re.search(r"\d", text))


#: A plate of capitals with a digit or more, maybe in two groups ("GOFSTR8", "LUV 2RUN").
_VANITY_PLATE = re.compile(
    r"(?=[A-Z0-9 -]*\d)(?=[A-Z0-9 -]*[A-Z])[A-Z0-9]{1,8}(?:[ -][A-Z0-9]{1,4})?"
)


def typed_short_id(entity: str | None, value: str) -> bool:
    """A value of less than an id's usual shape (``id_value_ok``) that its label's type allows:
    a sort code after a bank label ("sort code 20-18-33", "Bank code: 40-12-07"), read as the
    bank's code, not as a date; a vanity plate after a plate label ("plate GOFSTR8": one digit
    among capitals)."""
    if entity in ("BANK_ACCOUNT", "ABA_ROUTING_NUMBER"):
        return SORT_CODE.fullmatch(value) is not None
    if entity == "VEHICLE_ID" and 4 <= len(value) <= 10 and not _YEAR.fullmatch(value):
        return _VANITY_PLATE.fullmatch(value) is not None
    return False


def label_value_ok(entity: str | None, value: str) -> bool:
    """A value after (or under) a label of type ``entity`` that may be its id: an id's shape, or
    a shorter one the type allows (``typed_short_id``)."""
    return id_value_ok(value) or typed_short_id(entity, value)


#: A place's name and a comma right before a two-letter code: "Boise, ID 83702" is Idaho's ZIP.
_PLACE_COMMA = re.compile(r"[^\W\d_]{2,}\.?,[ \t]*$")
_ZIP = re.compile(r"\d{5}(?:-\d{4})?")


def state_zip(text: str, label_start: int, label: str, value: str) -> bool:
    """``label`` and ``value`` are a US state's code and a ZIP after a city ("Boise, ID 83702"),
    not a generic id's label and its value."""
    near = text[max(0, label_start - 40) : label_start]
    return (
        label == "ID"
        and _ZIP.fullmatch(value) is not None
        and _PLACE_COMMA.search(near) is not None
    )


#: What joins the parts of one code ("RN.204411", "H310-2291-0457", "KG/2026/118").
_CODE_JOINS = "-./"
#: Capitals of a code's part in any script ("ШК", "KÁR"): at most this many.
_CODE_CAPITALS = 8
#: Parts glued on at each side at most (a code has a few; a run of thousands is no one id, and
#: walking it for each of its spans would take quadratic time).
_CODE_PARTS = 4
#: A glued part's characters at most (with its joining character).
_PART_CHARS = 20


def _code_part(part: str) -> bool:
    """A part of a code: digits, or capitals and digits ("RN", "H652", "ШК"), not a word, or one
    or two letters of a script without case between digits ("<number>-보-<number>")."""
    if not part.isalnum():
        return False
    caseless = len(part) <= 2 and not part.isupper() and not part.islower()
    return part.isdigit() or caseless or (part.isupper() and len(part) <= _CODE_CAPITALS)


def whole_code(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen an id at ``text[start:end]`` over the parts glued to it by ``-``, ``.`` or ``/`` that
    are digits or capitals: the id's prefix, its type letters or its last groups, which a
    recognizer's pattern left out ("RN.<number>", "<licence>-2049-9022", "ШК-<number>")."""
    for _ in range(_CODE_PARTS):
        if not (end + 1 < len(text) and text[end] in _CODE_JOINS):
            break
        part_end = end + 1
        while part_end < len(text) and text[part_end].isalnum() and part_end - end <= _PART_CHARS:
            part_end += 1
        if part_end - end > _PART_CHARS or not _code_part(text[end + 1 : part_end]):
            break
        end = part_end
    for _ in range(_CODE_PARTS):
        if not (start >= 2 and text[start - 1] in _CODE_JOINS):
            break
        part_start = start - 1
        while (
            part_start > 0 and text[part_start - 1].isalnum() and start - part_start <= _PART_CHARS
        ):
            part_start -= 1
        if start - part_start > _PART_CHARS or not _code_part(text[part_start : start - 1]):
            break
        start = part_start
    return start, end


#: Types of dates, never widened over groups of digits ("3 05 1979" is one date already).
DATE_TYPES = frozenset({"DATE_OF_BIRTH", "DATE_TIME"})
#: A group of digits joined to an id by one space ("4417 <number> 38"): two to eight digits.
_DIGIT_GROUP = re.compile(r"\d{2,8}(?![^\W\d_])")
#: What may follow a last group: the end, a line's end, punctuation, a cell's separator, not a
#: word ("4471 12 items" is a count).
_GROUP_END = re.compile(r"$|[^\w ]| {2}| \d|\n", re.MULTILINE)
#: Capitals of a series' group ending a text, before the group being read ("UT " of "UT QK").
_SERIES_RUN = re.compile(r"(?:(?<=\s)[^\W\d_a-z]{2,4}[ ]?)+$")
#: A series' capitals before an id's number, in any script ("ЕКХ", "QD", "UT QK").
_SERIES = re.compile(r"[^\W\d_]{2,4}")


def spaced_groups(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen an id at ``text[start:end]`` over the groups of digits joined to it by one space (a
    card, an account or a national number printed in groups that a recognizer read in part:
    "4417 <number> 38") and over a series' capitals between its label and it ("ОСАГО ЕКХ
    <number>"), which are no label word ("SSN 512-44-7781" keeps its label in clear)."""
    for _ in range(_CODE_PARTS):
        m = _DIGIT_GROUP.match(text, end + 1) if text[end : end + 1] == " " else None
        if m is None or not text[end - 1 : end].isdigit() or not _GROUP_END.match(text, m.end()):
            break
        end = m.end()
    for _ in range(_CODE_PARTS):
        if start < 2 or text[start - 1] != " ":
            break
        before = start - 1
        while before > 0 and text[before - 1].isalnum() and start - before <= _PART_CHARS:
            before -= 1
        part = text[before : start - 1]
        if part.isdigit() and 2 <= len(part) <= 8 and text[start].isdigit():
            start = before
        elif (
            _series(part)
            and text[start].isalnum()
            and (_after_label(text, before) or _series_code(part, text, before))
        ):
            start = before
        else:
            break
    return start, end


#: A plate's letters after its digits ("B 4471 KZT", "AB 512 CD", "ВС 7734 ІМ"): one to three
#: capitals of any script.
_PLATE_TAIL = re.compile(r"[ ](?P<tail>[^\W\d_]{1,3})(?![\w-])")


def whole_id(text: str, start: int, end: int, entity: str) -> tuple[int, int]:
    """An id's whole extent: its glued parts (``whole_code``), then, unless it is a date, its
    groups and series (``spaced_groups``); a plate's letters after its digits, unless they are
    an id's label ("<plate> VIN <number>")."""
    start, end = whole_code(text, start, end)
    if entity in DATE_TYPES:
        return start, end
    start, end = spaced_groups(text, start, end)
    tail = _PLATE_TAIL.match(text, end) if entity == "VEHICLE_ID" else None
    if (
        tail
        and tail["tail"].isupper()
        and text[end - 1].isdigit()
        and tail["tail"].lower() not in label_words()
    ):
        end = tail.end()
    return start, end


def _after_label(text: str, at: int) -> bool:
    """An id's label ends right before ``at`` ("Полис ОСАГО <series>", "CDL <state>",
    ``"license": "<state>``): the capitals after it are the id's series, not a label."""
    before = text[max(0, at - 60) : at]
    for near in (before, _SERIES_RUN.sub("", before)):  # "UT QK <number>": both groups
        if ends_with_id_label(near.rstrip(" \t\"':=#.-").replace("_", " ")):
            return True
    return False


def _series_code(part: str, text: str, at: int) -> bool:
    """Capitals before an id that no label precedes, which are its series all the same: two
    capitals in a text not written in capitals ("<series> 492806" in a table's cell), or three
    or four after a word for "number" ("n° <series> 6610 352"); three or four capitals are an
    id's label of their own as often ("<acronym> 41807736215"), and stay."""
    if at > 0 and text[at - 1] not in " \t|:(/\n":
        return False
    near = text[max(0, at - 60) : at]
    if len(part) > 2:
        words = near.split()
        return bool(words) and words[-1].lower().rstrip(".:") in number_word_set()
    return sum(c.islower() for c in near) > sum(c.isupper() for c in near)


def _series(part: str) -> bool:
    """Capitals of an id's series: no label word ("SSN"), id word ("NR") or stop word."""
    low = part.lower()
    return (
        _SERIES.fullmatch(part) is not None
        and part.isupper()
        and low not in label_words()
        and low not in id_word_set()
        and low not in STOP_WORDS
    )
