"""The data of postal addresses (``addresses.yaml``) with the pattern pieces built from it, and
addresses in structured text: the keys and column headers that name an address's parts, CSV/TSV
rows, ``label: value`` blocks and fields written inline (a printed dict, a call's keyword
arguments, a logfmt line). The prose joiner is ``addresses.py``; the parts read backwards from an
address's end are ``address_parts.py``.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache

from agentic_pipeline.masking.delimited import header_candidates
from agentic_pipeline.masking.detectors.data_files import alternation, data_file
from agentic_pipeline.masking.vocabulary import LW, UP

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


def address_data() -> dict:
    """``addresses.yaml``."""
    return data_file("addresses.yaml")


def street_types() -> list[str]:
    """Street-type words ("Street", "Lane", "Crescent"...)."""
    return list(address_data()["street_types"])


_D = address_data()
REGION_CODES = frozenset(c for codes in _D["region_codes"].values() for c in codes)
COUNTRY_CODES = frozenset(_D["country_codes"])


def _region_names() -> frozenset[str]:
    """The states and provinces written out of Faker's address providers (``addresses.yaml``)."""
    out: set[str] = set()
    for locale, attribute in _D["region_name_providers"].items():
        provider = importlib.import_module(f"faker.providers.address.{locale}").Provider
        out |= set(getattr(provider, attribute))
    return frozenset(out)


#: States and provinces written out ("Oregon", "New South Wales"): they close an address as a
#: country does.
REGION_NAMES = _region_names()
_REGION_SUFFIXES = frozenset(_D["region_suffixes"])


def is_region_name(words: str) -> bool:
    """``words`` name a state or province: written out ("Oregon"), or a name and the word that
    says it is a region ("Ekwuru State", ``region_suffixes``)."""
    head, _, last = words.rpartition(" ")
    return words in REGION_NAMES or (bool(head) and last in _REGION_SUFFIXES)


#: The side of a storey after it ("3. OG rechts").
_SIDE_AFTER = rf"(?:{alternation(_D['floor_sides_after'])})\.?(?!\w)"
#: A unit: a unit word and its number or letter ("Apt 5", "depto. C", "m. 7"), a floor with an
#: ordinal sign ("3º B", "2.º Dto."), a floor and its side ("3. th"), a storey after its number,
#: maybe with its side ("2nd floor", "3. OG rechts"), a German storey without one ("EG links"),
#: a Hungarian floor and door ("II/3"), a Catalan one ("3r 2a").
UNIT = (
    rf"(?:(?:(?:{alternation(_D['unit_words'])})(?:\.|:(?=[ \t]*\d))?(?:[ \t]*No\.?)?|#)[ \t]*"
    r"(?:[A-Za-z]?\d[\w-]*|[A-Z](?![\w-]))"
    rf"|\d{{1,2}}\.?[ºª°](?:[ \t]*(?:\d{{1,2}}[ºª°]?|(?:{alternation(_D['floor_sides'])})\.?"
    r"|[A-Za-z]{1,4}\.?)(?!\w))?"
    rf"|\d{{1,2}}\.[ \t]*(?:{alternation(_D['floor_sides'])})\.?(?!\w)"
    r"|\d{1,3}(?:st|nd|rd|th|er|re|e|ème|º|ª|°|\.)?[ \t]*"
    rf"(?:(?i:{alternation(_D['floor_words'])})\.?|{alternation(_D['storey_abbreviations'])})"
    rf"(?!\w)(?:[ \t]+{_SIDE_AFTER})?"
    rf"|(?:{alternation(_D['floors_without_number'])})(?:[ \t]+{_SIDE_AFTER})?(?!\w)"
    # a Hungarian floor in Roman numerals and its door ("II/3", "fszt. 2" is a floor word's)
    r"|(?:I{1,3}|IV|V|VI{1,3}|IX|X{1,2}|XI{1,3})/\d{1,3}(?![\w/])"
    # a Catalan floor and door with their ordinal letters ("3r 2a", "1r 1a", "4t 3a")
    r"|\d{1,2}(?:r|n|t|è)[ \t]+\d{1,2}a(?!\w))"
)
POSTCODE = "|".join(_D["postcodes"])
WEAK_POSTCODE = "|".join(_D["weak_postcodes"])
#: A capitalised word (a city, region or country word), maybe hyphenated ("Port-Lorn").
CAP_WORD = rf"(?:[{UP}][{LW}]{{0,2}}\.|[{UP}][{UP}{LW}'’]*(?:[-'’][{UP}{LW}]+)*)(?!\d)"
PARTICLE = rf"(?:{alternation(_D['city_particles'])})"
#: A city's name: capitalised words with particles between them, maybe a "(district)" after it
#: or a province after a slash (Turkish "Çankaya/Ankara").
CITY = (
    rf"{CAP_WORD}(?:(?:[ \t]+{PARTICLE}){{0,2}}[ \t]+{CAP_WORD}){{0,4}}(?:/{CAP_WORD})?"
    r"(?:[ \t]+\([^()\n]{1,30}\))?"
)
#: A town named after the word that marks it as one ("г. Тверь", ``city_prefixes``).
PREFIXED_TOWN = rf"(?:{alternation(_D['city_prefixes'])})[ \t]*{CITY}"
#: The most parts read after or before a street.
MAX_PARTS = 10


# ------------------------------------------------------------------------- structured text
#: The parts of an address object, table row or label block that are masked (a country alone
#: identifies nobody and stays, as in the JSON walker).
_MASKED_PARTS = frozenset({"street", "unit", "city", "region", "postcode"})


#: "Address" in more languages (``address_labels``), normalised as keys are.
ADDRESS_LABELS = frozenset(_D["address_labels"])
_NOT_AFTER = frozenset(_D["address_label_not_after"])


def address_label(key: str) -> bool:
    """``key`` is a label of a whole address in a language the English key rules do not read
    ("Adresa", "Alamat", "住所"), maybe with words after it that say which ("Адрес
    регистрации", "Dirección de entrega"), but no e-mail's or IP's."""
    k = re.sub(r"[\W_]+", "_", str(key).lower()).strip("_")
    if k in ADDRESS_LABELS:
        return True
    head, *rest = k.split("_")
    return head in ADDRESS_LABELS and 0 < len(rest) <= 3 and not _NOT_AFTER.intersection(rest)


@lru_cache(maxsize=4096)
def address_part(key: str) -> str | None:
    """The address part a key or column header names (``street``, ``unit``, ``city``,
    ``region``, ``postcode``, ``country``), else ``None``: ``billingCity`` -> ``city``."""
    k = re.sub(r"[\W_]+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(key)).lower())
    k = k.strip("_")
    keys = _D["address_keys"]
    for _ in range(2):
        if k in ADDRESS_LABELS:
            return "street"
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
    """The address cells of each row of a CSV/TSV table (maybe under a title line or two) whose
    header names address parts (``is_address_object``); cells of adjacent address columns make
    one span."""
    lines, pos = [], 0
    for ln in text.splitlines(keepends=True):
        lines.append((pos, ln.rstrip("\r\n")))
        pos += len(ln)
    body = [(p, ln) for p, ln in lines if ln.strip()]
    if len(body) < 2:
        return []
    for skip, delim in header_candidates([ln for _, ln in body]):
        header = body[skip][1]
        try:
            names = [header[a:b] for a, b in _cells(header, delim)]
        except ValueError:
            continue
        if not is_address_object(names):
            continue
        parts = [address_part(h) for h in names]
        out: list[Span] = []
        for p, ln in body[skip + 1 :]:
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
    (  # an XML element: "<city>Tarnby</city>" (maybe with attributes)
        re.compile(
            r"<(?P<k>[A-Za-z_][\w.-]{0,39})(?:[ \t][^<>\n]{0,80})?>"
            r"[ \t]*(?P<v>[^<>\n]{1,160}?)[ \t]*</(?P=k)>"
        ),
        "</",
    ),
)
#: The first word of a key that can name a street or a postcode ("street", "address", "zip",
#: "plz"): a text without one holds no address object (the search is skipped).
_STREET_OR_POSTCODE_STEMS = tuple(
    sorted({k.split("_")[0] for p in ("street", "postcode") for k in _D["address_keys"][p]})
)
#: What may stand between two pairs of one object, call or line.
_PAIR_GAP = re.compile(r"[\s,;|(){}\[\]]*")


def inline_place_values(text: str) -> set[tuple[int, int]]:
    """The spans of the values written inline under a key that names a city, region or country
    (``{'city': 'Tarnby'}``, ``city="Tarnby"``): places, never a person's name."""
    return {
        (m.start("v"), m.end("v"))
        for rx, sign in _PAIRS
        if sign in text
        for m in rx.finditer(text)
        if address_part(m.group("k")) in ("city", "region", "country")
    }


def inline_object_spans(text: str) -> list[Span]:
    """The address values of an object, a call's arguments or a log line's fields written inline
    (``_PAIRS``: ``{'street': …, 'city': …}``, ``update(street='…', zip='…')``, ``street="…"
    city=… zip=…``, ``<street>…</street><city>…</city>``) that hold a street or postcode
    (``is_address_object``); whole JSON or dict cells are walked by the JSON walker instead."""
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
