"""Why a span spaCy calls a person looks like no person (``non_person_signal``: a code, chat
words, vocabulary, a thing's or an organisation's word): ``model.NameModel`` keeps a spaCy
person unless the model and one of these signals both reject it."""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from agentic_pipeline.masking.detectors.address_fields import street_types
from agentic_pipeline.masking.detectors.data_files import alternation
from agentic_pipeline.masking.detectors.key_rules import key_entity
from agentic_pipeline.masking.detectors.label_lists import glued_label, id_labels, unaccented
from agentic_pipeline.masking.detectors.login_names import platforms
from agentic_pipeline.masking.names.features import TextFeatures
from agentic_pipeline.masking.names.fields import PERSON_LABELS
from agentic_pipeline.masking.names.layout import form_heading, form_key, greeted
from agentic_pipeline.masking.names.lexicon import (
    COMMON_WORDS,
    DATA,
    NAME_PARTICLES,
    SPAN_WORD,
    given_names_before_a_name,
    is_name_pair,
    is_title,
    listed_name,
    listed_names,
    listed_non_name,
    listed_not_word,
    not_a_name_word,
    read_lines,
)
from agentic_pipeline.masking.names.words import HAS_DIGIT, wordlike
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    MONTHS,
    STOP_WORDS,
    VOCAB_ZIPF,
    WEEKDAYS,
    WORD_LANGUAGES,
    compound_word,
    european_stop_words,
    foreign_stop_word,
    foreign_word,
    international,
    is_city,
    is_place,
    is_vocabulary,
    language_word,
    zipf,
)

#: Words that make a capitalised phrase an organisation or a product ("... Airlines", "... Inc",
#: "... Bank"): ``data/organisation_words.txt``.
ORGANISATION_WORDS = read_lines(DATA / "organisation_words.txt")
#: Legal forms that end a company's name ("... Interiors Ltd", "... B.V."):
#: ``data/legal_forms.txt``.
LEGAL_FORMS = read_lines(DATA / "legal_forms.txt")
#: Words between a span and a legal form after it (``_legal_form_after``).
_WORDS_TO_FORM = 2
#: A label's colon before a number or an amount ("Price: $105", "Total = 3"), maybe in Markdown
#: emphasis as agents write labels ("**Price:** $105", "**Price**: **$105**").
_NUMBER_AFTER_LABEL = re.compile(r"[ \t*_]*[:=][ \t*_]*[$€£¥]?[ \t]*\d")
#: A label's colon ("Payer: ...", "**Payer**: ...").
_COLON_AFTER = re.compile(r"[ \t*_]*:")


#: Non-person signals (``non_person_signal``) that overrule a probability below the model's
#: propagation bar (``model.NameModel.unlike_a_person``).
STRONG_SIGNALS = frozenset(
    {
        "no-word",
        "identifier",
        "upper",
        "company",
        "business",
        "organisation",
        "place",
        "calendar",
        "city",
        "id-label",
        "number-label",
    }
)


def non_person_signal(tf: TextFeatures, start: int, end: int) -> str | None:
    """Why the span ``start:end`` of ``tf.text`` (a spaCy PERSON entity) looks like no person,
    or None: ``"no-word"`` (no name-like word: an id, a code, an e-mail address or handle; the
    words of a #tag count, ``tag_words``),
    ``"identifier"`` (a digit or an underscore in it), ``"upper"`` (all capitals: a code or a
    header; not when every word is a listed name that no language has as a word), ``"lower"``
    (all in lower case and no word of it a listed name, or a surname that is a frequent word of
    the text's language: "pls verfy", a Swedish text's "hemma"; several, in a foreign text),
    ``"vocabulary"`` (every word is vocabulary of one of the main European languages
    that no name list has, a stop word of one of them, a place or a calendar word: "Desk Lamp",
    "Ich komme aus", "Die Bestellung"), ``"language"`` (every word is a frequent word of the
    text's own language, whichever wordfreq lists, that no name list has: "Pengumuman" in an
    Indonesian text), ``"thing"`` (the last of several words is an English
    common noun that no name list has and the first is no listed first name: "Vacuum Cleaner"),
    ``"company"`` (the first or last word is an organisation word that no name list has: "Globex
    Logistics", "Klinik Brenner"; or one stands before the span, maybe with stop words between:
    "Stiftung zur Rose" (``organisation_before``); or one follows the span after a possessive or
    "&": "Marlowe's Foods", "Ashby & Sons"; or a legal form ends the capitalised words after it:
    "Quint Ltd", "<name> Interiors Ltd"), ``"business"`` (one follows it after a space:
    "Quint Bakery"; "Meet Ana Hotel staff" is a title-case sentence as often), ``"organisation"``
    (an organisation or product word elsewhere, ``data/organisation_words.txt``),
    ``"id-label"`` (every word labels an identifier, maybe with its id word glued, and no name
    list has it: "Aadhaar", "IBAN", "Kundennr";
    or one word is a key of personal data: "DOB", "Phone", "Surname"),
    ``"number-label"`` (one word that is mostly an ordinary word, ``COMMON_WORDS``, labels the
    number or amount after its colon: "Price: $105"), ``"label"`` (one word that is a person
    label, ``fields.PERSON_LABELS``, before a colon: "Payer: <name>"), ``"form-key"`` (the whole
    key of a form's field line, whatever its language, ``layout.form_key``), ``"heading"`` (on
    a form's title line, ``layout.form_heading``),
    ``"street"`` (a house number before it and a street type last in it: "14 <word> Nagar"),
    ``"calendar"`` (a month or weekday that spaCy reads as a date: "since May"),
    ``"place"`` (a country or nationality that no name list has: "Uruguay", "Danish"), ``"city"``
    (a city of 15,000 people or more that is no name: "Brno"; ``_named_place``),
    ``"elsewhere"`` (spaCy calls one of its words an organisation, product or place elsewhere in
    the text, outside this span)."""
    value = tf.text[start:end]
    ks = [
        k for k in range(bisect.bisect_right(tf.ends, start), len(tf.words)) if tf.starts[k] < end
    ]
    words = [
        tf.words[k]
        for k in ks
        if not tf.skip[k] and wordlike(tf.words[k]) and not _possessive_s(tf, k)
    ]
    words += [w for a, b, parts in tf.tags if a < end and start < b for w in parts]
    if not words:
        return "no-word"
    if HAS_DIGIT.search(value) or "_" in value:
        return "identifier"
    if all(w.isupper() for w in words) and not all(listed_not_word(w) for w in words):
        return "upper"
    firsts = listed_names()[0]
    if len(words) > 1 and tf.foreign and all(w.islower() for w in words):
        return "lower"  # a lower-case phrase of a foreign text, listed or not
    if all(w.islower() for w in words) and not any(
        listed_name(w)
        and fold(w) not in STOP_WORDS
        and (fold(w) in firsts or not language_word(w, tf.language))
        for w in words
    ):
        return "lower"
    if len(words) == 1 and len(words[0]) <= 3 and not _name_like(words[0]):
        return "short"
    if (
        len(words) == 1
        and fold(words[0]) in COMMON_WORDS
        and _NUMBER_AFTER_LABEL.match(tf.text, end)
    ):
        return "number-label"
    if len(words) == 1 and words[0].lower() in PERSON_LABELS and _COLON_AFTER.match(tf.text, end):
        return "label"
    if form_key(tf.text, start, end):
        return "form-key"  # "Emri: <value>" among a form's fields: a key in any language
    if form_heading(tf.text, start, end):
        return "heading"  # a form's title line above its fields
    folded = [fold(w).strip("'’.-") for w in words]
    if words[-1] in _street_types() and _HOUSE_NUMBER_BEFORE.search(
        tf.text, max(0, start - 16), start
    ):
        return "street"
    if organisation_word(words[-1]) or organisation_word(words[0]):
        return "company"
    if organisation_before(tf.text, start):
        return "company"
    if after := _organisation_after(tf.text, end):  # one word no given name then a business
        single = len(words) == 1 and fold(words[0]) not in firsts  # "Quill Espresso": a shop's
        return "company" if after == "business" and single else after
    if any(organisation_word(w) for w in words):
        return "organisation"
    if all((f in _one_word_id_labels() or glued_label(f)) and not listed_name(f) for f in folded):
        return "id-label"  # "Aadhaar", "IBAN", "Kundennr"
    if len(words) == 1 and _field_label(words[0]):
        return "id-label"  # "DOB", "Phone", "Surname": a field's own label
    if place := _named_place(words):
        return place
    if len(ks) == 1 and tf.ent[ks[0]] == "DATE" and fold(words[0]).strip(".") in CALENDAR_WORDS:
        return "calendar"
    if all(vocabulary_word(w, len(words) == 1, FLOOR_VOCAB_ZIPF) for w in words):
        return "vocabulary"
    if tf.language and all(_own_language_word(w, tf.language) for w in words):
        return "language"  # "Pengumuman" heading an Indonesian notice
    if len(words) > 1 and _thing_name(words, folded):
        return "thing"
    suspect = {w for w in words if tf.labels_of.get(w, set()) & _NON_PERSON_LABELS}
    if suspect:
        inside = set(ks)
        if any(
            tf.ent[k] in _NON_PERSON_LABELS and k not in inside
            for k, w in enumerate(tf.words)
            if w in suspect
        ):
            return "elsewhere"
    return None


#: The Zipf frequency from which a word of a span that the model rejects is vocabulary for the
#: floor: below ``VOCAB_ZIPF``, as a language's everyday words that are rarer in writing
#: ("Groetjes", "Betreff": 3 to 4) are no person once the model also says so. Listed names are
#: never vocabulary.
FLOOR_VOCAB_ZIPF = 3.0
#: Months and weekdays of the main European languages, folded.
CALENDAR_WORDS = MONTHS | WEEKDAYS
#: A house number right before a span, on its line ("14 <word> Nagar", "22 <word> Road").
_HOUSE_NUMBER_BEFORE = re.compile(r"(?:^|(?<=[\s,(]))\d{1,5}[A-Za-z]?[ \t]+$")


@lru_cache(maxsize=1)
def _street_types() -> frozenset[str]:
    """The street-type words of ``addresses.yaml`` as written, capitalised ("Road", "Nagar")."""
    return frozenset(street_types())


def person_parts(
    tf: TextFeatures, probs: dict[int, float], start: int, end: int, bar: float
) -> list[tuple[int, int]]:
    """The parts of the span ``start:end`` (a spaCy PERSON entity) that may be a person's name,
    each judged on its own: the span is split at a lower-case stop word of a main European
    language that is no name particle (``NAME_PARTICLES``: "<First> och <First>", "<First> und
    <First>"), and a part loses the capitalised words at its edges that are another language's
    stop words and that the model puts below ``bar`` (``_stop_word_edge``: "Soy <First>",
    "Pode <First>": a verb spaCy took in). A unit that is no candidate of the model (no key of
    ``probs``) counts as below ``bar``. A greeting and the word it greets stay one part
    (``layout.greeted``: "Ciao <name>,")."""
    if greeted(tf.text, start, end) is not None:
        # "Ciao <name>,": the greeted word is a name, whatever it means; judged with its greeting
        # (``recognizer.without_titles`` leaves the greeting out of the masked span)
        return [(start, end)]
    ks = [
        k for k in range(bisect.bisect_right(tf.ends, start), len(tf.words)) if tf.starts[k] < end
    ]
    groups: list[list[int]] = [[]]
    for k in ks:
        if between_names(tf.words[k]) and probs.get(k, 0.0) < bar:
            groups.append([])
        else:
            groups[-1].append(k)
    groups = [g for g in groups if g]
    if not groups:
        return [(start, end)]
    out = []
    for i, g in enumerate(groups):
        while len(g) > 1 and _stop_word_edge(tf, probs, g[0], bar):
            g = g[1:]
        first = len(g) > 1 and fold(tf.words[g[-2]]) in given_names_before_a_name()
        while len(g) > 1 and _stop_word_edge(tf, probs, g[-1], bar, first):
            g = g[:-1]
        a = start if i == 0 and g[0] == ks[0] else tf.starts[g[0]]
        b = end if i == len(groups) - 1 and g[-1] == ks[-1] else tf.ends[g[-1]]
        out.append((a, b))
    return out


def between_names(word: str) -> bool:
    """``word`` is a lower-case stop word of a main European language and no name particle: it
    stands between two people's names ("och", "und", "et"), not inside one ("van", "de")."""
    f = fold(word)
    return word.islower() and f in european_stop_words() and f not in NAME_PARTICLES


def _stop_word_edge(
    tf: TextFeatures, probs: dict[int, float], k: int, bar: float, surname_slot: bool = False
) -> bool:
    """Unit ``k`` is a capitalised stop word or word (from ``FLOOR_VOCAB_ZIPF``) of another
    main language than English, below ``bar``, that no name list has: spaCy's English model
    takes such words into a name ("Soy", "Pode", "Servus"), not English ones ("Will Smith" is a
    name; "Rose Garden" is judged whole), and a listed name may be a word ("Lindo", "Mele").
    After a given name (``surname_slot``: ``given_names_before_a_name``, "Gran" is none) only a
    stop word is: many surnames are words of their language ("<First> Castelo", "<First> Fiore")."""
    w = tf.words[k]
    f = fold(w).strip("'’.-")
    word = foreign_stop_word(f) or (not surname_slot and foreign_word(f, FLOOR_VOCAB_ZIPF))
    return w[:1].isupper() and probs.get(k, 0.0) < bar and word and not listed_name(f)


@lru_cache(maxsize=1)
def _one_word_id_labels() -> frozenset[str]:
    """The identifier labels of one word ("aadhaar", "mrn", "passport": ``labels.yaml``)."""
    return frozenset(label for label in id_labels() if " " not in label)


def _named_place(words: list[str]) -> str | None:
    """``"place"`` when the words name a country or a nationality and no word of them is a
    listed name ("Uruguay", not "Jordan"); ``"city"`` when they name a city and no person: a
    one-word city that no name list has ("Brno", not "Chester"), a city of several words that is
    no listed first and last name ("Porto Alegre"); else None."""
    place = " ".join(words)
    if is_place(place):
        return None if any(listed_name(w) for w in words) else "place"
    if not is_city(place):
        return None
    if len(words) == 1:
        return None if listed_name(words[0]) else "city"
    return None if is_name_pair(words[0], words[-1]) else "city"


#: What may stand between a name and the organisation word of a business named after it.
_AFTER_NAME = re.compile(
    r"(?P<joint>['’]s(?:\s*(?:&|and))?|\s*(?:&|and))?\s*(?P<org>[A-Z][\w'’]*)(?![\w-])"
)
#: A common word, then the organisation word ("<name> International Airport").
_COMMON_THEN_ORG = re.compile(r"[ \t]+(?P<common>[A-Z][\w'’]*)[ \t]+(?P<org>[A-Z][\w'’]*)(?!\w)")
#: A partner's name after "&" and the organisation word of the firm they make, maybe after a
#: comma ("<name> & <name> Funeral Directors", "<name> & <name>, Attorneys").
_AFTER_PARTNER = re.compile(r"[ \t]*&[ \t]*((?:[A-Z][\w'’-]*,?[ \t]*){2,3})")


#: The words on a span's line before it, each followed by spaces or tabs alone (up to three).
_WORDS_BEFORE = re.compile(r"(?:[^\W\d_]+[ \t]+){1,3}(?:[«\"“„][ \t]*)?$")
#: An organisation word at least this long also ends a compound of the Germanic languages
#: ("Hausarztpraxis", "Tanzschule", "Wohnstiftung"): ``organisation_word``.
_COMPOUND_HEAD = 5


@lru_cache(maxsize=65536)
def organisation_word(word: str) -> bool:
    """An organisation word that no name list has (``data/organisation_words.txt``: "Ltd",
    "Klinik", "Bakery"; accents aside: "Ecole"; a platform's name: "GitHub"), or a compound
    ending in one of at least five letters after at least three ("Tierklinik", "Grundschule";
    German, Dutch and the Nordic languages write them so)."""
    f = fold(word).strip("'’.-")
    if listed_name(f):
        return False
    if f in ORGANISATION_WORDS or unaccented(f) in _unaccented_organisation_words():
        return True
    if f in platforms():  # "Instagram", "GitHub": a platform's name
        return True
    return len(f) >= _COMPOUND_HEAD + 3 and any(f.endswith(o) for o in _compound_heads(f[-1]))


@lru_cache(maxsize=1)
def _unaccented_organisation_words() -> frozenset[str]:
    return frozenset(unaccented(o) for o in ORGANISATION_WORDS)


@lru_cache(maxsize=64)
def _compound_heads(last_letter: str) -> tuple[str, ...]:
    """The organisation words that can end a compound, by their last letter."""
    return tuple(
        o for o in ORGANISATION_WORDS if o.endswith(last_letter) and len(o) >= _COMPOUND_HEAD
    )


def organisation_before(text: str, start: int) -> bool:
    """An organisation word stands before ``start`` on its line, after spaces alone or with stop
    words between ("Bäckerei <NAME>", "Stiftung zur <NAME>", "Universidad de <NAME>"), maybe
    with an opening quote ("ООО «<NAME>»"): the span names the organisation."""
    m = _WORDS_BEFORE.search(text, max(0, start - 80), start)
    if m is None:
        return False
    for word in reversed(SPAN_WORD.findall(m.group(0))):
        if word[:1].isupper() and organisation_word(word):  # not "as" (Norwegian "AS")
            return True
        if fold(word) not in european_stop_words():
            return False
    return False


def person_extents(text: str, spans: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """``spans`` cut where a person's name ends: before their first organisation word (the words
    from it on name the organisation: "<NAME> - Bakery <NAME>"; a span it starts or ends after
    a space is none: "<NAME> Lettings"; words before it are judged alone, ``non_person_signal``
    then finds it after them: "<NAME> Hotel Staff"), and without the lower-case words that end
    or start a span with a capitalised word ("<First> <Last> von der" before "Tanzschule": a
    particle ends no name; "till <First>": only a name particle starts one, "van <Last>"), and
    without a field's label that ends one ("<First> <Last> DOB")."""
    out = []
    for s, e, p in spans:
        words = list(SPAN_WORD.finditer(text, s, e))
        k = next((i for i, m in enumerate(words) if _capitalised_organisation(m.group(0))), None)
        if k is not None:
            spaced = k > 0 and not text[words[k - 1].end() : words[k].start()].strip()
            if k == 0 or spaced and k == len(words) - 1:
                continue  # "Bakery <NAME>", "<NAME> Logistics": a company's name
            words, e = words[:k], words[k - 1].end()
        while len(words) > 1 and _field_label(words[-1].group(0)):
            words, e = words[:-1], words[-2].end()  # "<First> <Last> DOB": a field's label
        if words and not all(m.group(0).islower() for m in words):
            a, b = 0, len(words)
            while words[b - 1].group(0).islower():
                b -= 1
            while words[a].group(0).islower() and fold(words[a].group(0)) not in NAME_PARTICLES:
                a += 1
            s = words[a].start() if a else s
            e = words[b - 1].end() if b < len(words) else e
        out.append((s, e, p))
    return out


def _field_label(word: str) -> bool:
    """A key of personal data that no name list has ("DOB", "Phone", "Surname")."""
    return not listed_name(word) and key_entity(word) is not None


def _capitalised_organisation(word: str) -> bool:
    return word[:1].isupper() and organisation_word(word)


def after_title(text: str, start: int) -> bool:
    """A title, form of address or kinship word stands right before ``start`` ("auntie <name>",
    "Frau <name>"; ``words.is_title``)."""
    m = _WORDS_BEFORE.search(text, max(0, start - 40), start)
    return m is not None and is_title(m.group(0).split()[-1])


def _organisation_after(text: str, end: int) -> str | None:
    """``"company"`` when a legal form ends the line's capitalised words after ``end`` ("<name>,
    Inc.": a company named after a person) or an organisation word no name list has follows on
    the line after a possessive or "&" ("Marlowe's Foods", "Ashby & Sons"), a partner's name after
    "&" ("Ashby & Webb Solicitors") or a common word ("<name> International Airport");
    ``"business"`` when it follows after a space alone ("Quint Bakery"); else None."""
    if _legal_form_after(text, end):
        return "company"
    partner = _AFTER_PARTNER.match(text, end)
    if partner is not None and any(
        organisation_word(w) for w in re.findall(r"[\w'’-]+", partner.group(1))[1:]
    ):
        return "company"
    m = _COMMON_THEN_ORG.match(text, end)
    if m is not None and organisation_word(m["org"]) and vocabulary_word(m["common"]):
        return "company"
    m = _AFTER_NAME.match(text, end)
    if m is None or "\n" in m.group(0) or not organisation_word(m.group("org")):
        return None
    return "company" if m.group("joint") else "business"


@lru_cache(maxsize=1)
def _legal_forms() -> re.Pattern[str]:
    """Up to ``_WORDS_TO_FORM`` words (maybe joined by "&"), then a legal form as written or in
    capitals, after a comma or spaces, to the end of a word."""
    forms = alternation(LEGAL_FORMS | {f.upper() for f in LEGAL_FORMS})
    return re.compile(
        rf"((?:[ \t]+(?:&[ \t]+)?[^\W\d_][\w'’-]*){{0,{_WORDS_TO_FORM}}})[ \t]*,?[ \t]+"
        rf"(?:{forms})(?![\w/])"
    )


def _legal_form_after(text: str, end: int) -> bool:
    """A legal form follows ``end`` on its line, after capitalised words only."""
    m = _legal_forms().match(text, end)
    return m is not None and all(w[:1].isupper() or w == "&" for w in m.group(1).split())


def _possessive_s(tf: TextFeatures, k: int) -> bool:
    """Unit ``k`` is the "s" of a possessive ("Orla's"): no word of the name."""
    return tf.words[k] in ("s", "S") and tf.text[tf.starts[k] - 1 : tf.starts[k]] in ("'", "’")


_NON_PERSON_LABELS = frozenset({"ORG", "PRODUCT", "GPE", "LOC", "FAC"})
#: Zipf frequency in English from which the last word of a span is a common noun (``_thing_name``).
THING_HEAD_ZIPF = 3.5


def _name_like(word: str) -> bool:
    """A listed name, or a capitalised word as frequent in several languages as in its own (a
    public figure's name; ``vocabulary.international``)."""
    return listed_name(word) or (word[:1].isupper() and international(word))


def vocabulary_word(word: str, alone: bool = False, threshold: float = VOCAB_ZIPF) -> bool:
    """A word that is no name: a stop word of a main European language, a common, place or
    calendar word, or vocabulary (from Zipf ``threshold``; or a compound of two words) that no
    name list has. A word ``alone`` in its span that is as frequent in several languages as in
    its own (``international``: a public figure's surname) is a name here, as spaCy took it; in
    a phrase it is vocabulary ("Smart Thermostat": loan words)."""
    if fold(word).strip("'’.-") in european_stop_words() or listed_non_name(word):
        return True
    if compound_word(word) and not listed_name(word):  # "Zahnarztpraxis", "Wasserflasche"
        return True
    return not_a_name_word(word, WORD_LANGUAGES, threshold) and not (alone and international(word))


def _own_language_word(word: str, language: str) -> bool:
    """``word`` is a frequent word (from ``FLOOR_VOCAB_ZIPF``) of ``language``, the text's own
    (``vocabulary.text_language``, of the languages wordfreq lists beyond the main European
    ones too: Turkish, Vietnamese, Indonesian, Malay, Filipino, Catalan, Serbo-Croatian), and in
    no name list."""
    return is_vocabulary(word, FLOOR_VOCAB_ZIPF, (language,)) and not listed_name(word)


def _thing_name(words: list[str], folded: list[str]) -> bool:
    """The words of a span name a thing: the last is frequent English vocabulary that no name
    list has ("... Chair"; a person's name ends with a surname) and the first is no listed first
    name ("Maren Gale" stays a person); a last word as frequent in several languages as in
    English (a public figure's surname) makes a thing only after a vocabulary word ("Hand
    Mixer")."""
    firsts, _ = listed_names()
    last = folded[-1]
    if zipf(last, ("en",)) < THING_HEAD_ZIPF or listed_name(last) or folded[0] in firsts:
        return False
    return not international(last) or vocabulary_word(words[0])
