"""Postal addresses masked whole: a street line joined with the unit, city, region, postcode
and country that belong to it, in prose, address blocks, ``label: value`` lines and CSV/TSV rows
(issue #21). The words and shapes are data (``addresses.yaml``): street-type and unit words,
region and country codes, city particles, the postcode shapes of the main countries, the keys
and column headers that name an address's parts.

* Prose and blocks (``join_addresses``): the street lines and postcodes are found by the street
  recognizers (``streets.py``, ``address_blocks.py``, ``patterns.STREET_RE``); after a street
  span the parts are read one by one (separated by commas, spaces or one line break): unit
  designators, city words (with their particles: "Villa de la Torre"), region codes, postcodes,
  a country. The span grows only up to a part that proves it is an address: a postcode, a
  region or country code after a city, a city closing the clause after a comma ("12 Oak Row,
  Springfield, filed ..."), a country after such a part. So "12 Oak Row, Springfield, IL
  62704, USA" and "Larch Row 14\\n80331 Oberwald" become one span each, while a street followed
  by a sentence keeps its street only, and a city named alone in prose stays in clear.
  ``City, ST 62704`` without a house number is joined around its postcode (with the street
  name before it when there is one: "Mill Street, Springfield, IL 62704").
* Backwards from the end (``_extend_before``, ``_tail_spans``): an address that ends in a
  postcode or region code grows left over the comma-separated parts before it, as libpostal
  reads an address's structure: units ("Flat 2", "3º B", "House No. 45"), street lines without
  a street-type word ("Olmo Viejo 45"), building, locality and district names, a block number
  ("B-12"); it reaches the leftmost part with a number, names alone before it stay. So Indian,
  Spanish or Belgian addresses whose street no pattern knows are found from their postcode.
* Any case (``_any_case_spans``): "88 harlow st, greenfield, ma 01301" counts only with its city
  and postcode after it.
* Structured text: a CSV/TSV table whose header names a street or postcode column and other
  address columns (``street, city, state, zip``) has each row's address cells masked, adjacent
  cells as one span; ``Street: …`` / ``City: …`` / ``Zip: …`` lines of one block likewise, and
  fields written inline (a printed dict, a call's keyword arguments, a logfmt line). The
  JSON walker asks ``address_part`` whether a key names an address part: a ``city`` next to a
  ``street`` or ``zip`` is part of a personal address, a ``city`` alone (a flight's origin, a
  store search) is not.

Why no library: ``pyap`` (US/CA/GB only, unmaintained since 2020) and ``usaddress`` (a US-only
CRF that labels a string already known to be an address, it does not find one in text) cover
neither the European formats nor addresses inside prose; ``postal`` (libpostal) needs a 2 GB
model downloaded at install time, which the offline machines cannot do.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib import resources

import yaml

from agentic_pipeline.masking.detectors.address_blocks import (
    looks_like_year,
    place_words,
    region_words,
)
from agentic_pipeline.masking.vocabulary import LW, UP, is_place, is_vocabulary

#: A detection: (start, end, entity type, score, detector), as ``engine.Span`` (not imported:
#: the JSON walker imports this module, and the engine imports the walker's users).
Span = tuple[int, int, str, float, str]

ADDRESS_TYPES = frozenset({"STREET_ADDRESS", "ZIP_CODE", "UK_POSTCODE"})
#: Type of a joined address (the street recognizers' type: one token type per address).
ADDRESS = "STREET_ADDRESS"
DETECTOR = "AddressJoiner"
#: Score of a street joined up to its postcode or region code: above a phone-shaped run of its
#: digits or a name-shaped word of its city, so that the address stays one span.
JOINED_SCORE = 0.86
#: Score of an address cell found by its column header or line label (as a key rule).
STRUCTURED_SCORE = 0.9


@lru_cache(maxsize=1)
def address_data() -> dict:
    """``addresses.yaml``."""
    text = resources.files(__package__).joinpath("addresses.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def street_types() -> list[str]:
    """Street-type words ("Street", "Lane", "Crescent"...)."""
    return list(address_data()["street_types"])


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_D = address_data()
REGION_CODES = frozenset(c for codes in _D["region_codes"].values() for c in codes)
COUNTRY_CODES = frozenset(_D["country_codes"])
_SEP = r"[ \t]*(?:[,|][ \t]*)?(?:\r?\n[ \t]*)?"
_UNIT = (
    rf"(?:(?:(?:{_alternation(_D['unit_words'])})\.?(?:[ \t]*No\.?)?|#)[ \t]*[A-Za-z]?\d[\w-]*"
    r"|\d{1,2}[ºª°](?:[ \t]*(?:\d{1,2}[ºª°]?|[A-Za-z]{1,4}\.?)(?!\w))?)"
)
_POSTCODE = "|".join(_D["postcodes"])
_WEAK_POSTCODE = "|".join(_D["weak_postcodes"])
#: A capitalised word (a city, region or country word), maybe hyphenated ("Port-Lorn").
_CAP_WORD = rf"(?:[{UP}][{LW}]{{0,2}}\.|[{UP}][{UP}{LW}'’]*(?:[-'’][{UP}{LW}]+)*)(?!\d)"
_PARTICLE = rf"(?:{_alternation(_D['city_particles'])})"
#: A city's name: capitalised words with particles between them, maybe a "(district)" after it.
_CITY = (
    rf"{_CAP_WORD}(?:(?:[ \t]+{_PARTICLE}){{0,2}}[ \t]+{_CAP_WORD}){{0,4}}"
    r"(?:[ \t]+\([^()\n]{1,30}\))?"
)
_PART = re.compile(
    rf"{_SEP}(?:(?P<unit>{_UNIT})(?![\w-])"
    rf"|(?P<postcode>{_POSTCODE})(?![\w-])|(?P<weak>{_WEAK_POSTCODE})(?![\w-])"
    rf"|(?P<code>[A-Z](?:\.?[A-Z]){{0,2}}\.?)(?![\w'’-])|(?P<words>{_CITY}))"
)
#: What may follow a city that closes an address: the end of a clause, line, field or text.
_CITY_END = re.compile(rf"[ \t]*(?:$|[.,;:!?)\]}}\"'’\r\n])|[ \t]+[{LW}]")
#: What may follow a weak (3-4 digit) postcode: the end of the address.
_WEAK_END = re.compile(r"[ \t]*(?:$|[.,;:!?)\]}\"'’\r\n])")
MAX_PARTS = 10


def _is_postcode_next(text: str, pos: int) -> bool:
    m = _PART.match(text, pos)
    return m is not None and bool(m.group("postcode") or m.group("weak"))


def _is_tail_next(text: str, pos: int) -> bool:
    """A postcode, or a region code and a postcode, comes next: what closes an address written
    without commas ("4120 Larch Ave Tarnby CA 95453")."""
    m = _PART.match(text, pos)
    if m is None or "\n" in text[pos : m.start(m.lastgroup)]:
        return False
    if m.group("postcode") or m.group("weak"):
        return True
    return bool(m.group("code")) and _is_postcode_next(text, m.end())


def _join_after(text: str, end: int) -> tuple[int, bool]:
    """The end of the address that starts with a street ending at ``end``, and whether a
    postcode or a region or country code closes it."""
    committed, pos = end, end
    city = postcode = strong = region = False
    for _ in range(MAX_PARTS):
        m = _PART.match(text, pos)
        if m is None or m.end() == pos:
            break
        kind = m.lastgroup
        sep = text[pos : m.start(kind)]
        if sep.count("\n") > 1:  # a blank line ends the block
            break
        value = m.group(kind)
        if kind == "unit":
            if committed == pos:  # "12 Oak Row, Apt 5"
                committed = m.end()
        elif kind == "postcode":
            committed, postcode = m.end(), True
            strong = True
        elif kind == "weak":
            # "Hafnarvegur 3, Vik, 570": after a city, at the address's end; "Tarnby VIC 3065":
            # after a region code (which the 3-4 digits follow on the same line)
            if not (region or (city and _WEAK_END.match(text, m.end()))):
                break
            committed, postcode = m.end(), True
            strong = True
        elif kind == "code":
            if _is_postcode_next(text, m.end()) and "\n" not in text[m.end() : m.end() + 3]:
                pass  # "Springfield, IL 62704": the postcode decides
            elif (city or postcode) and value in REGION_CODES | COUNTRY_CODES:
                committed, strong = m.end(), True  # "Millbrook, OR" / "Tarnby, U.S.A."
            elif (city or postcode) and value[:-1] in REGION_CODES | COUNTRY_CODES:
                committed, strong = m.end() - 1, True  # "Tarnby, USA." (a full stop after it)
            else:
                break
        else:  # words
            if is_place(value):  # a country
                if city or postcode:
                    committed = m.end()
                else:
                    break
            elif postcode and "\n" not in sep:  # "10115 Berlin"
                committed, city = m.end(), True
            elif city or postcode:
                if not _is_postcode_next(text, m.end()):
                    break  # a region name counts only before its postcode ("Texas 78701")
            elif ("," in sep or "\n" in sep or "|" in sep) and region_words(_city_part(value)):
                city = True
                end_ok = _CITY_END.match(text, m.end())
                if end_ok and ("\n" not in sep or _line_ends(text, m.end())):
                    committed = m.end()  # "12 Oak Row, Springfield." / ", Millbrook, filed"
            elif region_words(_city_part(value)) and _is_tail_next(text, m.end()):
                city = True  # "4120 Larch Ave Tarnby CA 95453": no comma, a postcode decides
            else:
                break
        # a region code right before a postcode: "Tarnby, OR 97001", "Tarnby QLD 4066"
        last = value.split()[-1] if kind == "words" else ""
        region = kind == "code" or (last in REGION_CODES and _is_postcode_next(text, m.end()))
        pos = m.end()
    return committed, strong


def _city_part(words: str) -> str:
    """A city's words without the region code written after them ("Tarnby CA": "CA" is a stop
    word of the vocabulary too)."""
    head, _, last = words.rpartition(" ")
    return head if head and last in REGION_CODES else words


def _line_ends(text: str, pos: int) -> bool:
    """Nothing but punctuation is left on the line after ``pos`` (a city line of a block)."""
    stop = text.find("\n", pos)
    return not text[pos : len(text) if stop < 0 else stop].strip(" \t,.;")


#: "City, ST 62704" (or "City ST 62704"), maybe with a street name without a house number before
#: it ("Mill Street, "), ending right before a postcode that has no street before it.
_CITY_BEFORE = re.compile(
    rf"(?:(?:{_CAP_WORD}[ \t]+){{1,3}}(?:{_alternation(street_types())})\.?,[ \t]*)?"
    rf"{_CITY},?[ \t]*(?:[A-Z]{{1,3}}[ \t]+)?$"
)


def join_addresses(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` with each street span widened to its whole address, ``City, ST 62704`` joined
    around its postcode, and the address cells of tables and labelled line blocks added (see
    module doc). The parts are read on the text with compatibility characters folded one for
    one (``_aligned_nfkc``), as the recognizers read it."""
    text = _aligned_nfkc(text)
    out: list[Span] = []
    for sp in spans:
        s, e, et, score, det = sp
        if et == "STREET_ADDRESS":
            new_end, strong = _join_after(text, e)
            if new_end > e:
                if strong:
                    s = _extend_before(
                        text, _unit_line_before(text, _particle_before(text, s)), True
                    )
                sp = (s, new_end, ADDRESS, max(score, JOINED_SCORE) if strong else score, det)
        elif et in ("ZIP_CODE", "UK_POSTCODE"):
            sp = _join_before(text, sp)
            if sp[2] == ADDRESS:
                sp = (_extend_before(text, sp[0]), *sp[1:])
            else:
                sp = _street_before_postcode(text, sp)
        out.append(sp)
    out += _bare_street_spans(text, out)
    out += _any_case_spans(text)
    out += _tail_spans(text, out)
    if "\n" in text:
        table = table_spans(text)
        if table:  # a table's cells decide: a prose join does not run on into its next column
            out = [sp for sp in out if sp[2] != ADDRESS or not _inside_rows(sp, table, text)]
        out += table + field_block_spans(text)
    if "{" in text or "=" in text or "|" in text or ";" in text:
        out += inline_object_spans(text)
    return _merge_overlapping(out)


def _aligned_nfkc(text: str) -> str:
    """``text`` with each character that NFKC folds into one other character folded (full-width
    digits, the ohm sign for omega, ligature-free letters), so offsets stay the same; the
    recognizers read such text through ``text_view``."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    out = []
    for c in text:
        n = unicodedata.normalize("NFKC", c) if ord(c) > 127 else c
        # the ordinal signs of "3º B" are letters of their own ("Lo"), not an "o"
        out.append(n if len(n) == 1 and unicodedata.category(c) != "Lo" else c)
    return "".join(out)


def _inside_rows(sp: Span, cells: list[Span], text: str) -> bool:
    """``sp`` overlaps a line that holds one of ``cells`` (a table row)."""
    for a, b, *_ in cells:
        row_start, row_end = text.rfind("\n", 0, a) + 1, text.find("\n", b)
        if sp[0] < (len(text) if row_end < 0 else row_end) and row_start < sp[1]:
            return True
    return False


#: A capitalised particle or saint's title that opens a street's name ("De Veurs Comberg 4",
#: "La Canada 7", "Sint Jansstraat 2"), left out by street patterns that start at a name word.
_OPENERS = [w.capitalize() for w in _D["city_particles"] if len(w) > 1] + _D["saints"]
_NAME_OPENER = re.compile(rf"(?<![\w'’-])(?:{_alternation(_OPENERS)})[ \t]+$")


def _particle_before(text: str, start: int) -> int:
    """``start`` moved left over a particle that opens the street's name."""
    m = _NAME_OPENER.search(text, max(0, start - 12), start)
    return m.start() if m and text[start : start + 1].isupper() else start


def _merge_overlapping(spans: list[Span]) -> list[Span]:
    """Address spans that overlap become one (the street found alone and the same street joined
    to its city from the postcode's side): one token per address."""
    addr = sorted(sp for sp in spans if sp[2] == ADDRESS)
    if len(addr) < 2:
        return spans
    merged: list[Span] = []
    for sp in addr:
        if merged and sp[0] < merged[-1][1]:
            last = merged[-1]
            best = last if last[3] >= sp[3] else sp
            merged[-1] = (last[0], max(last[1], sp[1]), ADDRESS, best[3], best[4])
        else:
            merged.append(sp)
    return [sp for sp in spans if sp[2] != ADDRESS] + merged


# ----------------------------------------------------------------- lower and upper case
#: A street line in any case ("88 harlow st", "88 HARLOW ST"), and what must follow it for it to
#: be an address: maybe a unit, a city, maybe a region code, and a postcode.
_ANY_CASE_STREET = re.compile(
    rf"(?i)(?<![\w.,/:-])\d{{1,5}}[a-z]?[ \t]+(?:[a-z][a-z'’-]*\.?[ \t]+){{1,3}}"
    rf"(?:{_alternation(_D['street_types'])})\.?(?!\w)"
)
_ANY_CASE_TAIL = re.compile(
    rf"(?i)(?:,?[ \t]+(?:{_UNIT}))?,?[ \t]+"
    rf"(?P<city>[a-z][a-z'’-]*(?:[ \t]+[a-z][a-z'’-]*){{0,2}}),?"
    rf"[ \t]+(?:(?P<region>[a-z]{{2,3}})\.?,?[ \t]+)?(?:{_POSTCODE})(?![\w-])"
)


def _any_case_spans(text: str) -> list[Span]:
    """Addresses written in lower case or capitals ("88 harlow st, greenfield, ma 01301"), which
    the street recognizers (capitalised names) miss: a street line, a city and a postcode (with a
    known region code when there is one); without the postcode, lower-case words are prose."""
    out: list[Span] = []
    for m in _ANY_CASE_STREET.finditer(text):
        tail = _ANY_CASE_TAIL.match(text, m.end())
        if tail is None or not region_words(tail.group("city").title()):
            continue
        region = tail.group("region")
        if region is not None and region.upper() not in REGION_CODES:
            continue
        words = m.group().split()[1:-1]
        if not place_words(" ".join(words).title(), False):
            continue
        out.append((m.start(), tail.end(), ADDRESS, JOINED_SCORE, DETECTOR))
    return out


# --------------------------------------------------------------- parts before an address
#: A house number: "12", "12a", "412-2", "12/3", an ordinal ("14th"), a block and number ("B-12").
_HOUSE_NO = (
    r"(?:\d{1,5}[A-Za-z]?(?:[/-]\d{1,4}[A-Za-z]?)?|\d{1,3}(?:st|nd|rd|th)"
    r"|[A-Z]{1,2}-\d{1,4}[A-Za-z]?)"
)
#: A word of a street's name: capitalised, or a lower-case word (checked by ``_numbered_ok``).
_NAME_WORD = rf"(?:{_CAP_WORD}|[{LW}][{LW}'’-]*\.?)"
_PO_BOX = rf"(?i:{_alternation(_D['po_box_words'])})\.?[ \t]*\d{{1,7}}"
#: A part of an address that holds a house or unit number: a unit ("Flat 302", "3º B"), a street
#: line with its number before or after the name ("14th Cross", "Calle Alta 70"), a PO box.
_NUMBERED = re.compile(
    rf"(?P<unit>{_UNIT}(?:[ \t]+{_UNIT})?)|(?P<box>{_PO_BOX})|(?P<house>{_HOUSE_NO})"
    rf"|{_HOUSE_NO}(?:,?[ \t]+{_NAME_WORD}){{1,5}}"
    rf"|{_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,4}},?[ \t]+{_HOUSE_NO}"
)
_LOWER_OK = frozenset(
    w.lower() for w in [*_D["city_particles"], *_D["street_types"], *_D["street_words_before"]]
)
_LETTERS = re.compile(rf"[{UP}{LW}]+")
#: A house number with its letters ("14th", "12a", "B-12"), left out of a name's words.
_NUMBER_TOKEN = re.compile(rf"(?<![{UP}{LW}])(?:[A-Z]{{1,2}}-)?\d+[{LW}]*")


def _numbered_ok(part: str, m: re.Match[str], whole: bool = True) -> bool:
    """A house number alone is a part when it is the whole part or has a block letter ("to
    B-12"); the words of a numbered part can be a street's: no label ("Order 12", "Gate 4"), month,
    weekday or country, no capitalised stop word ("At 5"); the first word of the name is
    capitalised or a street word ("rue"); at most two other lower-case words, none a common word
    unless a particle or street word ("Calle de la Iglesia 4", not "waited for 3 weeks")."""
    if m.group("unit") or m.group("box"):
        return True
    if m.group("house"):  # "B-12, Lajpat Road, ...", "12, rue ...": a part of its own
        return whole or not part.isdigit()
    words = _LETTERS.findall(_NUMBER_TOKEN.sub(" ", part))
    if not words or not region_words(part) or any(is_place(w) for w in words):
        return False
    first = words[0]
    if not (first[0].isupper() or first.lower() in _LOWER_OK):
        return False
    lower = [w for w in words[1:] if w[0].islower()]
    if len(lower) > 2:
        return False
    return all(w in _LOWER_OK or (len(w) > 2 and not is_vocabulary(w, 3.0)) for w in lower)


#: Where a part of an address begins: after a separator, a colon, a bracket or a quote.
_PART_START = re.compile(r"[,|;:()\[\]{}\"]")
_SEP_BEFORE = re.compile(r"[ \t]*[,|][ \t]*$")


def _numbered_tail(part: str, numbered: bool = False) -> int | None:
    """Offset in ``part`` where its numbered tail begins (the longest: "send it to Calle Alta
    70" -> "Calle Alta 70"), or ``None``."""
    for w in re.finditer(r"(?<![^\s])\S", part):
        m = _NUMBERED.fullmatch(part, w.start())
        if m is None or (numbered and m.group("house")):
            continue
        if _numbered_ok(part[w.start() :], m, whole=False):
            return w.start()
    return None


def _extend_before(text: str, start: int, numbered: bool = False) -> int:
    """``start`` of an address moved left over the parts written before it on its line and
    separated by commas: a unit ("Flat 2, 17 Rowan Road, ..."), a street line without a
    street-type word ("Calle Alta 70, Villamar, SA 37250"), and the building, locality or
    district names between them ("Flat 3, Birch Residency, 14th Cross, Indiranagar, ..."): the
    span reaches the leftmost numbered part, place names alone before it are left. A house
    number alone ("B-12, Lajpat Road, ...") counts only for an address without one yet
    (``numbered``): in "C-101, Ilse Brand, Larch Row 14, ..." it is a row's id."""
    committed = pos = start
    line_start = text.rfind("\n", 0, start) + 1
    for _ in range(MAX_PARTS):
        sep = _SEP_BEFORE.search(text, line_start, pos)
        if sep is None:
            break
        end = sep.start()
        cut = [m.end() for m in _PART_START.finditer(text, max(line_start, end - 80), end)]
        begin = cut[-1] if cut else max(line_start, end - 80)
        part = text[begin:end]
        lead = len(part) - len(part.lstrip())
        part, begin = part.strip(), begin + lead
        if not part:
            break
        m = _NUMBERED.fullmatch(part)
        if m is not None and _numbered_ok(part, m) and not (numbered and m.group("house")):
            committed = pos = begin
            numbered = numbered or not m.group("unit")
            continue
        if len(part.split()) <= 5 and re.fullmatch(_CITY, part) and region_words(part):
            if is_place(part):
                break  # a country is no part before a street
            pos = begin  # a building, locality or district: kept only with a number before it
            continue
        tail = _numbered_tail(part, numbered)
        if tail is not None:
            committed = begin + tail
        break
    return committed


#: A postcode that closes an address, right after a word: a postcode of a shape of its own, or
#: 3-4 digits after a region code ("VIC 3065"); the words before it are read by ``_tail_spans``.
_TAIL = re.compile(
    rf"(?<=[^\W\d_])(?:[ \t]+[,–-]?|[,–-])[ \t]*(?P<pc>(?:{_POSTCODE})"
    rf"|(?<=[A-Z][A-Z] )(?:{_WEAK_POSTCODE})|(?<=[A-Z][A-Z][A-Z] )(?:{_WEAK_POSTCODE}))(?![\w-])"
)
#: Where a ``_TAIL`` may begin: a separator before a digit or a capital and a digit.
_TAIL_CANDIDATE = re.compile(r"[ \t,–-](?=[A-Z]{0,2}\d)")
_TAIL_SEPARATORS = " \t,–-"
#: The city and region before a postcode: "Bengaluru, Karnataka 560038", "Tarnby, OR 97001",
#: "Nova Gorica - 110024".
_PLACE_BEFORE = re.compile(rf"(?<![\w-]){_CITY}(?:[ \t]*,[ \t]*(?:{_CITY}))?[ \t]*[,–-]?[ \t]*$")


def _tail_spans(text: str, spans: list[Span]) -> list[Span]:
    """Addresses found from their end: a city (and region) before a postcode, and before them,
    separated by commas, at least one numbered part (``_extend_before``): "Flat 3, Birch
    Residency, 14th Cross, Indiranagar, Bengaluru, Karnataka 560038"."""
    out: list[Span] = []
    last = -1
    for c in _TAIL_CANDIDATE.finditer(text):  # a cheap scan first: the tail's regex is slower
        p = c.start()
        while p > 0 and text[p - 1] in _TAIL_SEPARATORS:
            p -= 1
        m = _TAIL.match(text, p) if p > last else None
        if m is None:
            continue
        last = p
        a, b = m.span("pc")
        if any(s < b and a < e for s, e, et, *_ in spans if et == ADDRESS):
            continue
        line_start = text.rfind("\n", 0, a) + 1
        place = _PLACE_BEFORE.search(text, max(line_start, a - 80), a)
        if place is None or not region_words(place.group()) or is_place(place.group()):
            continue
        if looks_like_year(m.group("pc")):
            continue
        start = _extend_before(text, place.start())
        if start < place.start():
            out.append((start, b, ADDRESS, JOINED_SCORE, DETECTOR))
    return out


#: A house number and one to three capitalised words before a comma: a street line without a
#: street-type word ("555 Larkfield, ..."), an address only when a city and a postcode or a
#: region or country code follow it, or a city after an address cue ("lives at 12 Larkfield,
#: Tarnby.").
_BARE_STREET = re.compile(
    rf"(?<![\w.,/:-])\d{{1,5}}[A-Za-z]?[ \t]+{_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,2}}(?=,)"
)


def _bare_street_spans(text: str, spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for m in _BARE_STREET.finditer(text):
        if any(a < m.end() and m.start() < b for a, b, *_ in spans):
            continue
        end, strong = _join_after(text, m.end())
        words = m.group().split(None, 1)[1]
        if end == m.end() or words.isupper() or not region_words(words):
            continue  # "at 5 PM, Tarnby": a time
        if strong or _ADDRESS_CUE.search(text, max(0, m.start() - 40), m.start()):
            out.append((m.start(), end, ADDRESS, 0.7, DETECTOR))
    return out


#: Words right before an address in prose ("it's at", "my address is", "lives at", "ship to").
_ADDRESS_CUE = re.compile(
    r"(?i)(?:\b(?:address(?:\s+is)?|live[sd]?\s+(?:at|on)|living\s+at|resid(?:es|ing)\s+at|"
    r"located\s+at|moved\s+to|ship(?:ped)?\s+(?:it\s+)?to|send\s+it\s+to|deliver(?:ed)?\s+to|"
    r"(?:it'?s|it\s+is|we'?re|i'?m)\s+at)|\bat)\s*:?\s*$"
)


#: A unit line over the street line of a block ("Flat 3, Rowan House", "Suite 200").
_UNIT_LINE = re.compile(rf"[ \t]*{_UNIT}(?:,?[ \t]+{_CAP_WORD}){{0,4}}[ \t]*,?[ \t]*\r?\n[ \t]*$")


def _unit_line_before(text: str, start: int) -> int:
    """``start`` moved to the unit line right above a block's street line, if there is one."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return start
    prev = text.rfind("\n", 0, max(0, line_start - 1)) + 1
    m = _UNIT_LINE.fullmatch(text, prev, start)
    return prev + len(m.group()) - len(m.group().lstrip()) if m else start


_CITY_AFTER = re.compile(rf"[ \t]+{_CITY}")


def _street_before_postcode(text: str, sp: Span) -> Span:
    """ "Kromme Hoeve 12, 9000 Oostvelde": a postcode written before its city, with a numbered
    part (a street line, a unit) before it, is joined to both."""
    s, e, _, score, det = sp
    city = _CITY_AFTER.match(text, e)
    if city is None or not region_words(city.group()) or is_place(city.group()):
        return sp
    start = _extend_before(text, s)
    if start == s:
        return sp
    return (start, city.end(), ADDRESS, max(score, JOINED_SCORE), DETECTOR)


def _join_before(text: str, sp: Span) -> Span:
    s, e, _, score, det = sp
    line_start = text.rfind("\n", 0, s) + 1
    before = _CITY_BEFORE.search(text, max(line_start, s - 80), s)
    if before is None or before.start() == s:
        return sp
    city = before.group().strip(" \t,")
    code = re.search(r"(?<![\w-])[A-Z]{1,3}$", city) is not None
    if not region_words(city) or not (code or ("," in before.group() and _strong(text[s:e]))):
        return sp  # "in Chicago 2500", "University of Lorn, 2019": no "City, ST 62704"
    return (before.start(), e, ADDRESS, score, det)


_STRONG_POSTCODE = re.compile(rf"(?:{_POSTCODE})")


def _strong(code: str) -> bool:
    """A postcode of a shape of its own (not bare 3 or 4 digits, which are years and counts)."""
    return _STRONG_POSTCODE.fullmatch(code) is not None


# ------------------------------------------------------------------------- structured text
#: The parts of an address object, table row or label block that are masked (a country alone
#: identifies nobody and stays, as in the JSON walker).
_MASKED_PARTS = frozenset({"street", "unit", "city", "region", "postcode"})


@lru_cache(maxsize=4096)
def address_part(key: str) -> str | None:
    """The address part a key or column header names (``street``, ``unit``, ``city``,
    ``region``, ``postcode``, ``country``), else ``None``: ``billingCity`` -> ``city``."""
    k = re.sub(r"[\W_]+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(key)).lower())
    k = k.strip("_")
    keys = _D["address_keys"]
    for _ in range(2):
        for part, names in keys.items():
            if k in names:
                return part
        head, _, rest = k.partition("_")
        if head not in _D["key_prefixes"] or not rest:
            return None
        k = rest
    return None


def is_address_object(keys: object) -> bool:
    """Keys of one object (or one header) that hold a postal address: a street or postcode key
    and at least one other address part."""
    parts = [address_part(str(k)) for k in keys]  # type: ignore[union-attr]
    named = [p for p in parts if p]
    return len(named) >= 2 and ("street" in named or "postcode" in named)


_DELIMS = (",", "\t", ";", "|")


def _cells(line: str, delim: str) -> list[tuple[int, int]]:
    """(start, end) of each cell of one delimited line, quotes and spaces trimmed."""
    d = re.escape(delim)
    cell = re.compile(rf'[ \t]*(?:"(?P<q>(?:[^"]|"")*)"[ \t]*|(?P<u>[^{d}"\n]*))(?P<d>{d}|$)')
    out, pos = [], 0
    while True:
        m = cell.match(line, pos)
        if m is None:
            raise ValueError("not a delimited line")
        g = "q" if m.group("q") is not None else "u"
        a, b = m.start(g), m.end(g)
        value = line[a:b]
        out.append((a + len(value) - len(value.lstrip()), b - len(value) + len(value.rstrip())))
        if not m.group("d"):
            return out
        pos = m.end()


def table_spans(text: str) -> list[Span]:
    """The address cells of each row of a CSV/TSV table whose header names address parts
    (``is_address_object``); cells of adjacent address columns make one span."""
    lines, pos = [], 0
    for ln in text.splitlines(keepends=True):
        lines.append((pos, ln.rstrip("\r\n")))
        pos += len(ln)
    body = [(p, ln) for p, ln in lines if ln.strip()]
    if len(body) < 2:
        return []
    head_pos, header = body[0]
    for delim in _DELIMS:
        n = header.count(delim)
        if n < 1:
            continue
        try:
            names = [header[a:b] for a, b in _cells(header, delim)]
        except ValueError:
            continue
        if not is_address_object(names):
            continue
        parts = [address_part(h) for h in names]
        out: list[Span] = []
        for p, ln in body[1:]:
            try:
                cells = _cells(ln, delim)
            except ValueError:
                continue
            if len(cells) != len(parts):
                continue
            run: list[tuple[int, int]] = []
            for part, (a, b) in [*zip(parts, cells, strict=True), (None, (0, 0))]:
                if part in _MASKED_PARTS and b > a:
                    run.append((a, b))
                    continue
                if run:
                    out.append((p + run[0][0], p + run[-1][1], ADDRESS, STRUCTURED_SCORE, DETECTOR))
                run = []
        return out
    return []


#: A ``label: value`` line (a label of one to four words, then ``:`` or ``=``).
_FIELD = re.compile(r"(?m)^[ \t>*\-•]*(?P<label>[A-Za-z][\w .-]{0,30}?)[ \t]*[:=][ \t]*(?P<v>.*)$")


def field_block_spans(text: str) -> list[Span]:
    """The values of ``Street: …`` / ``City: …`` / ``State: …`` / ``Zip: …`` lines that stand
    together (consecutive lines) and hold a postal address (``is_address_object``)."""
    out: list[Span] = []
    block: list[tuple[str, int, int]] = []
    last_line = -2
    lines, line_no, seen = [], 0, 0
    for m in _FIELD.finditer(text):
        line_no += text.count("\n", seen, m.start())
        seen = m.start()
        lines.append((m, line_no))
    for m, line_no in [*lines, (None, -10)]:
        part = address_part(m.group("label").strip()) if m is not None else None
        if part is None or line_no != last_line + 1:
            if is_address_object([b[0] for b in block]):
                out += [
                    (a, b, ADDRESS, STRUCTURED_SCORE, DETECTOR)
                    for label, a, b in block
                    if address_part(label.strip()) in _MASKED_PARTS
                ]
            block = []
        if m is not None and part is not None:
            v = m.group("v").rstrip()
            if v:
                block.append((m.group("label"), m.start("v"), m.start("v") + len(v)))
            last_line = line_no
    return out


#: A key and its value written inline: ``'city': 'Tarnby'``, ``"zip": "97001"`` (a dict or JSON
#: object printed in text), ``city='Tarnby'`` (a call's keyword arguments), ``zip=97001`` (a
#: logfmt line), ``City: Tarnby |`` (labelled fields on one line between bars or semicolons).
_PAIRS: tuple[tuple[re.Pattern[str], str], ...] = (  # each with a character it needs
    (
        re.compile(
            r"""(['"])(?P<k>[\w -]{1,40})\1[ \t]*:[ \t]*(['"])(?P<v>(?:(?!\3)[^\n]){1,160})\3"""
        ),
        ":",
    ),
    (
        re.compile(
            r"""(?<![\w.])(?P<k>[A-Za-z_]\w{0,39})[ \t]*=[ \t]*(['"])"""
            r"""(?P<v>(?:(?!\2)[^\n]){1,160})\2"""
        ),
        "=",
    ),
    (
        re.compile(
            r"""(?<![\w.])(?P<k>[A-Za-z_]\w{0,39})=(?P<v>[^\s'"=,;|(){}\[\]]{1,80})"""
            r"""(?=[\s,;|)}\]]|$)"""
        ),
        "=",
    ),
    (
        re.compile(
            r"(?:^|(?<=[|;]))[ \t]*(?P<k>[A-Za-z][\w .-]{0,30}?)[ \t]*:[ \t]*"
            r"(?P<v>[^|;\n]{1,160}?)[ \t]*(?=[|;]|$)",
            re.M,
        ),
        ":",
    ),
)
#: The first word of a key that can name a street or a postcode ("street", "address", "zip",
#: "plz"): a text without one holds no address object (the search is skipped).
_STREET_OR_POSTCODE_STEMS = tuple(
    sorted({k.split("_")[0] for p in ("street", "postcode") for k in _D["address_keys"][p]})
)
#: What may stand between two pairs of one object, call or line.
_PAIR_GAP = re.compile(r"[\s,;|(){}\[\]]*")


def inline_object_spans(text: str) -> list[Span]:
    """The address values of an object, a call's arguments or a log line's fields written inline
    (``_PAIRS``: ``{'street': …, 'city': …}``, ``update(street='…', zip='…')``, ``street="…"
    city=… zip=…``) that hold a street or postcode (``is_address_object``); whole JSON or dict
    cells are walked by the JSON walker instead."""
    low = text.lower()
    if not any(stem in low for stem in _STREET_OR_POSTCODE_STEMS):
        return []  # no key that can name a street or a postcode: no address object
    found = sorted(
        {
            (m.start(), m.end(), m.group("k"), m.start("v"), m.end("v"))
            for rx, sign in _PAIRS
            if sign in text
            for m in rx.finditer(text)
        }
    )
    groups: list[list[tuple[int, int, str, int, int]]] = []
    for pair in found:
        if (
            groups
            and groups[-1][-1][1] <= pair[0]
            and _PAIR_GAP.fullmatch(text, groups[-1][-1][1], pair[0])
        ):
            groups[-1].append(pair)
        elif not groups or groups[-1][-1][1] <= pair[0]:
            groups.append([pair])
    out: list[Span] = []
    for pairs in groups:
        if not is_address_object([k for _, _, k, _, _ in pairs]):
            continue
        for _, _, k, a, b in pairs:
            if address_part(k) in _MASKED_PARTS and text[a:b].strip():
                out.append((a, b, ADDRESS, STRUCTURED_SCORE, DETECTOR))
    return out
