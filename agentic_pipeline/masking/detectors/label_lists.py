"""The label word lists of ``labels.yaml`` as the label detectors read them: id labels and their
types, person labels, id words, the stems of labels that end with an id word, and each as one
regex alternation (longest first); and what a label phrase or key names (``label_entity``)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from agentic_pipeline.masking.detectors.data_files import data_file, word_set
from agentic_pipeline.masking.detectors.things import THING_WORD_IN
from agentic_pipeline.masking.vocabulary import european_stop_words, zipf


def label_phrase(label: str) -> str:
    """Regex of a label phrase: words separated by spaces, underscores or hyphens."""
    words = [re.escape(w) for w in re.split(r"[\s_-]+", label.strip()) if w]
    return r"[\s_-]+".join(words)


def unaccented(text: str) -> str:
    """``text`` without its accents ("imię" -> "imie", "número" -> "numero"), as keys and
    headers are often written; letters that Unicode does not decompose stay ("ł", "ß")."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _folded(label: str) -> list[str]:
    """A label's words lower-cased and joined by one space, as written and without accents."""
    words = " ".join(re.split(r"[\s_-]+", label.lower()))
    return list(dict.fromkeys([words, unaccented(words)]))


#: The sections of ``labels.yaml`` that list id labels by type: the main European languages and
#: the others.
ID_SECTIONS = ("ids", "ids_other_languages")


def labels_of_type(entity: str) -> list[str]:
    """The id labels of ``entity`` as written in ``labels.yaml``, every section."""
    data = data_file("labels.yaml")
    return [label for section in ID_SECTIONS for label in data[section].get(entity, [])]


@lru_cache(maxsize=1)
def id_labels() -> dict[str, str]:
    """Folded label phrase (also without its accents) -> entity type (longest phrases are
    matched first)."""
    data = data_file("labels.yaml")
    return {
        form: et
        for section in ID_SECTIONS
        for et, labels in data[section].items()
        for label in labels
        for form in _folded(label)
    }


@lru_cache(maxsize=1)
def person_labels() -> frozenset[str]:
    """Folded labels (also without their accents) whose value is masked as a person: ``person``
    of ``labels.yaml`` but those whose value is a company, a team or a place as often
    (``person_shared``)."""
    data = data_file("labels.yaml")
    shared = set(data["person_shared"])
    return frozenset(form for x in data["person"] if x not in shared for form in _folded(x))


@lru_cache(maxsize=1)
def id_words() -> str:
    """The id words of ``labels.yaml`` ("number", "no.", "nr", "n°") as one alternation."""
    words = sorted({w.lower() for w in data_file("labels.yaml")["id_words"]}, key=len, reverse=True)
    return "|".join(re.escape(w) + (r"(?!\w)" if w[-1].isalnum() else "") for w in words)


@lru_cache(maxsize=1)
def label_alternation() -> str:
    """The id labels as one regex alternation, longest first."""
    return "|".join(label_phrase(x) for x in sorted(id_labels(), key=len, reverse=True))


#: Id types whose labels name a person's own document ("passport", "Steuer-ID", "SSN").
DOCUMENT_TYPES = ("ID_DOCUMENT", "TAX_ID", "US_SSN")


@lru_cache(maxsize=1)
def document_label_alternation() -> str:
    """The labels of a person's documents (``DOCUMENT_TYPES``) as one alternation."""
    labels = [x for x, et in id_labels().items() if et in DOCUMENT_TYPES]
    return "|".join(label_phrase(x) for x in sorted(labels, key=len, reverse=True))


#: Letters of an id word glued to the end of a one-word label ("nummer"), and of its stem.
_GLUED_ID_WORD_CHARS = 4
#: A glued stem this frequent in English is read as the English word ("Pass ID", "Fall no.").
_ENGLISH_STEM_ZIPF = 3.0
#: A lead stem this frequent in a main European language is an everyday word that numbers things
#: as often ("historia", "processo", "ordem": a user story's, a case's, an order's number).
_EVERYDAY_STEM_ZIPF = 5.0


@lru_cache(maxsize=1)
def stem_labels() -> dict[str, str]:
    """Stems of the labels that end with an id word ("staff" of "staff number", "record" of
    "record no", "hospital" of "hospital number"), or with one glued to them as German and Dutch
    write it ("kunden" of "kundennummer") -> the label's type: a stem followed by any id word is
    that label ("Staff no.", "Record #", "Hospital ID", "Kunden-Nr."); alone it is no label."""
    idw = id_word_set()
    excluded = frozenset(data_file("labels.yaml")["not_stems"])
    glued = sorted((w for w in idw if w.isalpha() and len(w) >= _GLUED_ID_WORD_CHARS), key=len)
    out: dict[str, str] = {}
    for label, et in id_labels().items():
        words = label.split()
        if len(words) == 1:  # the longest glued id word it ends with ("kunden|nummer")
            stem = next((label[: -len(w)] for w in reversed(glued) if label.endswith(w)), "")
            if len(stem) >= _GLUED_ID_WORD_CHARS and stem not in excluded and stem not in out:
                if stem not in id_labels() and zipf(stem, ("en",)) < _ENGLISH_STEM_ZIPF:
                    out[stem] = et  # not "pass", "fall": English words
        while len(words) > 1 and words[-1].rstrip(".") in idw:
            words = words[:-1]
            stem = " ".join(words)
            if stem not in id_labels() and stem not in idw and stem not in excluded:
                out.setdefault(stem, et)
    return out


#: Letters of a label that may end a compound written as one word, and of what stands before it.
_COMPOUND_HEAD_CHARS = 7
_COMPOUND_PREFIX_CHARS = 3


@lru_cache(maxsize=1)
def compound_heads() -> frozenset[str]:
    """One-word labels that end a compound as German, Dutch and the Nordic languages write one
    ("Wunsch|kennzeichen", "Kranken|versichertennummer", "Barn|pass"... ): seven letters or more
    and no English word ("registration" ends "preregistration", no id's label)."""
    return frozenset(
        label
        for label in id_labels()
        if label.isalpha() and len(label) >= _COMPOUND_HEAD_CHARS and zipf(label, ("en",)) < 3.0
    )


def compound_head_at(word: str) -> int | None:
    """Where a label that ends the compound ``word`` begins (``compound_heads``), the longest
    head first; None when ``word`` ends with none after three letters or more."""
    return _compound_head_at(word.lower())


@lru_cache(maxsize=65536)
def _compound_head_at(low: str) -> int | None:
    """``compound_head_at`` of a lower-cased word, cached: it runs for every long word."""
    heads = compound_heads()
    for i in range(_COMPOUND_PREFIX_CHARS, len(low) - _COMPOUND_HEAD_CHARS + 1):
        if low[i:] in heads:
            return i
    return None


@lru_cache(maxsize=1)
def _lead_labels() -> tuple[dict[str, str], frozenset[str]]:
    """(``lead_stems``, the articles seen between their number word and their stem)."""
    numbers, stops = number_word_set(), european_stop_words()
    excluded = frozenset(data_file("labels.yaml")["not_stems"])
    stems: dict[str, str] = {}
    articles: set[str] = set()
    for label, et in id_labels().items():
        words = label.split()
        if len(words) < 2 or words[0] not in numbers:
            continue
        words = words[1:]
        while len(words) > 1 and words[0] in stops:  # "de", "do", "di"
            articles.add(words[0])
            words = words[1:]
        stem = " ".join(words)
        if stem in excluded or zipf(stem, ("en",)) >= _ENGLISH_STEM_ZIPF:
            continue
        if zipf(stem) < _EVERYDAY_STEM_ZIPF:  # not "historia", "conta", "ordem" (an order's)
            stems.setdefault(stem, et)
    return stems, frozenset(articles)


@lru_cache(maxsize=1)
def number_word_set() -> frozenset[str]:
    """The id words that say "number" (``number_words`` of ``labels.yaml``), folded, as written
    and as ``norm_label`` leaves them in a label ("nº" -> "n")."""
    words = data_file("labels.yaml")["number_words"]
    normed = {norm_label(w) for w in words} - {""}
    return frozenset(w.lower() for w in words) | normed


def lead_stems() -> dict[str, str]:
    """What follows the number word of the labels that open with one, as Romance and Slavic
    languages write them ("pracownika" of "numer pracownika", "afiliado" of "número de
    afiliado") -> the label's type: after any number word, with or without its article, it is
    that label ("nr pracownika", "N° de afiliado"); alone, or after "id", it is no label, and
    neither is an everyday word ("historia", "conta")."""
    return _lead_labels()[0]


def lead_articles() -> frozenset[str]:
    """The articles between a label's opening number word and its lead stem ("de", "do", "di")."""
    return _lead_labels()[1]


@lru_cache(maxsize=1)
def lead_stem_alternation() -> str:
    """The lead stems (``lead_stems``) as one regex alternation, longest first."""
    return "|".join(label_phrase(x) for x in sorted(lead_stems(), key=len, reverse=True))


@lru_cache(maxsize=1)
def stem_alternation() -> str:
    """The label stems (``stem_labels``) as one regex alternation, longest first."""
    return "|".join(label_phrase(x) for x in sorted(stem_labels(), key=len, reverse=True))


@lru_cache(maxsize=1)
def handle_alternation() -> str:
    """The login-name labels (``handles``) as one regex alternation, longest first."""
    return "|".join(
        label_phrase(x) for x in sorted(data_file("labels.yaml")["handles"], key=len, reverse=True)
    )


@lru_cache(maxsize=1)
def label_words() -> frozenset[str]:
    """The words of the id and person labels of ``labels.yaml`` (folded, "hosp" of "hosp no",
    "nino", "last" of "last name"), but the short stop words of the main European languages
    (articles and particles that names have too: "de", "van", "la")."""
    stops = european_stop_words()
    phrases = [*id_labels(), *person_labels()]
    words = {w for p in phrases for w in re.findall(r"[^\W\d_]+", p)}
    return frozenset(w for w in words if len(w) > 3 or (len(w) > 1 and w not in stops))


#: The rest of a snake_case key from one of its words: maybe one more part, then "=" or ":".
_KEY_TAIL = re.compile(r"([^\W_]+)(?:_([^\W_]+))?[\"']?[ \t]*[=:]")


def key_tail_label(text: str, start: int) -> bool:
    """The word at ``start``, after "_", ends a snake_case key of a ``key=value`` text, maybe
    before an id word ("last_plate=…", "home_passport_no: …"), and is no id word itself
    ("session_id=…", "trace_no=…" stay a thing's)."""
    m = _KEY_TAIL.match(text, start)
    if m is None or (head := m.group(1).lower()) in id_word_set() or head == "identifier":
        return False
    return m.group(2) is None or m.group(2).lower() in id_word_set()


@lru_cache(maxsize=1)
def id_word_set() -> frozenset[str]:
    """The id words of ``labels.yaml``, folded, without their full stops."""
    return frozenset(w.lower().rstrip(".") for w in data_file("labels.yaml")["id_words"])


#: Letters of a label or stem before an id word glued to it ("Kunden|nr.", "Mitglieds|nr").
GLUED_STEM_CHARS = 4


@lru_cache(maxsize=1)
def glued_id_words() -> str:
    """The short id words written glued to their label ("nr", "no"; ``glued_id_word_set``)
    as one alternation."""
    return "|".join(re.escape(w) for w in sorted(glued_id_word_set(), key=len, reverse=True))


@lru_cache(maxsize=1)
def glued_id_word_set() -> frozenset[str]:
    """The id words of two or three letters: German and Dutch glue them to the label's word
    ("Kundennr.", "Mitgliedsnr:"); longer ones make one-word labels of ``labels.yaml``."""
    return frozenset(w for w in id_word_set() if w.isalpha() and 2 <= len(w) <= 3)


def glued_heads(word: str) -> list[str]:
    """What stands before a short id word glued to the end of ``word``, lower-cased, when it
    has ``GLUED_STEM_CHARS`` letters at least ("kundennr" -> ["kunden"])."""
    low = word.lower().rstrip(".")
    return [
        low[: -len(w)]
        for w in glued_id_word_set()
        if low.endswith(w) and len(low) - len(w) >= GLUED_STEM_CHARS
    ]


def glued_label(word: str) -> bool:
    """``word`` is a one-word id label or label stem with a short id word glued to it
    ("kundennr", "patientennr"; ``glued_id_word_set``)."""
    return any(h in stem_labels() or h in id_labels() for h in glued_heads(word))


def norm_label(label: str) -> str:
    """``Account-Number``, ``account_no``, ``patientId`` -> ``account number``, ``patient id``."""
    label = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", label.strip())
    words = [w for w in re.split(r"[\s_\-:.#º°]+", label.lower()) if w]
    return " ".join(words)


@lru_cache(maxsize=4096)
def label_entity(label: str, ids_first: bool = False) -> str | None:
    """Entity type a field label or key names through the label lists: an id type for an id
    label (optionally followed by id words: ``policy_no``, ``Member ID``), ``PERSON`` for a
    name label, else ``None``. A label of both lists ("patient", "customer") names a person,
    or, with ``ids_first`` (a value with an id's shape after it), that id."""
    norm = norm_label(label)
    if not norm:
        return None
    written = _folded(label.strip())[0]
    written = written if written in id_labels() else written.rstrip(".")  # "Pers.-Nr." too
    if norm not in id_labels() and written in id_labels():  # "таб. №", "מ.ר.": as listed
        return id_labels()[written]
    if norm in person_labels() and not (ids_first and norm in id_labels()):
        return "PERSON"
    if "/" in norm and norm not in id_labels():  # "NRIC/FIN", "Tax ID/SSN": either label
        parts = (label_entity(part, ids_first) for part in label.split("/"))
        return next((et for et in parts if et is not None), None)
    words = norm.split()
    head = None if norm in id_labels() else compound_head_at(words[-1])
    if head is not None:  # "Wunschkennzeichen"; not "Sozialversicherungsnummer", a label
        words[-1] = words[-1][head:]
    for k in range(len(words)):
        # "provider_npi", "patient_mrn", "billing_account_number": a qualifier before the label,
        # unless it names a thing ("order_reference") or leaves only "id" ("guest_id", "Donor
        # ID": a person's record's id, as the JSON walker reads a bare "id" under "guests")
        if k and words[k:] in (["id"], ["no"]):  # not "number": "contact number" is a phone
            person = " ".join(words[:k]) in word_set("labels.yaml", "person_objects")
            return "USER_ID" if person else None
        if k and THING_WORD_IN.search(" ".join(words[:k])):
            break
        et = _label_with_id_words(words[k:])
        if et is not None:
            return et
    return _lead_stem_label(words) or _qualified_label(label, words, ids_first)


def form_id_label(label: str) -> bool:
    """A form's label of words ending in "ID" whose qualifier names no thing ("Lodge ID",
    "Climbing ID"; not "Order ID"): like a bare "id", a person's id in a person's record. A code's
    key ("request_id", "sessionId") is no form's label."""
    words = label.split()  # the walker asks of every key: the cheap tests first
    if len(words) < 2 or words[-1].strip(":.#").lower() != "id" or "_" in label:
        return False
    camel = re.search(r"[a-z][A-Z]", label)
    return not camel and not THING_WORD_IN.search(" ".join(words[:-1]))


def _lead_stem_label(words: list[str]) -> str | None:
    """The type of a label that opens with a number word before a lead stem, maybe after its
    article ("nr pracownika", "n° de afiliado"; ``lead_stems``)."""
    if len(words) < 2 or words[0] not in number_word_set():
        return None
    rest = words[1:]
    while len(rest) > 1 and rest[0] in lead_articles():
        rest = rest[1:]
    return lead_stems().get(" ".join(rest))


#: The issuer's initials after a label ("Licence FFA", "Member no. BUPA").
_INITIALS = re.compile(r"[A-Z]{2,5}")
#: Types whose label may be followed by initials that are no issuer ("Account USD": a currency).
_MONEY_TYPES = frozenset({"BANK_ACCOUNT", "ABA_ROUTING_NUMBER", "CREDIT_CARD", "IBAN_CODE"})


def _qualified_label(label: str, words: list[str], ids_first: bool) -> str | None:
    """The id type of a label followed by what qualifies it, maybe after stop words: the vehicle
    ("Nr rejestracyjny pojazdu", "Kennzeichen des Fahrzeugs", ``vehicle_words``) or the issuer's
    initials ("Licence FFA"; not after an account's label: "Account USD")."""
    parts = label.strip().split()
    if len(words) < 2 or len(parts) < 2:
        return None
    last = parts[-1].strip(".:#()")
    vehicle = words[-1] in word_set("labels.yaml", "vehicle_words")
    if not (vehicle or _INITIALS.fullmatch(last)):
        return None
    parts.pop()
    while len(parts) > 1 and parts[-1].lower() in european_stop_words():  # "des", "du", "of the"
        parts.pop()
    et = label_entity(" ".join(parts), ids_first)
    if et is None or et == "PERSON" or (not vehicle and et in _MONEY_TYPES):
        return None
    return et


#: The last one to three words of a text ("... your order", "Policy").
_LAST_WORDS = re.compile(r"(?:[^\W\d_][\w'’]*[ \t_-]+){0,2}[^\W\d_][\w'’]*[ \t]*$")


def ends_with_id_label(text: str) -> bool:
    """Whether ``text`` ends with the label of a person's id or with a thing's word, and maybe
    id words and a colon ("... your order", "SKU", "Policy no.: "): what follows it, or what a
    "number" after it numbers, is no phone ("order number 55012345", "SKU 8812-4471-09")."""
    m = _LAST_WORDS.search(text[-60:].rstrip(" \t#:.=-"))
    if m is None:
        return False
    words = m.group().split()
    idw = id_word_set()
    while len(words) > 1 and words[-1].lower().rstrip(".") in idw:
        words.pop()  # "order no", "SKU number"
    for k in range(len(words)):
        phrase = " ".join(words[k:])
        if THING_WORD_IN.fullmatch(phrase):
            return True
        if label_entity(phrase, ids_first=True) not in (None, "PERSON"):
            return True
    return False


def _label_with_id_words(words: list[str]) -> str | None:
    """The id type of a label phrase optionally followed by id words ("policy no", "member id")."""
    ids = id_labels()
    idw = id_word_set()
    while words:
        et = ids.get(" ".join(words))
        if et is not None:
            return et
        if words[-1] not in idw:
            glued = next((w for w in idw if w.isalpha() and words[-1].endswith(w)), "")
            stem = words[-1][: -len(glued)] if glued else ""  # "kunden" of "kundennr"
            return stem_labels().get(" ".join([*words[:-1], stem])) if stem else None
        words = words[:-1]
        et = stem_labels().get(" ".join(words))  # "staff no", "record id"
        if et is not None:
            return et
    return None
