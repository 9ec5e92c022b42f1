"""The parts of a postal address read backwards from its end, as libpostal reads an address's
structure: units, street lines without a street-type word, building, locality and district names
before a street or a city and postcode (``extend_before``, ``tail_spans``), and addresses written
in lower case or capitals (``any_case_spans``), and the clean-up of joined spans (a town read as
a name inside an address, a prose join over a table's row). Used by ``addresses.join_addresses``.
"""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.address_blocks import (
    EIRCODE,
    looks_like_year,
    place_words,
    region_words,
)
from agentic_pipeline.masking.detectors.address_fields import (
    ADDRESS,
    DETECTOR,
    JOINED_SCORE,
    MAX_PARTS,
    PREFIXED_TOWN,
    REGION_CODES,
    Span,
    address_data,
)
from agentic_pipeline.masking.detectors.address_fields import CAP_WORD as _CAP_WORD
from agentic_pipeline.masking.detectors.address_fields import CITY as _CITY
from agentic_pipeline.masking.detectors.address_fields import POSTCODE as _POSTCODE
from agentic_pipeline.masking.detectors.address_fields import UNIT as _UNIT
from agentic_pipeline.masking.detectors.address_fields import WEAK_POSTCODE as _WEAK_POSTCODE
from agentic_pipeline.masking.detectors.data_files import alternation
from agentic_pipeline.masking.names.lexicon import is_title, listed_names
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    LW,
    UP,
    is_place,
    is_place_or_calendar,
    is_vocabulary,
)

_D = address_data()

# ----------------------------------------------------------------- lower and upper case
#: A street line in any case ("88 harlow st", "88 HARLOW ST"), and what must follow it for it to
#: be an address: maybe a unit, a city, maybe a region code, and a postcode.
_ANY_CASE_STREET = re.compile(
    rf"(?i)(?<![\w.,/:-])\d{{1,5}}[a-z]?[ \t]+(?:[a-z][a-z'’-]*\.?[ \t]+){{1,3}}"
    rf"(?:{alternation(_D['street_types'])})\.?(?!\w)"
)
_ANY_CASE_WORDS = r"[a-z][a-z'’-]*(?:[ \t]+[a-z][a-z'’-]*){0,2}"
#: Between an address's parts: a comma, or a bar of a table's row ("RD | HOUSTON | TX | 77006").
_COMMA = r"[ \t]*[,|]"
_ANY_CASE_TAIL = re.compile(
    rf"(?i)(?:(?:{_COMMA})?[ \t]+(?:{_UNIT}))?(?:{_COMMA}[ \t]*(?P<locality>{_ANY_CASE_WORDS}))?"
    rf"(?:(?:{_COMMA})?[ \t]+|(?:{_COMMA})?[ \t]*\r?\n[ \t]*)(?P<city>{_ANY_CASE_WORDS})"
    rf"(?:{_COMMA})?[ \t]+(?:(?P<region>[a-z]{{2,3}})\.?(?:{_COMMA})?[ \t]+)?"
    rf"(?P<postcode>{_POSTCODE})(?![\w-])"
)


def any_case_spans(text: str) -> list[Span]:
    """Addresses written in lower case or capitals ("88 harlow st, greenfield, ma 01301"), which
    the street recognizers (capitalised names) miss: a street line, a city and a postcode (with a
    known region code when there is one); without the postcode, lower-case words are prose."""
    out: list[Span] = []
    for m in _ANY_CASE_STREET.finditer(text):
        tail = _ANY_CASE_TAIL.match(text, m.end())
        if tail is None:
            continue
        city, locality, region = tail["city"], tail["locality"], tail["region"]
        if region is None and locality and city.upper() in REGION_CODES:
            # "OAKLAND CA 94607": the locality's place held the city, the city's the region
            city, locality, region = locality, None, city
        if not region_words(city.title()) or (locality and not region_words(locality.title())):
            continue
        if region is not None and region.upper() not in REGION_CODES:
            continue
        words = m.group().split()[1:-1]
        if not place_words(" ".join(words).title(), False):
            continue
        start = extend_before(text, m.start(), True)  # a unit before the street
        end = tail.end()
        code, last = tail["postcode"], tail["postcode"].split()[-1]
        if " " in code and last.islower() and not m.group().islower():
            end -= len(code) - len(code.split()[0])  # "…, Tarnby 6011 by Friday": no "6011 BY"
        out.append((start, end, ADDRESS, JOINED_SCORE, DETECTOR))
    return out


# --------------------------------------------------------------- parts before an address
#: A house number: "12", "12a", "412-2", "221-H", "12/3", a Japanese block, lot and building
#: ("3-14-2"), an ordinal ("14th"), a block and number ("B-12").
_HOUSE_NO = (
    r"(?:\d{1,5}[A-Za-z]?(?:[/-]\d{1,4}[A-Za-z]?(?:-\d{1,3}|/\d{1,3})?|-[A-Za-z](?![\w-]))?"
    rf"(?:-(?:{alternation(_D['house_suffixes'])})(?![\w-]))?"
    r"|\d{1,3}(?:st|nd|rd|th)"
    r"|[A-Z]{1,2}-\d{1,4}[A-Za-z]?)"
)
#: A word of a street's name: capitalised, or a lower-case word (checked by ``_numbered_ok``).
_NAME_WORD = rf"(?:{_CAP_WORD}|[{LW}][{LW}'’-]*\.?)"
#: A post-office box; a number before "/" and digits is a ratio ("BP 120/80": a blood pressure).
_PO_BOX = rf"(?i:{alternation(_D['po_box_words'])})\.?[ \t]*\d{{1,7}}(?:-\d{{5}})?(?!\d|\s*/\s*\d)"
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
#: The lower-case words that may open a street's name: a street word ("rue", "calle"), not a
#: particle ("en la calle Mayor 3": the street starts at "calle").
_LOWER_FIRST = frozenset(w.lower() for w in [*_D["street_types"], *_D["street_words_before"]])
#: A word, an apostrophe's part in it ("Usher's").
_LETTERS = re.compile(rf"[{UP}{LW}]+(?:['’][{UP}{LW}]+)*")
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
        if part.count("/") > 1:
            return False  # "11/12/26": a date, no house, staircase and door alone
        return whole or not part.isdigit()
    words = _LETTERS.findall(_NUMBER_TOKEN.sub(" ", part))
    if not words or not region_words(part) or any(is_place(w) for w in words):
        return False
    first = words[0]
    if not (first[0].isupper() or first.lower() in _LOWER_FIRST):
        return False
    lower = [w for w in words[1:] if w[0].islower()]
    if len(lower) > 2:
        return False
    return all(w in _LOWER_OK or (len(w) > 2 and not is_vocabulary(w, 3.0)) for w in lower)


#: Where a part of an address begins: after a separator, a colon, a bracket, a quote, a spaced
#: dash ("born 1990 — 42, 6th Main Road, …"), or a gap of three spaces or a tab between the
#: columns of a table printed as text.
_PART_START = re.compile(r"[,|;:()\[\]{}\"]|[ \t][—–-][ \t]|[ ]{3,}|\t")
#: The separator before a part: a comma, a bar, or a spaced dash ("Cidade Nova - MG").
_SEP_BEFORE = re.compile(r"(?:[ \t]*[,|]|[ \t]+[–-])[ \t]*$")
#: An ordinal that opens a street line ("4th Cross", "2nd Main Road"): its house number is before.
ORDINAL_FIRST = re.compile(r"\d{1,3}(?:st|nd|rd|th)\b", re.I)
#: A postcode and its city written before the street, as Hungary writes an address ("6722
#: <City>, <Street> utca 9.").
_POSTCODE_CITY = re.compile(rf"(?:{_POSTCODE}|{_WEAK_POSTCODE})[ \t]+{_CITY}")


def _numbered_tail(part: str, numbered: bool = False, bare: bool = False) -> int | None:
    """Offset in ``part`` where its numbered tail begins (the longest: "send it to Calle Alta
    70" -> "Calle Alta 70"), or ``None``; a bare house number only with ``bare`` (a street named
    after its prefix word follows: "sent to 41, Triq il-Kappillan, …")."""
    for w in re.finditer(r"(?<![^\s])\S", part):
        m = _NUMBERED.fullmatch(part, w.start())
        if m is None or (numbered and m.group("house")):
            continue
        if _numbered_ok(part[w.start() :], m, whole=bare):
            return w.start()
    return None


#: A locality or district with a number in its name ("Lekki Phase 1", "Jayanagar 4th Block",
#: "Sector 5"): passed over like a place name, never a part that makes an address.
_NUMBERED_PLACE = re.compile(
    rf"{_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,3}}[ \t]+{_HOUSE_NO}(?:[ \t]+{_CAP_WORD}){{0,2}}"
)
#: A street named without a house number ("Sandpit Lane"): a part of an address whose postcode
#: is as fine as a street (``fine``).
_NAMED_STREET = re.compile(
    rf"{_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,3}}[ \t]+(?:{alternation(_D['street_types'])})\.?"
)
#: A house's name before its street, at the end of a part ("... is The Mill House").
_HOUSE_NAME = re.compile(rf"(?<![\w'’-])(?:The[ \t]+)?{_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,3}}$")
#: The words of a dwelling's name (``addresses.yaml``).
_DWELLING_WORDS = frozenset(_D["dwelling_words"])


def _dwelling_name(part: str) -> int | None:
    """Where the house's name at the end of ``part`` starts, when one of its words is a
    dwelling's ("of Quillmoor Farm", "The Old Tollhouse"); None when there is none."""
    name = _HOUSE_NAME.search(part)
    if name is None or not _DWELLING_WORDS & set(name.group().split()):
        return None
    return name.start()


#: Postcodes as fine as a street or finer (UK, Canada, Netherlands) and those of one dwelling
#: (an Irish Eircode).
_STREET_POSTCODE = re.compile(
    r"[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d|[1-9]\d{3}[ \t]?[A-Z]{2}"
)
_DWELLING_POSTCODE = re.compile(EIRCODE)


def fine_postcode(code: str) -> str:
    """``"dwelling"`` for a postcode of one address (an Eircode), ``"street"`` for one of a
    street's side (UK, Canada, Netherlands), else ``""``."""
    code = code.strip(" \t\"'")
    if _DWELLING_POSTCODE.fullmatch(code):
        return "dwelling"
    return "street" if _STREET_POSTCODE.fullmatch(code) else ""


_FINE_POSTCODE = re.compile(rf"(?<![\w-])(?:{_STREET_POSTCODE.pattern}|{EIRCODE})(?![\w-])")


def fine_postcode_in(address: str) -> str:
    """``fine_postcode`` of the last postcode of ``address`` (a joined address's text)."""
    found = _FINE_POSTCODE.findall(address)
    return fine_postcode(found[-1]) if found else ""


def _unit_before(text: str, line_start: int, house: int) -> int:
    """``house`` (where a house's name starts) moved to the unit written before it on its line
    ("Unit 3B, Brantwood House, …"), if there is one."""
    sep = _SEP_BEFORE.search(text, line_start, house)
    before = text[line_start : sep.start()] if sep is not None else ""
    flat = re.search(rf"(?:^|[,:][ \t]*)({_UNIT})[ \t]*$", before)
    return line_start + flat.start(1) if flat is not None else house


def _house_before(part: str) -> int | None:
    """Where a house's name before its numbered street starts ("Brackenlea House", "The
    Bakehouse", "Gorsebank, 9 <Street>", after a fine postcode): one to four capitalised words,
    none a country, calendar or label word, no frequent word alone ("Thanks"), none a title or
    greeting or a listed given name (a person's name before an address is the name model's)."""
    name = _HOUSE_NAME.search(part)
    if name is None or not place_words(re.sub(r"^The\s+", "", name.group()), False):
        return None
    words = name.group().split()
    if len(words) == 1 and is_vocabulary(words[0]):
        return None  # "Thanks, 12 <Street>": a word alone is no house's name
    firsts = listed_names()[0]
    if any(is_title(w) or fold(w) in firsts for w in words):
        return None  # "Hi Tom, 12 <Street>", "Dana Quellmore, 12 <Street>"
    return name.start()


#: A street named after its prefix word, without a number ("Triq il-Kappillan", "Aleea Teilor"):
#: passed over like a place name before a city, the house number written before it.
_PREFIXED_STREET = re.compile(
    rf"(?:{alternation(_D['street_prefixes'])})[ \t]+[^\W\d][^,\n]{{0,40}}"
)


def _place_part(part: str) -> bool:
    """``part`` can be a building, locality or district passed over before a street or city."""
    if len(part.split()) <= 5 and re.fullmatch(_CITY, part) and region_words(part):
        return True
    if _NUMBERED_PLACE.fullmatch(part) is None:
        return False
    return not any(is_place_or_calendar(w) for w in _LETTERS.findall(part))


def extend_before(text: str, start: int, numbered: bool = False, fine: str = "") -> int:
    """``start`` of an address moved left over the parts written before it on its line and
    separated by commas: a unit ("Flat 2, 17 Rowan Road, ..."), a street line without a
    street-type word ("Calle Alta 70, Villamar, SA 37250"), and the building, locality or
    district names between them ("Flat 3, Birch Residency, 14th Cross, Indiranagar, ..."): the
    span reaches the leftmost numbered part, place names alone before it are left. A house
    number alone ("B-12, Lajpat Road, ...") counts only for an address without one yet
    (``numbered``): in "C-101, Ilse Brand, Larch Row 14, ..." it is a row's id. After a postcode
    as fine as a street (``fine_postcode``), a street without a number counts too, and a house's
    name right before it ("The Mill House, Sandpit Lane, Bury NR12 4LT"); after one of a
    dwelling, every place part of the line does ("Teach Bán, Glenmoy, Co. Kerry, V23 K7P2").
    A postcode and city before the street open the address ("6722 <City>, <Street> utca 9.")."""
    committed = pos = start
    line_start = text.rfind("\n", 0, start) + 1
    # the address opens with its street line, numbered or named ("Sandpit Lane, Bury NR12 4LT")
    first = text[start : start + 60].split(",", 1)[0].strip()
    after_street = bool(fine) and (numbered or _NAMED_STREET.fullmatch(first) is not None)
    prefixed = False  # the part passed over last is a street named after its prefix word
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
        if _POSTCODE_CITY.fullmatch(part):
            committed = begin  # the postcode and city first: the line's start of the address
            break
        m = _NUMBERED.fullmatch(part)
        if m is not None and _numbered_ok(part, m) and not (numbered and m.group("house")):
            committed = pos = begin
            numbered = numbered or not (m.group("unit") or ORDINAL_FIRST.match(part))
            # a street line after a fine postcode: a house's name may stand before it
            after_street = bool(fine) and not m.group("unit") and not m.group("house")
            continue
        if fine and _NAMED_STREET.fullmatch(part) and place_words(part, False):
            committed = pos = begin  # "Sandpit Lane, Bury NR12 4LT"
            after_street = True
            continue
        if re.fullmatch(PREFIXED_TOWN, part):  # "г. Тверь, ул. Садовая, д. 12"
            committed = pos = begin
            continue
        house = _dwelling_name(part) if fine else None
        if house is None and after_street:  # a house's name before its street
            house = _house_before(part)
        if house is not None:  # "Quillmoor Farm, <Village>, <Town> <postcode>": the house opens it
            committed = _unit_before(text, line_start, begin + house)
            break
        if after_street:
            break
        street = _PREFIXED_STREET.fullmatch(part) is not None
        if _place_part(part) or street:
            if is_place(part):
                break  # a country is no part before a street
            pos = begin  # a building, locality or district: kept only with a number before it
            if fine == "dwelling":
                committed = pos
            prefixed = street
            continue
        tail = _numbered_tail(part, numbered, bare=prefixed)
        if tail is not None:
            committed = begin + tail
        break
    return committed


#: A postcode that closes an address, right after a word: a postcode of a shape of its own, or
#: 3-4 digits after a region code ("VIC 3065"); the words before it are read by ``_tail_spans``.
_TAIL = re.compile(
    rf"(?<=[^\W_])(?:[ \t]+[,–-]?|[,–-])[ \t]*(?P<pc>(?:{_POSTCODE})"
    rf"|(?<=[A-Z][A-Z] )(?:{_WEAK_POSTCODE})|(?<=[A-Z][A-Z][A-Z] )(?:{_WEAK_POSTCODE}))(?![\w-])"
)
#: Where a ``_TAIL`` may begin: a separator before a digit or a capital and a digit.
_TAIL_CANDIDATE = re.compile(r"[ \t,–-](?=[A-Z]{0,2}\d)")
_TAIL_SEPARATORS = " \t,–-"
#: The city and region before a postcode: "Bengaluru, Karnataka 560038", "Tarnby, OR 97001",
#: "Nova Gorica - 110024", a Brazilian "Cidade Nova - MG, 30140-071", a city's postal district
#: ("Dublin 8, D08 …").
_DISTRICT_TO_POSTCODE = r"(?:[ \t]+\d{1,2})?[ \t]*[,–-]?[ \t]*$"
_PLACE_BEFORE = re.compile(
    rf"(?<![\w-]){_CITY}(?:(?:[ \t]*,|[ \t]+[–-])[ \t]*(?P<second>{_CITY}))?"
    rf"{_DISTRICT_TO_POSTCODE}"
)
#: The last place alone (the first of two may be a street: "14 Usher's Quay, Dublin 8, …").
_LAST_PLACE_BEFORE = re.compile(rf"(?<![\w-]){_CITY}{_DISTRICT_TO_POSTCODE}")


def tail_spans(text: str, spans: list[Span]) -> list[Span]:
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
        if place is not None and place["second"] and not region_words(place.group()):
            # "Malleswaram 2nd Stage, Mysuru 570012": the city alone, its locality is a part
            place = _LAST_PLACE_BEFORE.search(text, place.start("second"), a)
        if place is None or not region_words(place.group()) or is_place(place.group()):
            continue
        if sum(c.isalpha() for c in place.group()) < 3:
            continue  # "MR-7731,R-44120": a letter before a number is an id's prefix, no city
        if looks_like_year(m.group("pc")):
            continue
        fine = fine_postcode(m.group("pc"))
        start = extend_before(text, place.start(), fine=fine)
        if start == place.start():  # "14 Usher's Quay, Dublin 8, D08 …": a street, not a region
            city = _LAST_PLACE_BEFORE.search(text, place.start(), a)
            if city is not None and city.start() > place.start():
                start = extend_before(text, city.start(), fine=fine)
                start = start if start < city.start() else place.start()
        if start < place.start():
            out.append((start, b, ADDRESS, JOINED_SCORE, DETECTOR))
    return out


# ------------------------------------------------------------ addresses that start with a unit
#: A unit closed by a comma ("Flat 7,", "House 12,", "Plot 45,", "No. 25,"), where an address of
#: the parts written after it may start.
_UNIT_FIRST = re.compile(rf"(?<![\w-])(?:{_UNIT})(?=[ \t]*,)")
#: Capitalised words at the start of a part.
_CAP_RUN = re.compile(rf"{_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,3}}(?=[ \t]+[{LW}])")
#: The next comma-separated part of a clause.
_NEXT_PART = re.compile(r",[ \t]*([^,.;:!?()\n]{1,60}?)[ \t]*(?=[,.;:!?()\n]|$)")


def unit_first_spans(text: str, cue: re.Pattern[str]) -> list[Span]:
    """Addresses written from the unit outwards after an address cue ("ship to", "lives at"),
    without a street-type word after a house number: "House 12, Road 5, Dhanmondi, Dhaka 1205",
    "Flat 7, Al Waha Building, Street 12, Al Qusais, Dubai". Each part after the unit is a
    numbered part ("Road 5", "Block C") or a building, locality, city or country name; three
    parts at least, the last with a capitalised word; the address ends where the clause does."""
    out: list[Span] = []
    for m in _UNIT_FIRST.finditer(text):
        if not cue.search(text, max(0, m.start() - 40), m.start()):
            continue
        pos = end = m.end()
        parts, last_named = 1, False
        while parts < MAX_PARTS and (p := _NEXT_PART.match(text, pos)) is not None:
            part = p.group(1)
            numbered = _NUMBERED.fullmatch(part)
            if numbered is not None and _numbered_ok(part, numbered):
                last_named = any(c.isupper() for c in _NUMBER_TOKEN.sub("", part))
            elif _place_part(part) or is_place(part):
                last_named = True
            else:  # the clause goes on after a place: "…, Dubai please"
                head = _CAP_RUN.match(part)
                if head is not None and parts >= 2 and _place_part(head.group()):
                    parts, end = parts + 1, p.start(1) + head.end()
                    last_named = True
                break
            parts, pos, end = parts + 1, p.end(1), p.end(1)
        if parts >= 3 and last_named:
            out.append((m.start(), end, ADDRESS, JOINED_SCORE, DETECTOR))
    return out


def without_names_inside(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` without the person spans that lie inside a whole address after its start and do
    not open with a listed first name: a town that the name model took for a name ("12 Oak Ct.,
    <Town> AL 36532") is the address's, which masks it all the same; a person named inside an
    address ("attn <First> <Last>") stays a person, but not in the town's place, before a region's
    code and a postcode ("Suite 17, <a town like a given name>, FL 33134"), nor when a dwelling's
    word ends it ("Flat 3, <Given> House, 14 ...": the building's name)."""
    addresses = [(s, e) for s, e, t, *_ in spans if t == ADDRESS]
    if not addresses:
        return spans
    firsts = listed_names()[0]
    return [
        sp
        for sp in spans
        if sp[2] != "PERSON"
        or not any(a < sp[0] and sp[1] <= b for a, b in addresses)
        or (
            fold(text[sp[0] : sp[1]].split()[0]) in firsts
            and _TOWN_SLOT_AFTER.match(text, sp[1]) is None
            and text[sp[0] : sp[1]].split()[-1] not in _DWELLING_WORDS  # "<Given> House"
        )
    ]


#: What follows a town in an address line: a region's code and a postcode, or a postcode
#: (", FL 33134", " ON M5V 2T6", ", 8001").
_TOWN_SLOT_AFTER = re.compile(
    r",?[ \t]+(?:[A-Z]{2}[ \t]+)?(?:\d{4,6}(?:-\d{4})?|[A-Z]\d[A-Z][ ]?\d[A-Z]\d)(?![\w-])"
)


def inside_rows(sp: Span, cells: list[Span], text: str) -> bool:
    """``sp`` overlaps a line that holds one of ``cells`` (a table row)."""
    for a, b, *_ in cells:
        row_start, row_end = text.rfind("\n", 0, a) + 1, text.find("\n", b)
        if sp[0] < (len(text) if row_end < 0 else row_end) and row_start < sp[1]:
            return True
    return False
