"""Person detections corrected with the other detections of the same string.

Each recognizer sees one pattern; here the person spans of one string are checked against its
street, postcode and other person spans (issue #12, recall and precision of names):

* a "person" right after a street line or a postcode, or right before a postcode, is the city
  of an address block ("Tylova 285, Ostrov nad Ohrí, 363 01", "28001 Palencia");
* a spaCy "person" made only of common vocabulary ("Discipline", "Guilty Pleasures"), a
  country, nationality or month ("Cyprus", "English") is dropped; a leading role word is trimmed
  ("Producer Abner Reyna" -> "Abner Reyna"; a trailing one may be a surname: "Brenda Lemon"); an
  unlisted name after "in", "from", "flew to" is a place ("flew to Tallinn");
* a spaCy "person" of unlisted English words ("Beaver Lumber") or ending in a plural noun
  ("Dynatronics Accessories") is a business; a name after "home city" is the city; a name given as
  one stays even when it is a place word ("My name is German"); a listed first name before an
  unknown word ("Ella Gawler") or a particle before one ("van Roekel") stays a name, and so does
  a person owning something after "from" ("the verses from Renátó Mejer's Cautionary Tales");
* a capitalised word right beside a person span that can be a name joins it ("Freddie" before a
  detected surname);
* every other occurrence, in the same string, of a word of a person span is masked too
  ("Takaya, Takaya and Takaya"; "Chenard" found once in a pair and once alone).
"""

from __future__ import annotations

import re

from agentic_pipeline.masking.engine import Span
from agentic_pipeline.masking.json_walker import key_entity
from agentic_pipeline.masking.name_shape import unknown_word
from agentic_pipeline.masking.names import (
    _ORG_NEXT_RE,
    _listed_names,
    is_name_pair,
    listed_name,
    name_gazetteer,
    not_a_name_word,
)
from agentic_pipeline.masking.pseudonyms import fold
from agentic_pipeline.masking.vocabulary import (
    FUNCTION_WORD_ZIPF,
    GOING_VERBS,
    LANGUAGES,
    LEADING_VOCAB_ZIPF,
    TRIMMED_ZIPF,
    inflected_vocabulary,
    is_place,
    is_place_or_calendar,
    is_vocabulary,
)

_ADDRESS_TYPES = frozenset({"STREET_ADDRESS", "ZIP_CODE"})
#: Between a street line or postcode and the city that follows it (same line or next lines).
_AFTER_ADDRESS_GAP = re.compile(r"[\s,>]{1,12}")
#: A street line, then the start of the next line before the city ("Suite 479\n Ruda ").
_NEXT_LINE_GAP = re.compile(r"[ \t,]*\n[ \t>]*(?:[^\W\d_][^\W\d_'’.-]*[ \t]+){1,3}")
#: The end of a line and the start of the next non-empty one.
_NEXT_LINE = re.compile(r"[ \t,]*\n[\s>]*")
#: Between a city and the postcode that follows it, on one line (a name line above an address
#: block that starts with a house number is no city).
_BEFORE_ZIP_GAP = re.compile(r"[ \t]*,?[ \t]*")
#: Before a place: "in", "from", "near", "via", and verbs of going or being somewhere.
_PLACE_PREPOSITION = re.compile(
    r"(?i)(?<!\w)(?:in|from|into|near|via|(?:arrived?|arriving|located|based|landed|stopped)"
    rf" (?:at|in)|(?:{GOING_VERBS}|return) to|grew up in)[ \t]+$"
)
_OWNED_NEXT = re.compile(r"['’]s[ \t]+[A-ZÀ-ÖØ-ÞĀ-Ž]")
_DIGIT = re.compile(r"\d")
#: A spaCy person span made only of unlisted English words this frequent is a business or a
#: title ("Beaver Lumber"); names that are words are listed ("Rose", "Young").
ENGLISH_WORD_ZIPF = 3.3
#: Right before a name given as one: "My name is", "her maiden name was", "surname:".
_NAMED_BEFORE = re.compile(r"(?i)(?<!\w)(?:name|surname)(?:[ \t]+(?:is|was)|['’]s|:)[ \t]+$")
#: A field label right before a value: "Material: ", "**Color:** ".
_LABEL_BEFORE = re.compile(r"(?<![\w-])([A-Za-z][\w ]{0,30}?)\**:\**[ \t]*\**[ \t]*$")
_WORDS = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*")
_CAP_WORD = re.compile(r"[^\W\d_][^\W\d_'’-]*")
#: Detectors whose person spans are structural evidence, not corrected here.
_KEEP = frozenset({"SelfIntroductionRecognizer", "NameContextRecognizer", "AddressBlockRule"})


def _person(span: Span) -> bool:
    return span[2] == "PERSON"


def _is_city(text: str, span: Span, address: list[Span]) -> bool:
    """Right after a street line or postcode on the same line, or on the next line when the
    address goes on after it (a postcode or a country follows); or right before a postcode."""
    s, e = span[0], span[1]
    for a in address:
        if a[2] == "ZIP_CODE" and a[0] >= e and _BEFORE_ZIP_GAP.fullmatch(text, e, a[0]):
            return True
        if a[1] <= s and (gap := _AFTER_ADDRESS_GAP.fullmatch(text, a[1], s)):
            if "\n" not in gap.group() or _address_goes_on(text, e, address):
                return True
        elif a[1] <= s and _NEXT_LINE_GAP.fullmatch(text, a[1], s):
            if _address_goes_on(text, e, address):  # "Suite 479\n Montealegre del Castillo"
                return True
    return False


def _address_goes_on(text: str, end: int, address: list[Span]) -> bool:
    """The line after ``end`` holds a postcode or starts with a country ("Spain 2650")."""
    m = _NEXT_LINE.match(text, end)
    if m is None:
        return False
    if any(a[2] == "ZIP_CODE" and m.end() <= a[0] < m.end() + 40 for a in address):
        return True
    words = _WORDS.findall(text, m.end(), min(len(text), m.end() + 40))
    return any(is_place_or_calendar(" ".join(words[:k])) for k in (1, 2, 3) if len(words) >= k)


def _vocabulary_fix(text: str, span: Span) -> Span | None:
    """A spaCy person span without its vocabulary: None when nothing of a name is left."""
    s, e = span[0], span[1]
    if "\n" in text[s:e]:  # a name never crosses a line: "Alert Alarm Company\nCtra"
        first = text[s:e].strip("\n").split("\n", 1)[0]
        s = text.index(first, s) if first else s
        e = s + len(first)
    digit = _DIGIT.search(text, s, e)
    if digit:  # names have no digits: "van 6 juli 1974" keeps "van" (then found lower-case)
        e = digit.start()
    words = list(_WORDS.finditer(text, s, e))
    if not words:
        return None
    value = text[s:e]
    if is_place_or_calendar(value) or (
        is_place_or_calendar(words[0].group()) and not _first_name_pair(words)
    ):
        return None
    if all(
        not_a_name_word(w.group(), LANGUAGES) or is_vocabulary(w.group(), FUNCTION_WORD_ZIPF)
        for w in words
    ):
        return None  # "Die Bestellung": "Die" is a listed name, but mostly an article
    if (
        len(words) == 2
        and is_vocabulary(words[0].group(), FUNCTION_WORD_ZIPF)
        and not listed_name(words[1].group())
        and not (
            unknown_word(words[1].group())
            and (words[0].group().islower() or listed_name(words[0].group()))
        )
    ):  # ("van Roekel", "Ella Gawler": a particle or first name before an unknown word)
        return None  # "Die Buchung", "Der Vertrag": an article and a noun ("de Vries" stays)
    if len(words) == 1 and is_vocabulary(words[0].group()):  # listed or not ("Glass")
        label = _LABEL_BEFORE.search(text, max(0, s - 40), s)
        if label and key_entity(label.group(1)) is None:
            return None  # the value of a field that is no person's: "**Material:** Glass"
    if len(words) > 1 and all(
        is_vocabulary(w.group(), ENGLISH_WORD_ZIPF, ("en",)) and not listed_name(w.group())
        for w in words
    ):
        return None  # English words no name list has: "Beaver Lumber", "Golden Joy"
    last, first = words[-1].group(), fold(words[0].group())
    if (
        len(words) > 1
        and not listed_name(last)
        and inflected_vocabulary(fold(last))
        and first not in name_gazetteer()[0]
    ):
        return None  # a business: "Dynatronics Accessories" ("Elena Peoples" is a name)
    n = len(words)
    while len(words) > 1 and _role(words[0].group()):  # "Producer Abner Reyna"
        words.pop(0)
    if len(words) < n and len(words) == 1:  # "Alert Alarm Company", "Guilty Pleasures"
        w = words[0].group()
        if is_vocabulary(w, TRIMMED_ZIPF) and not listed_name(w) or is_vocabulary(w, 5.0):
            return None
    s, e = words[0].start(), words[-1].end()
    if text[e : e + 2] in ("'s", "’s"):
        e += 2
    owner = text[e - 2 : e] in ("'s", "’s")  # "the verses from Nazhmuddin Ibragimov's"
    if not any(listed_name(w.group()) for w in words) and not owner and _place_run_before(text, s):
        return None  # "grew up in Zgornji Leskovec", "flew to Tallinn", "from Granja do Tedo"
    if len(words) == 1 and _OWNED_NEXT.match(text, words[-1].end()):
        return None  # "Walt's IGA": a business named after its owner
    return (s, e, *span[2:])


def _first_name_pair(words: list[re.Match[str]]) -> bool:
    """Two words, a listed first name that is also a place or month and a surname ("Jordan
    Pettersson", "Jan Kowalski"; not "Jordan Valley")."""
    if len(words) != 2:
        return False
    first, last = fold(words[0].group()), words[1].group()
    return (
        first in _listed_names()[0]
        and not is_place_or_calendar(last)
        and (fold(last) in name_gazetteer()[1] or unknown_word(last))
    )


def _role(word: str) -> bool:
    """A frequent English word that no name list has: a role or adjective beside a name."""
    return is_vocabulary(word, LEADING_VOCAB_ZIPF) and not listed_name(word)


def _widen(text: str, span: Span, taken: list[tuple[int, int]]) -> Span:
    """Join a capitalised word right before or after the span that can be a name."""
    s, e = span[0], span[1]
    before = re.search(r"([^\W\d_][^\W\d_'’-]*)[ \t]$", text[max(0, s - 40) : s])
    if before:
        w = before.group(1)
        a = s - len(before.group(0))
        hyphened = a > 0 and text[a - 1] in "-‐"  # "ex-Zombie Berky": a prefix's word
        if (
            w[0].isupper()
            and not hyphened
            and not not_a_name_word(w)
            and not any(x < s and a < y for x, y in taken)
        ):
            s = a
    after = re.match(r"[ \t]([^\W\d_][^\W\d_'’-]*)", text[e : e + 40])
    if after and not text[s:e].endswith(("'s", "’s")):  # "Zoe Young's Cautionary Tales"
        w = after.group(1)
        b = e + len(after.group(0))
        if (
            w[0].isupper()
            and not w.endswith(("'s", "’s"))
            and not not_a_name_word(w)
            and not any(x < b and e < y for x, y in taken)
        ):
            e = b
    return (s, e, *span[2:])


#: A line of two or three capitalised words (a name line of a letter head or address block).
_NAME_LINE = re.compile(
    r"(?m)^[^\w\n]*((?:[^\W\d_][^\W\d_'’-]+)(?:[ \t]+[^\W\d_][^\W\d_'’-]+){1,2})[ \t]*$"
)
#: Name found on the top line of an address block (see ``_address_block_names``).
ADDRESS_BLOCK_NAME = "AddressBlockRule"


def _address_block_names(text: str, spans: list[Span]) -> list[Span]:
    """The name line heading an address block: two or three capitalised words that can be names
    on one line, with a street line or a country within the next three lines ("Yuito Hirai\n\n
    2347 Lauzon Parkway", "Khazani Shishani\n\nKatowice\nPoland")."""
    streets = [sp for sp in spans if sp[2] == "STREET_ADDRESS"]
    taken = [(sp[0], sp[1]) for sp in spans]
    out: list[Span] = []
    for m in _NAME_LINE.finditer(text):
        s, e = m.start(1), m.end(1)
        words = m.group(1).split()
        if any(not w[0].isupper() or w.isupper() or not_a_name_word(w) for w in words):
            continue
        if is_place_or_calendar(m.group(1)) or any(x < e and s < y for x, y in taken):
            continue
        below = text[e:].split("\n", 5)[1:5]
        nxt = _WORDS.findall(next((ln for ln in below if ln.strip(" \t>")), ""))
        if any(is_place_or_calendar(" ".join(nxt[:k])) for k in (1, 2, 3) if len(nxt) >= k):
            continue  # the city line above its country ("Agios Epiktitos\nCyprus 9500")
        ends = [sp[1] for sp in spans if _person(sp)] + [sp[1] for sp in out]
        if any(x < s and 1 <= text.count("\n", x, s) <= 2 for x in ends):
            continue  # the line under the block's name line is the company ("Wise Appraisals")
        end_below = e + sum(len(x) + 1 for x in below)
        if any(e < sp[0] <= end_below for sp in streets) or any(
            is_place_or_calendar(" ".join(_WORDS.findall(line)[:3])) for line in below
        ):
            out.append((s, e, "PERSON", 0.7, ADDRESS_BLOCK_NAME))
    return out


def _place_run_before(text: str, start: int, rx: re.Pattern[str] = _PLACE_PREPOSITION) -> bool:
    """A place word ("in", "grew up in", "flew to") before the proper-noun run ending at
    ``start`` ("grew up in Ventosa del Río Almar")."""
    m = _RUN_BEFORE.search(text, max(0, start - 80), start)
    return m is not None and rx.search(text, max(0, m.start() - 24), m.start()) is not None


#: Verbs whose object is always a place, never a person, even when its words are listed names
#: ("flew to Hella", "grew up in Cusano Milanino").
_ONLY_PLACE = re.compile(
    r"(?i)(?<!\w)(?:(?:flew|fly|flying|flies|travel+ed|travel+ing|drove|driving) to|grew up in|"
    r"(?:was|were) born in|(?:lives|lived|living) in|city|town|village|capital|hometown)[ \t]+$"
)  # ("home city Ljubljana")


#: Capitalised words and lower-case particles right before a position, on one line.
_RUN_BEFORE = re.compile(
    r"(?:(?:[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_'’.-]*|de|del|da|do|dos|das|di|della|la|le|el)[ \t]+){0,4}$"
)


#: "<person> of <X>": X is the person's employer or organisation ("Maisie Rees of Realty Depot",
#: "Tom Leonard of Mr. Steak"), never a second person.
#: Between an owner and the person after it: "Realty Depot's Maisie Rees".
_OWNER_GAP = re.compile(r"((?:['’]s)+)?[ \t]+")
_OF_BEFORE = re.compile(r"[ \t]+of[ \t]+(?:(?:Mr|Mrs|Ms|Dr)\.?[ \t]+)?$")
#: An organisation word right after the span, maybe after one more capitalised word ("... Almar
#: Country Club", "Jacob Reed and Sons", "Cherry & Webb").
_ORG_AFTER = re.compile(
    r"(?:[ \t]+[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*)?" + _ORG_NEXT_RE.pattern.replace(r"\s+", r"[ \t]+", 1)
)


def _organisation(text: str, span: Span, persons: list[Span]) -> bool:
    """The span names an organisation, not a person: an affiliation after "<person> of" or
    owning the person after it ("Realty Depot's Maisie Rees"), an organisation word after it or
    at its end ("Road Runner Lawn Services"), or an "&" in it."""
    s, e = span[0], span[1]
    before = _OF_BEFORE.search(text, max(0, s - 16), s)
    if before and any(p[1] == before.start() for p in persons):
        return True
    gap = _OWNER_GAP.match(text, e)
    owner = text[s:e].endswith(("'s", "’s")) or (gap is not None and gap.group(1) is not None)
    if owner and gap is not None and any(p[0] == gap.end() and _nameish(text, p) for p in persons):
        return True  # (not before a vocabulary "person": "Ibragimov's Cautionary Tales")
    if "&" in text[s:e] or _ORG_AFTER.match(text, e) or text[max(0, s - 2) : s] == "& ":
        return True
    last = _CAP_WORD.findall(text, s, e)
    return bool(last) and _ORG_NEXT_RE.fullmatch(" " + last[-1]) is not None


def _nameish(text: str, span: Span) -> bool:
    """A person span with a listed name or a word no word list has ("Maisie Rees", not
    "Tales")."""
    return any(listed_name(w) or unknown_word(w) for w in _WORDS.findall(text, span[0], span[1]))


def _whole_line(text: str, s: int, e: int) -> bool:
    """``[s, e)`` is all the words of its line."""
    a, b = text.rfind("\n", 0, s) + 1, text.find("\n", e)
    b = len(text) if b < 0 else b
    return not _WORDS.search(text, a, s) and not _WORDS.search(text, e, b)


def _company_line(text: str, span: Span, persons: list[Span], address: list[Span]) -> bool:
    """A whole line right under a name line, above a street line or postcode: the company
    line of an address block ("Lydia Reid\nWise Appraisals\nEötvös út 10.")."""
    s, e = span[0], span[1]
    if not address or not _whole_line(text, s, e):
        return False
    words = _WORDS.findall(text, s, e)
    if len(words) == 2 and is_name_pair(*words):
        return False  # a second person ("Anna Smith\nBob Jones\nHauptstraße 3")
    above = any(
        p[1] < s and 1 <= text.count("\n", p[1], s) <= 2 and _whole_line(text, p[0], p[1])
        for p in persons
    )
    return above and any(e < a[0] and text.count("\n", e, a[0]) <= 3 for a in address)


def refine_spans(text: str, spans: list[Span]) -> list[Span]:
    """The detections of ``text`` with the person spans corrected (see module doc); sorted."""
    if "\n" in text:
        spans = spans + _address_block_names(text, spans)
    if not any(_person(sp) for sp in spans):
        return spans
    address = [sp for sp in spans if sp[2] in _ADDRESS_TYPES]
    others = [(sp[0], sp[1]) for sp in spans if not _person(sp)]
    out: list[Span] = [sp for sp in spans if not _person(sp)]
    persons: list[Span] = []
    all_persons = [sp for sp in spans if _person(sp)]
    for sp in spans:
        if not _person(sp):
            continue
        if sp[4] not in _KEEP and _organisation(text, sp, all_persons):
            continue
        value = text[sp[0] : sp[1]]
        if is_place(value) if sp[4] in _KEEP else is_place_or_calendar(value):
            if not (sp[4] in _KEEP and _NAMED_BEFORE.search(text, max(0, sp[0] - 30), sp[0])):
                continue  # "I am French" ("Jan lives on ..." is a name: a month only without
                # context; "My name is German", "her maiden name is Holland" are names)
        if sp[4] not in _KEEP:
            if address and _is_city(text, sp, address):
                continue
            if _place_run_before(text, sp[0], _ONLY_PLACE):
                continue
            if "\n" in text and _company_line(text, sp, all_persons, address):
                continue
            if sp[4] == "SpacyRecognizer":
                fixed = _vocabulary_fix(text, sp)
                if fixed is None:
                    continue
                sp = fixed
            elif (
                sp[3] < 0.6
                and text[sp[1] : sp[1] + 2] not in ("'s", "’s")  # "from Renátó Mejer's book"
                and _place_run_before(text, sp[0])
            ):
                continue  # a single listed name inside a place: "in Ventosa del Río Almar"
        persons.append(_widen(text, sp, others))
    # every occurrence in this string of a word of a person span
    words: dict[str, Span] = {}
    for sp in persons:
        for w in _CAP_WORD.finditer(text, sp[0], sp[1]):
            word = w.group()
            if len(word) >= 3 and word[0].isupper() and not not_a_name_word(word):
                words.setdefault(fold(word), sp)
    extra: list[Span] = []
    if words:
        covered = [(sp[0], sp[1]) for sp in persons] + others
        rx = re.compile(
            r"(?<![\w@.])("
            + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
            + r")(?!\w)"
        )
        for m in rx.finditer(fold(text)):
            a, b = m.start(), m.end()
            if not text[a].isupper() or any(x < b and a < y for x, y in covered):
                continue
            src = words[m.group()]
            extra.append((a, b, "PERSON", src[3], src[4]))
    return sorted(set(out + persons + extra))
