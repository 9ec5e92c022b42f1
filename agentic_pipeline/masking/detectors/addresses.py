"""Postal addresses masked whole: a street line joined with the unit, city, region, postcode
and country that belong to it, in prose, address blocks, ``label: value`` lines and CSV/TSV rows
(issue #21). The words and shapes are data (``addresses.yaml``): street-type and unit words,
region and country codes, city particles, the postcode shapes of the main countries, the keys
and column headers that name an address's parts.

* Prose and blocks (``join_addresses``): after a street span found by the street recognizers
  (``streets.py``, ``address_blocks.py``, ``patterns.STREET_RE``) the parts are read one by one
  (separated by commas, spaces or one line break): units, city words with their particles
  ("Villa de la Torre"), region codes, postcodes, a country. The span grows only up to a part
  that proves an address: a postcode, a region or country code after a city, a city closing the
  clause after a comma ("12 Oak Row, Springfield, filed ..."), a country after such a part. So
  "12 Oak Row, Springfield, IL 62704, USA" and "Larch Row 14\n80331 Oberwald" are one span each;
  a street followed by a sentence keeps its street only; a city named alone stays in clear.
  ``City, ST 62704`` without a house number is joined around its postcode (with the street name
  before it when there is one: "Mill Street, Springfield, IL 62704").
* Backwards from the end (``_extend_before``, ``_tail_spans``): an address ending in a postcode
  or region code grows left over the comma-separated parts before it, as libpostal reads an
  address: units ("Flat 2", "3º B"), street lines without a street-type word ("Olmo Viejo 45"),
  building, locality and district names, a block number ("B-12"), up to the leftmost part with
  a number. So Indian, Spanish or Belgian addresses are found from their postcode.
* Other scripts (``script_addresses.py``): Persian, Arabic, Hindi, Chinese … by address words.
* Any case (``_any_case_spans``): "88 harlow st, greenfield, ma 01301", with its city and postcode.
* Structured text: CSV/TSV rows under a header naming address columns (``street, city, zip``),
  adjacent cells as one span; ``Street: …`` / ``City: …`` lines of one block, and inline fields
  (a printed dict, keyword arguments, logfmt). The JSON walker asks ``address_part`` whether a
  key names an address part: a ``city`` beside a ``street`` or ``zip`` is personal, a ``city``
  alone (a flight's origin) is not.

Why no library: ``pyap`` (US/CA/GB only, unmaintained since 2020) and ``usaddress`` (a US-only
CRF labelling a string known to be an address) find neither European formats nor addresses in
prose; ``postal`` (libpostal) needs a 2 GB model downloaded at install time (offline here).
"""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.address_blocks import region_words
from agentic_pipeline.masking.detectors.address_fields import (
    ADDRESS,
    ADDRESS_TYPES,
    COUNTRY_CODES,
    DETECTOR,
    JOINED_SCORE,
    MAX_PARTS,
    PREFIXED_TOWN,
    REGION_CODES,
    STRUCTURED_SCORE,
    Span,
    address_data,
    address_part,
    field_block_spans,
    inline_object_spans,
    is_address_object,
    is_region_name,
    street_types,
    table_spans,
)
from agentic_pipeline.masking.detectors.address_fields import CAP_WORD as _CAP_WORD
from agentic_pipeline.masking.detectors.address_fields import CITY as _CITY
from agentic_pipeline.masking.detectors.address_fields import POSTCODE as _POSTCODE
from agentic_pipeline.masking.detectors.address_fields import UNIT as _UNIT
from agentic_pipeline.masking.detectors.address_fields import WEAK_POSTCODE as _WEAK_POSTCODE
from agentic_pipeline.masking.detectors.address_parts import (
    ORDINAL_FIRST,
    any_case_spans,
    extend_before,
    fine_postcode,
    fine_postcode_in,
    inside_rows,
    tail_spans,
    unit_first_spans,
    without_names_inside,
)
from agentic_pipeline.masking.detectors.data_files import alternation as _alternation
from agentic_pipeline.masking.detectors.script_addresses import script_address_spans
from agentic_pipeline.masking.text_view import aligned_nfkc
from agentic_pipeline.masking.vocabulary import LW, STOP_WORDS, is_place

__all__ = [
    "ADDRESS",
    "ADDRESS_TYPES",
    "COUNTRY_CODES",
    "DETECTOR",
    "JOINED_SCORE",
    "REGION_CODES",
    "STRUCTURED_SCORE",
    "Span",
    "address_data",
    "address_part",
    "field_block_spans",
    "inline_object_spans",
    "is_address_object",
    "join_addresses",
    "street_types",
    "table_spans",
]

_D = address_data()

#: Between two parts: a comma, bar or middle dot, a line break, maybe after the full stop of an
#: abbreviation or a house number ("2. th.\n7100 <Town>", "utca 5. II/3., <postcode> <Town>").
_SEP = r"(?:(?<=\w)\.(?=[ \t]*(?:\r?\n|,)))?[ \t]*(?:[,|·][ \t]*)?(?:\r?\n[ \t]*)?"
_PART = re.compile(
    rf"{_SEP}(?:(?P<unit>{_UNIT})(?![\w-])"
    rf"|(?P<postcode>{_POSTCODE})(?![\w-])|(?P<weak>{_WEAK_POSTCODE})(?![\w-])"
    rf"|(?P<pcity>{'|'.join(_D['postcodes_before_city'])})(?=[ \t]+{_CAP_WORD})"
    # a code, but the first word of a city in capitals ("LOS ANGELES CA 90017")
    rf"|(?P<code>[A-Z](?:\.?[A-Z]){{0,2}}\.?)(?![\w'’-])(?![ \t]+[A-Z]{{4,}}(?![\w'’-]))"
    rf"|(?P<town>{PREFIXED_TOWN})"
    rf"|(?P<words>{_CITY}))"
)
#: What may follow a city that closes an address: the end of a clause, line, field or text (a
#: word before a colon is the next field's label: "41 Oak Row | Plan: gold"), or a dash that
#: opens the next clause ("…, <City> — I'll be there").
_CITY_END = re.compile(rf"[ \t]*(?:$|[.,;!?)\]}}\"'’\r\n])|[ \t]+(?:[{LW}]|[—–][ \t])")
#: A region's abbreviation after a city and postcode ("Yuc.", "Jal."): a capital, two or three
#: lower-case letters and a full stop.
_REGION_ABBREVIATION = re.compile(r"[A-Z][a-z]{1,3}\.")
#: A city's postal district number at the end of an address ("Dublin 24", "Dublin 6W"),
#: followed by the end of a clause or a stop word ("Dublin 24 by Friday", not "… 3 bedrooms").
_DISTRICT = re.compile(
    rf"[ \t]+\d{{1,2}}[A-Z]?(?=[ \t]*(?:$|[.,;)\r\n])|[ \t]+(?P<next>[{LW}]+)(?![\w-]))"
)
#: What may follow a weak (3-4 digit) postcode: the end of the address, or a lower-case stop word
#: that opens the rest of the sentence ("…, Tarnby 6011 by Friday", not "… 6011 residents").
_WEAK_END = re.compile(rf"[ \t]*(?:$|[.,;:!?)\]}}\"'’\r\n])|[ \t]+(?P<next>[{LW}]+)(?![\w-])")


def _weak_end(text: str, pos: int) -> bool:
    m = _WEAK_END.match(text, pos)
    return m is not None and (not m.group("next") or m.group("next") in STOP_WORDS)


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


def _join_after(text: str, end: int, city: bool = False, country: bool = True) -> tuple[int, bool]:
    """The end of the address that starts with a street ending at ``end`` (or with a city, when
    ``city``), and whether a postcode, a region or country code or (with ``country``) a country
    closes it."""
    committed, pos = end, end
    postcode = strong = region = after_district = False
    places = 0  # places after the city, waiting for a country or code to close them
    for _ in range(MAX_PARTS):
        m = _PART.match(text, pos)
        if m is None or m.end() == pos:
            break
        kind = m.lastgroup
        sep = text[pos : m.start(kind)]
        if sep.count("\n") > 1:  # a blank line ends the block
            break
        value = m.group(kind)
        district = _DISTRICT.match(text, m.end()) if kind == "words" else None
        if district and district.group("next") and district.group("next") not in STOP_WORDS:
            district = None
        if district and (city or postcode or "," in sep) and "\n" not in sep:
            if region_words(value) and not is_place(value):  # "…, Tallaght, Dublin 24"
                committed = pos = district.end()
                strong = city = after_district = True
                continue
        if (
            kind == "words"
            and after_district
            and "," in sep
            and region_words(value)
            and _CITY_END.match(text, m.end())
        ):
            committed = pos = m.end()  # "…, Sector 2, <City>": the city after its district
            after_district = False
            continue
        if kind == "unit":
            if committed == pos:  # "12 Oak Row, Apt 5"
                committed = m.end()
        elif kind in ("postcode", "pcity"):
            committed, postcode = m.end(), True
            strong = True
        elif kind == "weak":
            # "Hafnarvegur 3, Vik, 570": after a city, at the address's end; "Tarnby VIC 3065":
            # after a region code (which the 3-4 digits follow on the same line)
            # "Vaart 12\n7411 Doren", "Vaart 12, 2. th.\n7411 Doren": right after the street or
            # its unit
            town = committed == pos and _town_after(text, m.end())
            if not (region or town or (city and _weak_end(text, m.end()))):
                break
            committed, postcode = m.end(), True
            strong = True
        elif kind == "town":  # "…, кв. 12, м. Львів": a town by the word before it
            committed, city = m.end(), True
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
            if is_place(value) or is_region_name(value):  # a country, a state written out
                if city or postcode:
                    committed, strong = m.end(), strong or country
                elif _is_postcode_next(text, m.end()) and "\n" not in sep:
                    city = True  # a city-state before its postcode: ", Singapore 640218"
                else:
                    break
            elif postcode and not city and "\n" not in sep and region_words(value.split()[0]):
                # "10115 Berlin", not a second word after the city ("…, Tel.")
                committed, city = m.end(), True
            elif (
                city
                and postcode
                and "\n" not in sep
                and _REGION_ABBREVIATION.fullmatch(value)
                and region_words(value)  # not "Tel."
            ):
                if not _weak_end(text, m.end()):
                    break
                committed = m.end()  # "97000 Tarnby, Yuc.": a state's abbreviation at the end
            elif city or postcode:
                if not _is_postcode_next(text, m.end()):
                    # a region name counts only before its postcode ("Texas 78701"), a district
                    # or city after a city only when a country or code closes them ("Kilimani,
                    # Nairobi, Kenya")
                    if postcode or places >= 2 or "\n" in sep or not region_words(value):
                        break
                    places += 1
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


def _country_after(text: str, end: int) -> int:
    """``end`` of an address that closes with a postcode, moved over the country (or region
    code) written after it: "..., 01304-001, Brazil"."""
    return max(end, _join_after(text, end, city=True)[0])


def _town_after(text: str, pos: int) -> bool:
    """A town's name follows ``pos`` on its line (a 3-4 digit postcode right after a street)."""
    m = _CITY_AFTER.match(text, pos)
    return m is not None and region_words(m.group()) and not is_place(m.group())


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
    rf"(?<![\w'’-])(?:(?:{_CAP_WORD}[ \t]+){{1,3}}(?:{_alternation(street_types())})\.?,[ \t]*)?"
    rf"{_CITY},?[ \t]*(?:[A-Z]{{1,3}}[ \t]+)?$"
)


def join_addresses(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` with each street span widened to its whole address, ``City, ST 62704`` joined
    around its postcode, and the address cells of tables and labelled line blocks added (see
    module doc). The parts are read on the text with compatibility characters folded one for
    one (``text_view.aligned_nfkc``), as the recognizers read it."""
    text = aligned_nfkc(text)
    out: list[Span] = []
    for sp in spans:
        s, e, et, score, det = sp
        if et == "STREET_ADDRESS":
            unit = _UNIT_COMMA_BEFORE.search(text, max(0, s - 24), s)
            if unit is not None:  # "Flat 2, 17 Quellin Road"
                s = unit.start()
                sp = (s, e, et, score, det)
            new_end, strong = _join_after(text, e, city=_ends_whole(text[s:e]))
            if new_end > e:  # the units and places before a street joined to its city
                start = extend_before(
                    text,
                    _unit_line_before(text, _particle_before(text, s)),
                    ORDINAL_FIRST.match(text, s) is None,  # "42, 6th Main Road": no number yet
                    fine=fine_postcode_in(text[e:new_end]),
                )
                # a postcode, a region or a unit before it: above a phone-shaped run of its digits
                strong = strong or "," in text[start:s]
                sp = (start, new_end, ADDRESS, max(score, JOINED_SCORE) if strong else score, det)
            elif _POSTCODE_FIRST.match(text, start := extend_before(text, s)) and start < s:
                # "7621 <City>, <Street> utca 18.": the postcode and city open the address
                sp = (start, e, ADDRESS, max(score, JOINED_SCORE), det)
        elif et in ("ZIP_CODE", "UK_POSTCODE"):
            sp = _join_before(text, sp)
            if sp[2] == ADDRESS:  # a city and region before it: as strong as a joined street
                start = extend_before(text, sp[0], fine=fine_postcode(text[s:e]))
                end = _country_after(text, sp[1])
                sp = (start, end, ADDRESS, max(sp[3], JOINED_SCORE), sp[4])
            else:
                sp = _street_before_postcode(text, sp)
        out.append(sp)
    out += _bare_street_spans(text, out)
    out += any_case_spans(text)
    out += unit_first_spans(text, _ADDRESS_CUE)
    out += [(s, _country_after(text, e), *rest) for s, e, *rest in tail_spans(text, out)]
    out += script_address_spans(text)
    if "\n" in text:
        table = table_spans(text)
        if table:  # a table's cells decide: a prose join does not run on into its next column
            out = [sp for sp in out if sp[2] != ADDRESS or not inside_rows(sp, table, text)]
        out += table + field_block_spans(text)
    if "{" in text or "=" in text or "|" in text or ";" in text or "</" in text:
        out += inline_object_spans(text)
    return without_names_inside(text, _merge_overlapping(out))


#: A capitalised particle or saint's title that opens a street's name ("De Veurs Comberg 4",
#: "La Canada 7", "Sint Jansstraat 2"), left out by street patterns that start at a name word.
_OPENERS = [w.capitalize() for w in _D["city_particles"] if len(w) > 1] + _D["saints"]
_OPENERS += [w for w in _D["street_prefixes"] if w.endswith(".")]  # "os. Zielna 4"
_NAME_OPENER = re.compile(rf"(?<![\w'’-])(?:{_alternation(_OPENERS)})[ \t]+$")


#: A capitalised unit word right before a house number, which is the unit's number too
#: ("Blk 218 Jurong West Ave 5": Singapore's housing blocks).
_UNIT_OPENER = re.compile(
    rf"(?<![\w'’-])(?:{_alternation([w for w in _D['unit_words'] if w[:1].isupper()])})\.?[ \t]+$"
)


def _particle_before(text: str, start: int) -> int:
    """``start`` moved left over a particle that opens the street's name, or over a unit word
    before its house number."""
    if text[start : start + 1].isdigit():
        m = _UNIT_OPENER.search(text, max(0, start - 16), start)
        return m.start() if m else start
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


#: A house number and one to three capitalised words before a comma: a street line without a
#: street-type word ("555 Larkfield, ..."), an address only when a city and a postcode or a
#: region or country code follow it, or a city after an address cue ("lives at 12 Larkfield,
#: Tarnby.").
_NAME_TYPES = frozenset({"PERSON", "LOCATION", "ORGANIZATION", "NRP"})
_BARE_STREET = re.compile(
    rf"(?<![\w.,/:-])\d{{1,5}}[A-Za-z]?[ \t]+{_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,2}}(?=,)"
)


def _bare_street_spans(text: str, spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for m in _BARE_STREET.finditer(text):
        if any(a < m.end() and m.start() < b for a, b, t, *_ in spans if t not in _NAME_TYPES):
            continue  # a name-shaped street word is the address's
        # a country after the city proves nothing here: "45 Widgets, Lyon, France"
        end, strong = _join_after(text, m.end(), country=False)
        words = m.group().split(None, 1)[1]
        if end == m.end() or words.isupper() or not region_words(words):
            continue  # "at 5 PM, Tarnby": a time
        start = extend_before(text, m.start(), True)  # "Flat 8, 19 Larkway, ..."
        if strong or _ADDRESS_CUE.search(text, max(0, start - 40), start):
            score = JOINED_SCORE if strong or start < m.start() else 0.7
            out.append((start, end, ADDRESS, score, DETECTOR))
    return out


#: Words right before an address in prose ("it's at", "my address is", "lives at", "ship to").
_ADDRESS_CUE = re.compile(
    r"(?i)(?:\b(?:address(?:\s+is)?|live[sd]?\s+(?:at|on)|living\s+at|resid(?:es|ing)\s+at|"
    r"located\s+at|moved\s+to|ship(?:ped)?\s+(?:it\s+)?to|(?:send|mail|post|courier)\s+(?:it\s+)?to|"
    r"deliver(?:ed)?\s+(?:it\s+)?to|"
    r"(?:it'?s|it\s+is|we'?re|i'?m)\s+at)|\bat)\s*:?\s*$"
)


#: A unit line over the street line of a block ("Flat 3, Rowan House", "Suite 200").
_UNIT_LINE = re.compile(rf"[ \t]*{_UNIT}(?:,?[ \t]+{_CAP_WORD}){{0,4}}[ \t]*,?[ \t]*\r?\n[ \t]*$")


#: A postcode that opens an address, its city after it ("7621 <City>, <Street> utca 18.").
_POSTCODE_FIRST = re.compile(rf"(?:{_POSTCODE}|{_WEAK_POSTCODE})[ \t]+{_CAP_WORD}")
#: A unit and a comma right before a street line on its line ("Flat 2, 17 Quellin Road").
_UNIT_COMMA_BEFORE = re.compile(rf"(?<![\w'’-]){_UNIT}[ \t]*,[ \t]*$")


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
    start = extend_before(text, s, fine=fine_postcode(text[s:e]))
    if start == s:
        return sp
    end = _country_after(text, city.end())  # ", Belgium"
    return (start, end, ADDRESS, max(score, JOINED_SCORE), DETECTOR)


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


_STRONG_POSTCODE = re.compile(rf"(?<![\w-])(?:{_POSTCODE})(?![\w-])")


def _ends_whole(value: str) -> bool:
    """A postcode after the street span's last comma ("…, Springfield, IL 62704", from a field's
    label): the address is whole, and the line after it is none of its parts."""
    tail = value.rpartition(",")[2]
    return tail != value and _STRONG_POSTCODE.search(tail) is not None


def _strong(code: str) -> bool:
    """A postcode of a shape of its own (not bare 3 or 4 digits, which are years and counts)."""
    return _STRONG_POSTCODE.fullmatch(code) is not None
