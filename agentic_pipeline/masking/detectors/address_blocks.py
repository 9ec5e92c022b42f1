"""Street lines and postcodes found from the shape of an address, not from one line alone.

Postcodes are bare numbers ("3552", "440 01", "61-478") that are only postcodes next to other
parts of an address; street lines of many countries ("Hvammsgerði 6", "R Tomé Varela 9") are only
"words + number". Three kinds of address evidence make them one:

* an address block: short lines under each other (a letter head, a billing address) where a
  "words + number" line is followed within a few lines by a postcode, and a line that is only a
  postcode comes under a city line (maybe with a region line between) below a street line;
* an address line: after a street line, ", City[ 2], <postcode>" on the same line;
* prose: "in <City> <postcode>" with a postcode shape that is no year ("in Bärau 3552 in its").
"""

from __future__ import annotations

import re

from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import LW as _LW
from agentic_pipeline.masking.vocabulary import (
    MONTHS,
    WEEKDAYS,
    is_place_or_calendar,
    is_vocabulary,
)
from agentic_pipeline.masking.vocabulary import STOP_WORDS as _STOP
from agentic_pipeline.masking.vocabulary import UP as _UP

Span = tuple[int, int, str]

#: Postcode shapes of the main countries: 4 or 5 digits (US ZIP+4), "NNN NN" (SE/CZ/SK/GR),
#: "NN-NNN" (PL), "NNNN-NNN" (PT), "NNNN AB" (NL), UK and Canadian forms.
#: An Irish Eircode ("A65 F4E2", "D6W 1K34"): a routing key and a unique identifier (the letters
#: of the Eircode alphabet only), at least one letter in the identifier.
EIRCODE = r"[AC-FHKNPRTV-Y]\d[\dW] ?(?=[\dAC-FHKNPRTV-Y]{0,3}[AC-FHKNPRTV-Y])[\dAC-FHKNPRTV-Y]{4}"
POSTCODE_SHAPE = (
    r"(?:\d{5}(?:-\d{4})?|\d{4}(?:-\d{3})?|\d{3} \d{2}|\d{2}-\d{3}|[1-9]\d{3} ?[A-Z]{2}|"
    rf"[A-Z]{{1,2}}\d[A-Z\d]? ?\d[A-Z]{{2}}|[A-Z]\d[A-Z] ?\d[A-Z]\d|{EIRCODE})"
)
_POSTCODE_LINE = re.compile(POSTCODE_SHAPE)
#: A line's content after its quoting or bullet prefix ("> ", "??? ", indentation).
_LINE = re.compile(r"(?m)^[^\w\n(]*(.*?)[ \t]*$")
#: A region line of a block: a state or province code ("NY", "VLI") or a region number ("32").
_REGION_LINE = re.compile(r"[A-Z]{1,3}|\d{1,2}")
_CITY_WORD = rf"(?:[{_UP}][{_UP}{_LW}'’.-]*|\([^()\n]{{1,30}}\)|d[aeiou]s?|la|le|del|nad|pod|am)"
#: A city line: capitalised words, maybe a district letter or number ("Vejlby V", "Kladno 1").
_CITY_LINE = re.compile(rf"{_CITY_WORD}(?:[ \t]+{_CITY_WORD}){{0,4}}(?:[ \t]+\d{{1,2}})?")
#: A street line of a block: words and a house number, or a house number and words, maybe with a
#: unit after it ("Egebakken 35 Apt. 123").
_WORDS = rf"[{_UP}{_LW}][{_UP}{_LW}'’.-]*(?:[ \t]+[{_UP}{_LW}][{_UP}{_LW}'’.-]*){{0,4}}"
_HOUSE = r"\d{1,5}[a-zA-Z]?\.?(?:[/-]\d{1,4}[a-zA-Z]?)?"
_UNIT = r"(?:,?[ \t]+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat|#)[ \t]*[A-Za-z-]*\d[\w-]*)?"
_STREET_LINE = re.compile(
    rf"(?P<s>{_WORDS}[ \t]+{_HOUSE}|\d{{1,5}}[a-zA-Z]?,?[ \t]+{_WORDS}){_UNIT}(?P<rest>.*)"
)
#: Labels of a phone number or e-mail address written after an address ("…, Tel. …").
CONTACT_LABELS = frozenset(
    "tel tél phone telephone téléphone telefon telefono teléfono telefoon fax mobile mobil handy "
    "cell email e-mail mail".split()
)
#: First words of a "Word 12" line that is no street line.
NOT_STREET = CONTACT_LABELS | frozenset(
    "flight seat gate room order item total step page chapter table figure version terminal "
    "platform level floor row section day week year option question line part phase round trial "
    "task episode batch number case price amount quantity score rating bags passengers adults "
    "children nights hours minutes reservation ticket train bus bay stage grade size model "
    "invoice account ref no qty sku id euro euros dollar dollars pounds "
    "yen francs kronor points miles pin code otp cvv cvc".split()
)
_LETTERS = re.compile(rf"[{_UP}{_LW}]+")
_UNIT_WORDS = frozenset("apt apartment suite ste unit flat studio room floor building bldg".split())
#: A line with a house number beside a word (a street line, maybe with a unit after it).
_ADDRESS_LIKE = re.compile(
    rf"(?<![\w.,:])\d{{1,5}}[a-zA-Z]?[ \t]+[{_UP}]|[{_UP}{_LW}]{{2,}}\.?[ \t]+\d{{1,5}}(?![\d.,:])"
)


def place_words(words: str, vocabulary: bool = True) -> bool:
    """``words`` can name a street or a city: none is a month, weekday, country, a non-street
    label ("Gate", "Total") or a capitalised stop word; with ``vocabulary``, not all of them are
    common words ("Total Amount")."""
    found = _LETTERS.findall(words)
    if not found:
        return False
    for w in found:
        f = fold(w)
        if f in NOT_STREET or is_place_or_calendar(w):
            return False
        if len(w) > 1 and w[0].isupper() and f in _STOP:
            return False
    return not vocabulary or not all(is_vocabulary(w) for w in found)


#: Words of ``NOT_STREET`` that also end a place's name ("Cedar Bay", "Thunder Bay"): a label
#: only as the first word ("Bay 4").
_PLACE_ENDS = frozenset({"bay"})


def region_words(words: str) -> bool:
    """The words before a postcode can be a city or a country: no label ("Flight AA 1234"),
    no month or weekday, no capitalised stop word."""
    for i, w in enumerate(_LETTERS.findall(words)):
        f = fold(w)
        if (f in NOT_STREET and not (i and f in _PLACE_ENDS)) or f in MONTHS or f in WEEKDAYS:
            return False
        if len(w) > 1 and w[0].isupper() and f in _STOP:
            return False
    return True


def _lines(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of each line's content after its prefix (empty lines included)."""
    return [(m.start(1), m.end(1), m.group(1)) for m in _LINE.finditer(text)]


def _overlaps(s: int, e: int, spans: list[Span], entity: str | None = None) -> bool:
    return any(a < e and s < b and (entity is None or t == entity) for a, b, t in spans)


def looks_like_year(value: str) -> bool:
    """``value`` is four digits from 1900 to 2099: more likely a year than a postcode."""
    return len(value) == 4 and value.isdigit() and 1900 <= int(value) <= 2099


def block_spans(text: str, found: list[Span]) -> list[Span]:
    """Postcode lines and street lines of address blocks in ``text`` (see module doc); ``found``
    are the street and postcode spans the line patterns found."""
    if "\n" not in text:
        return []
    lines = [ln for ln in _lines(text) if ln[2]]
    out: list[Span] = []
    streets = [sp for sp in found if sp[2] == "STREET_ADDRESS"]
    # postcode lines: under a city line (maybe a region line between), a street line above
    for i, (s, e, line) in enumerate(lines):
        if not _POSTCODE_LINE.fullmatch(line) or _overlaps(s, e, found):
            continue
        j = i - 1
        if j >= 0 and _REGION_LINE.fullmatch(lines[j][2]):
            j -= 1
        if j < 1 or not _CITY_LINE.fullmatch(lines[j][2]) or not place_words(lines[j][2], False):
            continue
        above = lines[max(0, j - 3) : j]
        if any(_overlaps(a, b, streets) or _ADDRESS_LIKE.search(ln) for a, b, ln in above):
            out.append((s, e, "ZIP_CODE"))
    zips = [sp for sp in found + out if sp[2] == "ZIP_CODE"]
    # street lines: a postcode within the next four lines
    for i, (s, e, line) in enumerate(lines):
        m = _street_line(line)
        if m is None or _overlaps(s, e, found):
            continue
        below = lines[i + 1 : i + 5]
        if below and any(_overlaps(a, b, zips) for a, b, _ in below):
            out.append((s, s + m.end("s"), "STREET_ADDRESS"))
    return out


def _street_line(line: str) -> re.Match[str] | None:
    """``line`` is a street line: words and a house number (and maybe a unit), nothing more."""
    m = _STREET_LINE.fullmatch(line)
    if m is None or m.group("rest") or len(line) > 60:
        return None
    if fold(_LETTERS.findall(line)[0]) in _UNIT_WORDS:
        return None  # a unit line ("Suite 70B") is the unit recognizer's
    return m if place_words(m.group("s"), False) else None


#: ", City[ 2], <postcode>" right after a street line.
_AFTER_STREET = re.compile(
    rf"[ \t]*,[ \t]+(?:{_CITY_WORD}[ \t]+){{0,3}}{_CITY_WORD}(?:[ \t]+\d{{1,3}})?,?[ \t]+"
    rf"({POSTCODE_SHAPE})(?![\w-]|[.,]\d)"
)


def after_street_spans(text: str, found: list[Span]) -> list[Span]:
    """The postcode of ", City[ 2], <postcode>" after each street line of ``found``."""
    out: list[Span] = []
    for _, e, t in found:
        if t != "STREET_ADDRESS":
            continue
        m = _AFTER_STREET.match(text, e)
        if m and not _overlaps(m.start(1), m.end(1), found):
            out.append((m.start(1), m.end(1), "ZIP_CODE"))
    return out


#: "in <City> <postcode>" in prose: the preposition, the city's words, the postcode and the
#: word after it.
_IN_CITY = re.compile(
    rf"(?<!\w)(in|at|near|from|to)[ \t]+((?:{_CITY_WORD}[ \t]+){{0,2}}[{_UP}][{_UP}{_LW}'’-]+)"
    rf"[ \t]+({POSTCODE_SHAPE})(?![\w-]|[.,]\d)(?:[ \t]+([{_LW}]+))?"
)


def prose_postcode_spans(text: str) -> list[Span]:
    """The postcode of "in <City> <postcode>" (see ``_prose_postcode``)."""
    out: list[Span] = []
    for m in _IN_CITY.finditer(text):
        if _prose_postcode(*m.groups()):
            out.append((m.start(3), m.end(3), "ZIP_CODE"))
    return out


def _prose_postcode(prep: str, city: str, code: str, after: str | None) -> bool:
    """The city's words are no label or calendar word and an all-capitals word has 4+ letters;
    no noun follows the number ("in Chicago 2500 people"); a 4-digit postcode comes after "in" or
    "near" (not "at Heathrow 1430", a time), is no year and does not start with 0, and its
    city's words are not all common vocabulary ("in Pine Park 15103", not "in Spring 2345")."""
    if not region_words(city) or any(w.isupper() and len(w) < 4 for w in city.split()):
        return False
    if after is not None and fold(after) not in _STOP:
        return False
    if len(code) == 4 and code.isdigit():
        return (
            prep in ("in", "near")
            and code[0] != "0"
            and not looks_like_year(code)
            and place_words(city)
        )
    return True
