"""Person names that no list has and no context cue announces, told by the shape of the words.

spaCy's small model tags most unfamiliar names as organisations or places ("Seid Globelnik",
"Fumio Okuno", "Veere Boes" as ORG; "Caresse Bonneville" as GPE) or misses them, and the name
lists hold neither word. What still tells them apart from companies, products and places:

* a **name pair** is two capitalised words on one line that can be names: an unknown word
  (in no word list of the main European languages, no plural of vocabulary) beside a listed name
  rare in English or a word rare in English ("Ella Gawler", "Viva Ujváry"), an unknown word
  before a listed surname ("Cian Young"), a listed first name before a listed surname ("Zoe
  Young"), or two name-like words that are no English words at all ("Bronisław Sawicki"). The
  pair must stand alone (no third such word beside it: "Ksar Beni Aissa"; no company's English
  word before it: "Best Biz Survis"), not before an organisation, business or vocabulary word
  ("Afforda Karry Solutions", "Roadhouse Grill"), not be part of a country's name ("Emirati
  Arabi Uniti"), not after a place preposition and not in a street line or a city's place of an
  address (number, postcode, unit line or country around it; ``refine.py`` checks the address
  block too);
* a lower-case Dutch or German particle before an unknown word is a surname ("van Roekel"), and
  a listed first name, a particle and a capitalised word are a name ("Anna van Beers", "Jan ten
  Pas", "Lotte de Vaan"), unless inside a longer proper noun or a street line.

All are reported with ``SHAPE_SCORE``: masked where they stand, never an episode-wide value.
Only word frequencies (``wordfreq``) and the name lists (``names.py``) are read: no model.
"""

from __future__ import annotations

import re
from functools import lru_cache

from presidio_analyzer import RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.names import (
    _GREETINGS,
    _ORG_NEXT_RE,
    _TITLE_WORDS,
    COMMON_WORDS,
    PersonRecognizer,
    _listed_names,
    is_place_or_calendar_pair,
    listed_name,
    name_gazetteer,
)
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    GOING_VERBS,
    LW,
    STOP_WORDS,
    UP,
    countries,
    inflected_vocabulary,
    is_place_or_calendar,
    zipf,
)

#: Score of a name pair found by shape only: masked where it stands, not an episode-wide value.
SHAPE_SCORE = 0.55
#: A word rarer than this in every language is unknown to the word lists (they hold words from
#: Zipf 3 up).
UNKNOWN_ZIPF = 3.0
#: A listed name, or a word of another language, is name-like in English text below these.
LISTED_EN_ZIPF = 4.0
FOREIGN_ZIPF = 5.2
#: Beside an unknown word, a word rarer than this in English can be a name ("Viva Ujváry").
RARE_EN_ZIPF = 3.6

#: One capitalised word: "Globelnik", "McArdle", "Anne-Marie", "O'Neill", "Ambroželi".
_WORD = rf"[{UP}][{LW}]+(?:[{UP}][{LW}]+)?(?:['’][{UP}][{LW}]+)?(?:-[{UP}][{LW}]+)?"
_PAIR_RE = re.compile(rf"(?<![\w@.#/_-])({_WORD})[ \t]+({_WORD})(?![\w@_-]|['’][{LW}]{{2}})")
#: Dutch and German surname particles (the Romance "de", "da", "la" begin too many place and
#: street names: "Torroella de Montgrí", "Rua Cinco de Julho").
_PARTICLE_RE = re.compile(
    rf"(?<![\w@.#/_-])((?:van|von|ter|ten|van der|van den|van de|von der)[ \t]+{_WORD})"
    rf"(?![\w@_-])"
)
#: A first name, a particle and a capitalised word: "Anna van Beers", "Jan ten Pas", "Maria de
#: Souza" (the last word may be vocabulary: Dutch surnames often are).
_FIRST_PARTICLE_RE = re.compile(
    rf"(?<![\w@.#/_-])({_WORD})[ \t]+(?:van der|van den|van de|von der|van|von|ten|ter|de la|"
    rf"de|da|di|del|della|dos|du|le|la)[ \t]+({_WORD})(?![\w@_-])"
)
_PREV_WORD = re.compile(rf"([{UP}{LW}][{UP}{LW}'’.-]*)[ \t]+$")
_NEXT_WORD = re.compile(rf"(?:['’]s)?[ \t]+([{UP}{LW}][{UP}{LW}'’-]*)")
#: Before a place: prepositions and verbs of going or being somewhere, "University of".
_PLACE_BEFORE = re.compile(
    r"(?i)(?<!\w)(?:in|on|from|into|near|via|at|around|outside|across|towards?|"
    rf"(?:{GOING_VERBS}|welcome|trip|way|road|train|flight|route) to|"
    r"(?:university|city|town|village|state|province|county|capital|region|republic|kingdom|"
    r"port|bay|lake|mount|isle|island|islands|people|streets|side) of)[ \t]+$"
)
_POSSESSIVE_NEXT = re.compile(r"['’]s(?!\w)")
#: A street line: a street-type word or a house number before the pair, a number or a street
#: suffix after it ("Rua Porangaba 1452", "88 Rue Wanes Chbil", "Nordahl Rolfsens vei 187").
_STREET_BEFORE = re.compile(
    r"(?i)(?<!\w)(?:rue|rua|r|av|avda|avenida|avenue|via|viale|vicolo|piazza|piazzale|largo|"
    r"calle|c/|ctra|carrer|carretera|paseo|plaza|praça|travessa|estrada|alameda|rúa|ul|ulica|"
    r"aleja|al|boulevard|bd|chemin|place|impasse|allée|quai|route|strada|corso|avinguda|passeig|"
    r"camino|cours|du|de|des|del|da|di|do|dos|das|la|le|\d+[a-z]?)\.?[ \t]+$"
)
#: Street-type words that begin a street name (never a first name).
_STREET_WORDS = frozenset(
    "rue rua avenida avenue via viale vicolo piazza piazzale largo calle carrer carretera "
    "paseo plaza praça travessa estrada alameda rúa ulica aleja boulevard chemin impasse allée "
    "quai route strada corso avinguda passeig camino cours".split()
)
_STREET_AFTER = re.compile(
    r"(?i)\.?[ \t]*(?:\d|(?:vei|veg|gate|gata|gatan|gade|vej|straat|str|st|street|road|rd|ave|"
    r"lane|drive|weg|allee|allé|út|utca|cesta)\b)"
)
_NUMBER_AFTER_WORD = re.compile(rf"[ \t]+[{UP}][{LW}]+\.?[ \t]+\d")
#: A city: before a postcode, after a house number and a comma or after a postcode.
_CITY_AFTER = re.compile(r"[ \t]*,?[ \t]*\d{3}")
_CITY_BEFORE = re.compile(r"(?:\d[\w./-]*,|\b\d{4,5})[ \t]*$")
#: The line above a city in an address block ("Apt. 762", "Suite 480").
_UNIT_LINE = re.compile(r"(?i)\b(?:apt|suite|unit|flat|floor)\.?[ \t]*\d+[^\n]*\n[ \t>?]*$")
#: Business words after a name-like word: "Roadhouse Grill", "Maslin Bistro".
_BUSINESS = frozenset(
    "grill bistro bakery salon boutique pizzeria trattoria deli diner tavern motel realty "
    "brasserie cafe café bar pub inn spa gym clinic garage outlet mart".split()
)


def _fw(word: str) -> str:
    f = fold(word)
    return f[:-2] if f.endswith(("'s", "’s")) else f


def unknown_word(word: str) -> bool:
    """``word`` is in no word list of the main European languages and no plural of a listed
    word ("Globelnik", not "Convertibles"), nor a place, nationality or calendar word."""
    f = _fw(word)
    if len(f) < 2 or f in STOP_WORDS or is_place_or_calendar(f):
        return False
    if zipf(f) >= UNKNOWN_ZIPF:
        return False
    return not inflected_vocabulary(f)


def name_like(word: str) -> bool:
    """``word`` can be a name in English text: unknown to the word lists, a listed name rare in
    English ("Ella", not "Young"), or a rare-in-English word of another language ("Seid")."""
    f = _fw(word)
    if unknown_word(word):
        return True
    if len(f) < 2 or f in STOP_WORDS or f in COMMON_WORDS or is_place_or_calendar(f):
        return False
    en = zipf(f, ("en",))
    if listed_name(f):
        return en < LISTED_EN_ZIPF
    return en < UNKNOWN_ZIPF and zipf(f) < FOREIGN_ZIPF


@lru_cache(maxsize=1)
def _country_pairs() -> frozenset[str]:
    """Adjacent word pairs of the multi-word country names ("emirati arabi" of "Emirati Arabi
    Uniti", "indischen ozean")."""
    out = set()
    for c in countries():
        words = c.replace(",", " ").split()
        out |= {f"{x} {y}" for x, y in zip(words, words[1:], strict=False)}
    return frozenset(out)


def _pair_is_name(a: str, b: str) -> bool:
    """Two capitalised words make a name by their shape alone."""
    firsts, lasts = _listed_names()
    fa, fb = _fw(a), _fw(b)
    if is_place_or_calendar_pair(a, b) or f"{fa} {fb}" in _country_pairs():
        return False
    if fa in firsts and fa not in COMMON_WORDS and zipf(fa, ("en",)) < LISTED_EN_ZIPF:
        if fb in lasts and fb not in STOP_WORDS and not is_place_or_calendar(fb):
            return True  # "Zoe Young", "Cian Young"
    if fb in _BUSINESS or fa in _BUSINESS or fa in _STREET_WORDS:
        return False
    if unknown_word(a) and fb in lasts and fb not in STOP_WORDS and not is_place_or_calendar(fb):
        return True  # "Cian Young": an unknown first name before a listed surname
    if name_like(a) and name_like(b) and max(zipf(fa, ("en",)), zipf(fb, ("en",))) < UNKNOWN_ZIPF:
        return True  # names of other languages' texts: "Bronisław Sawicki"
    if unknown_word(a) or unknown_word(b):
        other = b if unknown_word(a) else a
        return name_like(other) or _rare_in_english(other)  # "Viva Ujváry", "Ruby Guibord"
    return False


def _rare_in_english(word: str) -> bool:
    """A word that is no English stop word, common word or place, and rare in English."""
    f = _fw(word)
    return (
        len(f) >= 2
        and f not in STOP_WORDS
        and f not in COMMON_WORDS
        and not is_place_or_calendar(f)
        and zipf(f, ("en",)) < RARE_EN_ZIPF
        and not inflected_vocabulary(f)
    )


def _run_word(text: str, m: re.Match[str] | None) -> bool:
    """The capitalised word beside a pair makes it part of a longer proper noun."""
    if m is None or not m.group(1)[0].isupper():
        return False
    w = m.group(1).rstrip(".")
    f = _fw(w)
    return not (f in _GREETINGS or f in _TITLE_WORDS or f in STOP_WORDS) and (
        name_like(w) or _ORG_NEXT_RE.match(" " + w) is not None
    )


def _company_word_before(text: str, m: re.Match[str] | None) -> bool:
    """A capitalised English word before the pair, inside a sentence: the start of a company
    or title ("at Best Biz Survis"), not a greeting, a title or a sentence's first word."""
    if m is None or not m.group(1)[0].isupper() or m.group(1).endswith(("'s", "’s")):
        return False  # (an owner: "Farmer Jack's Habiba Spreicer")
    f = _fw(m.group(1).rstrip("."))
    if f in _GREETINGS or f in _TITLE_WORDS or f in STOP_WORDS:
        return False
    before = text[max(0, m.start(1) - 3) : m.start(1)].rstrip(" \t")
    if not before or before[-1] in ".!?:\n\"'>“(*-":
        return False  # a sentence's first word ("Maybe Veere Boes")
    return zipf(f, ("en",)) >= LISTED_EN_ZIPF if listed_name(f) else zipf(f, ("en",)) >= 3.0


def _inside_proper_noun(text: str, start: int) -> bool:
    """A capitalised word right before ``start`` that is no greeting, title or stop word, inside
    a sentence: ``start`` is inside a longer proper noun ("Santa Cristina de la Polvorosa")."""
    m = _PREV_WORD.search(text, max(0, start - 40), start)
    if m is None or not m.group(1)[0].isupper():
        return False
    f = _fw(m.group(1).rstrip(".,"))
    if f in _GREETINGS or f in _TITLE_WORDS or f in STOP_WORDS or m.group(1).endswith(","):
        return False
    before = text[max(0, m.start(1) - 3) : m.start(1)].rstrip(" \t")
    return bool(before) and before[-1] not in ".!?:\n\"'>“(*-"


def _address_part(text: str, s: int, e: int) -> bool:
    """``[s, e)`` is (part of) a street line or the city of an address."""
    before = text[max(0, s - 30) : s]
    if _STREET_BEFORE.search(before) or _CITY_BEFORE.search(before):
        return True
    if _STREET_AFTER.match(text, e) or _CITY_AFTER.match(text, e):
        return True
    if _UNIT_LINE.search(text, max(0, s - 60), s):
        return True
    below = text[e:].lstrip(" \t,").split("\n", 3)[1:3]
    nxt = next((ln.strip(" \t>?") for ln in below if ln.strip(" \t>?")), "")
    words = nxt.split()
    return any(is_place_or_calendar(" ".join(words[:k])) for k in (1, 2, 3) if len(words) >= k)


def shape_names(text: str) -> list[RecognizerResult]:
    """Name pairs and particle surnames found by their shape (see module doc)."""
    out: list[RecognizerResult] = []
    pos = 0
    while (m := _PAIR_RE.search(text, pos)) is not None:
        a, b = m.group(1), m.group(2)
        s, e = m.start(), m.end()
        pos = m.start(2)
        if not _pair_is_name(a, b):
            continue
        if _ORG_NEXT_RE.match(text, e):
            continue  # "Afforda Karry Inc"
        nxt = _NEXT_WORD.match(text, e)
        if _POSSESSIVE_NEXT.match(text, e):
            nxt = None  # "Genghis Avdeyev's Cautionary Tales": the next word is owned
        if _run_word(text, nxt) or (
            nxt is not None
            and nxt.group(1)[0].isupper()
            and not name_like(nxt.group(1))
            and zipf(_fw(nxt.group(1)), ("en",)) >= 3.5
            and _fw(nxt.group(1)) not in STOP_WORDS
        ):
            continue  # "Stratabiz Kash Solutions", "Afforda Karry Foods"
        prev = _PREV_WORD.search(text, max(0, s - 40), s)
        if _run_word(text, prev) or _company_word_before(text, prev):
            continue  # "Ksar Beni Aissa", "at Best Biz Survis"
        if _PLACE_BEFORE.search(text, max(0, s - 30), s) and not _POSSESSIVE_NEXT.match(text, e):
            continue  # "moved to Slovenj Gradec" ("the verses from Edhem Jernejšek's" stays)
        if _address_part(text, s, e):
            continue
        out.append(RecognizerResult("PERSON", s, e, SHAPE_SCORE))
        pos = e
    firsts = name_gazetteer()[0]
    for m in _FIRST_PARTICLE_RE.finditer(text):
        first, last = _fw(m.group(1)), m.group(2)
        if (
            first in firsts
            and _fw(last) not in STOP_WORDS
            and not is_place_or_calendar(last)
            and not _address_part(text, m.start(), m.end())
            and not _NUMBER_AFTER_WORD.match(text, m.end())  # "Carlos de Lyra Netto 298"
            and not _inside_proper_noun(text, m.start())  # "Santa Cristina de la Polvorosa"
            and not _STREET_BEFORE.search(text, max(0, m.start() - 30), m.start())
            and not _PLACE_BEFORE.search(text, max(0, m.start() - 30), m.start())
        ):
            out.append(RecognizerResult("PERSON", m.start(), m.end(), SHAPE_SCORE))
    for m in _PARTICLE_RE.finditer(text):
        last = m.group(1).split()[-1]
        if unknown_word(last) or (listed_name(last) and not is_place_or_calendar(last)):
            out.append(RecognizerResult("PERSON", m.start(1), m.end(1), SHAPE_SCORE))
    return out


class NameShapeRecognizer(PersonRecognizer):
    """Name pairs and particle surnames no list or context finds: "Seid Globelnik", "Fumio
    Okuno", "van Roekel" (see the module doc)."""

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report the pairs and particle surnames (``SHAPE_SCORE``)."""
        if entities and "PERSON" not in entities:
            return []
        return shape_names(text)
