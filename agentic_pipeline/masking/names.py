"""Person names by lists and structure: a first/last-name gazetteer (Faker's locale lists, used
as a public name list), name pairs, "Last, First", titles, single listed names; and the tests
that tell a word from a name (``listed_name``, ``not_a_name_word``).

Dependency: ``Faker`` (already a project dependency, pinned): its per-locale first/last-name
tuples are a maintained, offline name list for 26 European/North-American locales. Because the
list comes from Faker, an evaluation corpus must not draw its names from Faker (it would measure
the list against itself); the outsider benchmark takes its people from FakeNameGenerator.
"""

from __future__ import annotations

import re
from functools import lru_cache

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    FUNCTION_WORD_ZIPF,
    NAME_LOCALES,
    NATIONALITIES,
    VOCAB_ZIPF,
    countries,
    inflected_vocabulary,
    is_place,
    is_place_or_calendar,
    is_vocabulary,
)
from agentic_pipeline.masking.vocabulary import LW as _LW
from agentic_pipeline.masking.vocabulary import STOP_WORDS as _STOP
from agentic_pipeline.masking.vocabulary import UP as _UP

#: Score of a name found by its structure or context (self-introduction, title, listed name
#: pair, "call me X"): above spaCy's 0.85, because Presidio drops a detection contained in a
#: same-type one with an equal or higher score, and a spaCy span later found to be vocabulary
#: ("Marius Bang" with "Bang") would take the structural evidence with it.
NAME_EVIDENCE_SCORE = 0.9

#: Words that are names in some locale but far more often ordinary words or labels: never a name
#: alone from the gazetteer.
COMMON_WORDS = frozenset(
    """
a an the and or of to in on at by for with from as is are was be been this that it its my your
our their his her me you we they he she him them i not no yes all any can will may june april
august rose grant page hope joy faith guy bill mark will may art dean lane wood street park hill
king brown white black green young long short price case call cabin seat flight order item
modify cancel change book booking phone email name address salesperson orchestra manager user
agent assistant customer system tool policy status date time total amount payment card number
new san los las fort west east north south saint gift check basic economy business first last
gold silver platinum premium regular express standard delivery return exchange refund travel
visa mastercard amex paypal
""".split()
)


@lru_cache(maxsize=1)
def _listed_names() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), folded lower-case, from Faker's locale providers (offline),
    common words included ("Guy", "Mark")."""
    import importlib

    firsts: set[str] = set()
    lasts: set[str] = set()
    for loc in NAME_LOCALES:
        try:
            prov = importlib.import_module(f"faker.providers.person.{loc}").Provider
        except (ImportError, AttributeError):
            continue
        for attr, dest in (
            ("first_names", firsts),
            ("first_names_male", firsts),
            ("first_names_female", firsts),
            ("first_names_nonbinary", firsts),
            ("last_names", lasts),
            ("last_names_without_suffix", lasts),
        ):
            vals = getattr(prov, attr, ())
            for v in vals.keys() if isinstance(vals, dict) else vals:
                for part in str(v).split():
                    if len(part) >= 2:
                        dest.add(fold(part))
    return frozenset(firsts), frozenset(lasts)


@lru_cache(maxsize=1)
def name_gazetteer() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), folded lower-case, from Faker's locale providers (offline),
    without the ``COMMON_WORDS``.

    Faker is used here as a *public name list*. An evaluation corpus of names must therefore not
    be drawn from Faker (it would measure this list against itself): the outsider benchmark's
    multi-locale corpus has to take its names from another source."""
    firsts, lasts = _listed_names()
    return frozenset(firsts - COMMON_WORDS), frozenset(lasts - COMMON_WORDS)


def is_name_pair(first: str, last: str) -> bool:
    """A listed first name followed by a listed last name or a surname ending, any case."""
    firsts, lasts = name_gazetteer()
    a, b = fold(first), fold(last)
    return (
        a in firsts
        and b not in COMMON_WORDS
        and (b in lasts or _SURNAME_END_RE.search(b) is not None)
    )


@lru_cache(maxsize=1)
def _all_names() -> frozenset[str]:
    firsts, lasts = name_gazetteer()
    return firsts | lasts


@lru_cache(maxsize=1)
def _all_listed() -> frozenset[str]:
    firsts, lasts = _listed_names()
    return firsts | lasts


def listed_name(word: str) -> bool:
    """``word`` is in the first- or last-name lists (common words included)."""
    w = fold(word)
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    return w in _all_listed()


def not_a_name_word(word: str, languages: tuple[str, ...] = ("en",), calendar: bool = True) -> bool:
    """``word`` is common vocabulary of ``languages`` that no name list has, a place or
    nationality, a calendar word (unless ``calendar`` is false: "Mai", "Jan" in a name's
    context), or a stop word: it cannot be (part of) a person name by itself."""
    f = fold(word).strip("'’.-")
    if f.endswith(("'s", "’s")):
        f = f[:-2]
    return (
        f in _STOP
        or f in COMMON_WORDS
        or (is_place_or_calendar(f) if calendar else is_place(f))
        or (is_vocabulary(f, VOCAB_ZIPF, languages) and not listed_name(f))
    )


_NAME_TOKEN = rf"[{_UP}{_LW}][{_UP}{_LW}'’-]*"
#: Two words on one line (a name is never split over a line break: "Reykjavík\nIceland").
_NAME_PAIR_RE = re.compile(rf"(?<![\w@.])({_NAME_TOKEN})[ \t]+({_NAME_TOKEN})(?![\w@])")
#: Surname endings common in Europe (patronymics and family-name suffixes).
_SURNAME_END_RE = re.compile(
    r"(?:sson|sdóttir|dóttir|dottir|sen|ssen|ová|ski|ska|cki|cka|dzki|wicz|icz|escu|opoulos|"
    r"akis|idis|ić|ič|vić|enko|chuk|ovich|ovna|ová|sdatter|ov|ev|ova|eva|yev|vich|dze|shvili|"
    r"oğlu|oglu)$"
)
#: English titles in any case ("ms. Naile"), the others capitalised.
_TITLE_RE = re.compile(
    rf"(?<!\w)(?:(?i:mr|mrs|ms|miss|mx|dr|prof)|Herr|Frau|Hr|Fr|M|Mme|Mlle|Sr|Sra|Srta|Sig|"
    rf"Sig\.ra|Dott|Pan|Pani|Dhr|Mevr)\.?[ \t]+((?:[{_UP}][{_LW}'’-]+)"
    rf"(?:[ -][{_UP}][{_LW}'’-]+){{0,2}})"
)
_TITLE_WORDS = frozenset(
    "mr mrs ms miss mx dr prof herr frau hr fr m mme mlle sr sra srta sig dott pan pani dhr mevr "
    "sir madam lady lord".split()
)


_NAME_SINGLE_RE = re.compile(
    rf"(?<![\w@.#/_-])([{_UP}][{_LW}]+(?:['’](?!s\b)[{_UP}{_LW}][{_LW}]+)?(?:-[{_UP}][{_LW}]+)?)"
    r"(?![\w@_-])"
)
_LAST_FIRST_RE = re.compile(rf"(?<![\w@.])([{_UP}][{_LW}'’-]+), ([{_UP}][{_LW}'’-]+)(?![\w@])")
#: A single capitalised word after these is more often a place ("flight to Houston").
_PLACE_BEFORE_RE = re.compile(
    r"(?i)(?:\b(?:from|to|in|via|into|near|at the|of the)|\b\d{4,5}|\b[A-Z]{2} ?\d{3,4})\s+$"
)  # ... or after a postcode: "28001 Sevilla"
#: A capitalised pair followed by one of these is an organisation ("Eden Lawn Service").
_ORG_NEXT_RE = re.compile(
    r"\s+(?:&|(?:and Sons|Bros|Service|Services|Inc|Ltd|LLC|GmbH|AG|SA|Company|Co|Corp|"
    r"Corporation|Group|Bank|"
    r"Club|Hotel|Restaurant|Airlines?|Foundation|Institute|University|School|Partners)\b)"
)
#: After a name at the start of a sentence: a possessive, a comma, a speaker's colon or a verb
#: that has a person as subject.
_NAME_FOLLOW_RE = re.compile(
    r"'s\b|’s\b|,|:[ \t]*\S| (?:is|was|has|had|said|says|shouted|asked|told|wrote|spent|began|"
    r"lives|lived|works|worked|went|studied|grew|moved|joined|replied|answered)\b"
)
#: Words before a name that start a sentence without being part of it ("Hi Anna", "Dear Ann").
_GREETINGS = frozenset(
    "hi hello hey dear dearest thanks thank bye goodbye welcome congratulations cheers howdy "
    "morning evening sorry yes no ok okay well".split()
)
#: The capitalised word right after a word (same line, one space) and right before it.
_NEXT_WORD_RE = re.compile(rf"[ \t]([{_UP}][{_UP}{_LW}'’-]*)")
_PREV_WORD_RE = re.compile(rf"([{_UP}][{_UP}{_LW}'’-]*)[ \t]$")


def _sentence_start(text: str, pos: int) -> bool:
    """``pos`` opens a sentence, a line or a quotation."""
    before = text[max(0, pos - 80) : pos].rstrip(" \t")
    return not before or before[-1] in ".!?:\n\"'>“(*-"


def _in_proper_noun(text: str, start: int, end: int) -> bool:
    """The word at ``[start, end)`` stands beside another capitalised word that is no listed
    name: part of a company, place or title ("Bennett Brothers", "Labor Day", "New York",
    "Amazon Alexa", "Power Source"). A greeting or title before it does not count."""
    word = text[start:end]
    nxt = _NEXT_WORD_RE.match(text, end)
    if nxt and (
        not listed_name(nxt.group(1))
        and fold(nxt.group(1)) not in _TITLE_WORDS
        or is_place_or_calendar(f"{word} {nxt.group(1)}")  # "Costa Rica"
    ):
        return True
    prev = _PREV_WORD_RE.search(text, max(0, start - 40), start)
    if prev is None:
        return False
    if is_place_or_calendar(f"{prev.group(1)} {word}"):
        return True
    p = fold(prev.group(1)).rstrip(".")
    return not (p in _GREETINGS or p in _TITLE_WORDS or listed_name(prev.group(1)))


def spacy_non_persons(
    nlp_artifacts: NlpArtifacts | None,
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """spaCy's place spans (GPE, LOC) and all its non-person spans (places, FAC, ORG, NORP,
    PRODUCT: the small model often labels unknown names so, which vetoes single words)."""
    ents = getattr(nlp_artifacts, "entities", None) or ()
    places = [(e.start_char, e.end_char) for e in ents if e.label_ in ("GPE", "LOC")]
    others = [
        (e.start_char, e.end_char)
        for e in ents
        if e.label_ in ("GPE", "LOC", "FAC", "ORG", "NORP", "PRODUCT")
    ]
    return places, others


class PersonRecognizer(LocalRecognizer):
    """Base of the name recognizers: reports ``PERSON`` only and has nothing to load."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PERSON"], name=type(self).__name__)

    def load(self) -> None:  # noqa: D102
        pass


class NameGazetteerRecognizer(PersonRecognizer):
    """Person names spaCy misses: "cecilie josefsen", "Csanád Bernharðsson" (a listed name next
    to a last name or a capitalised word that is no vocabulary, any case), "Kordus, Anna", a
    capitalised name after a title ("Frau Müller", "ms. Naile") and single listed names."""

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report gazetteer name pairs and titled names (``NAME_EVIDENCE_SCORE``) and single
        capitalised gazetteer names (0.55: masked where they stand, never propagated; at a
        sentence start only before "'s", a comma, a colon or a verb like "is", "said")."""
        if entities and "PERSON" not in entities:
            return []
        # spaCy's non-person entities (places, organisations, products) veto a gazetteer hit:
        # "Houston", "York" and "Atlanta" are surnames too
        places, others = spacy_non_persons(nlp_artifacts)
        out = self._pairs(text, places)
        out += self._last_first(text)
        out += self._singles(text, others, out)
        for m in _TITLE_RE.finditer(text):
            # a titled name ends at its possessive: "Mr. Steak's Tom Leonard" owns a person
            end = min((m.start(1) + i + 2 for i in _possessives(m.group(1))), default=m.end(1))
            if not not_a_name_word(m.group(1).split()[0]):
                out.append(RecognizerResult("PERSON", m.start(1), end, NAME_EVIDENCE_SCORE))
        return out

    @staticmethod
    def _pairs(text: str, places: list[tuple[int, int]]) -> list[RecognizerResult]:
        """Two words: both lower-case and a listed first + last name, or both capitalised with
        one listed name and the other no vocabulary ("Guy Migneault", "Gauthier Chenard")."""
        firsts, lasts = name_gazetteer()
        all_firsts, all_lasts = _listed_names()
        out, pos = [], 0
        while (m := _NAME_PAIR_RE.search(text, pos)) is not None:
            wa, wb = m.group(1), m.group(2)
            a, b = fold(wa), fold(wb)
            upper = wa[0].isupper() and wb[0].isupper()
            lower = wa.islower() and wb.islower()
            surname = b in lasts or _SURNAME_END_RE.search(b) is not None
            listed = a in firsts and b in lasts  # both listed: no spaCy veto needed
            ok = False
            if b in COMMON_WORDS or _ORG_NEXT_RE.match(text, m.end()):
                ok = False
            elif lower:  # "cecilie josefsen"; not "julio de" (a month and a particle)
                ok = (
                    a in firsts
                    and surname
                    and len(b) > 2
                    and b not in _STOP
                    and not is_place_or_calendar(a)
                    and not is_place_or_calendar(b)
                )
            elif upper and not is_place_or_calendar_pair(wa, wb):
                vetoed = any(s < m.end() and m.start() < e for s, e in places)
                # b could be a name (a plural noun is a business: "Castro Convertibles")
                b_word = not not_a_name_word(wb) and not (
                    inflected_vocabulary(b) and not listed_name(wb)
                )
                nxt = _NEXT_WORD_RE.match(text, m.end())
                if (
                    (a in _STOP and not surname)
                    or (len(wa) > 1 and wa.isupper() != wb.isupper())  # "My IBAN", "USB Power"
                    or (nxt is not None and _vocab(nxt.group(1), VOCAB_ZIPF))  # "... Source"
                    or (
                        _THE_BEFORE.search(text, max(0, m.start() - 6), m.start())
                        and is_vocabulary(wb, _PAIR_VOCAB_ZIPF, ("en",))
                    )
                ):
                    ok = False  # "the Jolly Farmer" ("Else Kowalczyk" is a name)
                elif is_vocabulary(wa, FUNCTION_WORD_ZIPF):  # "Die Buchung", "New York"
                    ok = a in all_firsts and surname
                elif a in all_firsts and a not in _TITLE_WORDS:  # "Guy Migneault", "Maciej Sus"
                    ok = surname or b in firsts or b_word or not _vocab(wb, _PAIR_VOCAB_ZIPF)
                elif not not_a_name_word(wa):
                    ok = (
                        (a in all_lasts and b_word and not listed_name(wb))  # "Gauthier Chenard"
                        or (b in lasts and not is_vocabulary(wb, 4.5))  # "Itamar Cohen"
                        or _SURNAME_END_RE.search(b) is not None  # "Csanád Bernharðsson"
                    )
                ok = ok and (listed or not vetoed)
            if ok:
                out.append(RecognizerResult("PERSON", m.start(), m.end(), NAME_EVIDENCE_SCORE))
                pos = m.end()
            else:
                pos = m.start(2)
        return out

    @staticmethod
    def _last_first(text: str) -> list[RecognizerResult]:
        """ "Kordus, Anna" in lists and forms: a word that can be a name (no vocabulary, no
        possessive: "Service, Eden" and "Brannam's, Anna" are not) and a listed first name."""
        firsts, _ = name_gazetteer()
        out = []
        for m in _LAST_FIRST_RE.finditer(text):
            last = m.group(1)
            if last.endswith(("'s", "’s")) or not_a_name_word(last):
                continue
            if fold(m.group(2)) in firsts:
                out.append(RecognizerResult("PERSON", m.start(1), m.end(2), NAME_EVIDENCE_SCORE))
        return out

    @staticmethod
    def _singles(
        text: str, others: list[tuple[int, int]], found: list[RecognizerResult]
    ) -> list[RecognizerResult]:
        """Single capitalised listed names, not part of a longer proper noun."""
        all_names = _all_names()
        out = []
        for m in _NAME_SINGLE_RE.finditer(text):
            word = m.group(1)
            f = fold(word)
            s, e = m.start(1), m.end(1)
            if word.isupper() or f in COMMON_WORDS or f in _STOP or f not in all_names:
                continue
            if any(a < e and s < b for a, b in others) or _PLACE_BEFORE_RE.search(
                text, max(0, s - 12), s
            ):
                continue
            if any(r.start <= s < r.end for r in found):
                continue
            if is_place_or_calendar(word) or _in_proper_noun(text, s, e):
                continue
            if (
                _THE_BEFORE.search(text, max(0, s - 6), s)
                and not _LOWER_NEXT.match(text, e)
                or _OWNED_NEXT.match(text, e)
            ):
                continue  # "The Wall", "The Fox" ("the Lauritsen novel" is a name); "Walt's IGA"
            if _sentence_start(text, s) and not _NAME_FOLLOW_RE.match(text, e):
                continue
            out.append(RecognizerResult("PERSON", s, e, 0.55))
        return out


def _possessives(value: str) -> list[int]:
    """Positions of the possessive "'s" followed by another word inside ``value``."""
    return [m.start() for m in re.finditer(r"['’]s(?= )", value)]


def is_place_or_calendar_pair(a: str, b: str) -> bool:
    """Both words together are a country or a date ("Costa Rica", "May Monday"), or either is a
    country or nationality ("Jan" and "June" are first names too)."""
    places = countries() | NATIONALITIES
    return is_place_or_calendar(f"{a} {b}") or fold(a) in places or fold(b) in places


_THE_BEFORE = re.compile(r"(?i)(?<!\w)(?:the|a|an)[ \t]+$")
#: A possessive followed by a capitalised word: a business named after its owner.
_OWNED_NEXT = re.compile(rf"['’]s[ \t]+[{_UP}]")
_LOWER_NEXT = re.compile(rf"[ \t]+[{_LW}]")
#: After a listed first name, a second word is a surname unless it is this frequent in English
#: ("Rose Garden", "Bennett Brothers"; "Maciej Sus" is a name).
_PAIR_VOCAB_ZIPF = 3.5


def _vocab(word: str, threshold: float) -> bool:
    """An unlisted English word ("Garden" in "Rose Garden"; "Sus" is Spanish, and a surname)."""
    return is_vocabulary(word, threshold, ("en",)) and not listed_name(word)
