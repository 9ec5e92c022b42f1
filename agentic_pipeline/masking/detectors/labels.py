"""Personal values found by their label, whatever their shape (issue #21).

The labels are data (``labels.yaml``): ids of people (medical record, NPI, account, routing,
policy, tax, licence, passport, IBAN, customer, ... in English and the main European languages)
and the labels of a person's name ("Payee", "Account holder", "Patient name", ...). A label
decides the type in every place a value can stand:

* prose and ``label: value`` lines: ``IdLabelRecognizer`` ("MRN: 00451288", "policyNumber=HX-2031",
  "her NPI is 1234567893"), ``field_labels.FieldLabelRecognizer`` ("Payee: …");
* CSV/TSV columns and JSON, YAML or Python-dict keys: ``label_entity`` (JSON walker, tables).

An id needs three digits (or two and a letter), is no year, date, amount or decimal; ids of a
list after one label share its shape. Labels of things' ids (order, flight, ...) are absent.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import lru_cache

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.id_shapes import (  # noqa: F401  (public here too)
    ID_CHARS,
    ID_LETTERS,
    NUMBER_SIGN,
    SORT_CODE,
    UNIT_AFTER,
    handle_value_ok,
    id_value_ok,
    is_date,
    label_value_ok,
    quantity_after,
    same_shape_list,
    state_zip,
)
from agentic_pipeline.masking.detectors.key_rules import key_entity, normalize_key  # noqa: F401
from agentic_pipeline.masking.detectors.label_lists import (  # noqa: F401  (public here too)
    GLUED_STEM_CHARS,
    compound_head_at,
    ends_with_id_label,
    glued_heads,
    glued_id_words,
    handle_alternation,
    id_labels,
    id_word_set,
    id_words,
    key_tail_label,
    label_alternation,
    label_entity,
    lead_articles,
    lead_stem_alternation,
    lead_stems,
    norm_label,
    number_word_set,
    person_labels,
    stem_alternation,
    stem_labels,
)
from agentic_pipeline.masking.detectors.things import THING_WORD_BEFORE, THING_WORD_IN
from agentic_pipeline.masking.vocabulary import STOP_WORDS, is_vocabulary

#: Labels naming no kind of id ("ID: 654321"): a person's id unless a thing's word precedes.
GENERIC_LABELS = frozenset({"id", "identifier"})
#: Score of a value found by its label: above spaCy (0.85), below checksummed patterns' ties.
LABEL_SCORE = 0.87
#: Score of an id a few words after its label or in the answer to a question naming the label:
#: at the masker's default propagation bar (0.6), so the episode masks it wherever it repeats it.
NEAR_LABEL_SCORE = 0.6
#: Score of a three-digit id right after a label that numbers it ("Employee no. 612"): masked
#: where it stands, below the episode's propagation bar (the same digits are often a sum).
SHORT_ID_SCORE = 0.5


#: "is" between a label and its value, in English and the main European languages ("Steuer-ID
#: ist …", "mi NIF es …", "le numéro est …", "codice fiscale è …", "numer PESEL jest …"), and
#: in others (Swedish, Danish and Norwegian, Czech, Greek, Russian, Indonesian and Malay,
#: Vietnamese, Swahili).
_COPULA = (
    r"\b(?:is|was|ist|lautet|war|est|était|es|era|è|jest|är|er|je|είναι|является|adalah|ialah"
    r"|là|ni)\b"
)


@lru_cache(maxsize=1)
def id_label_re() -> re.Pattern[str]:
    """``label [id words] [:|#|=|is] value``; group ``label`` and group ``value``."""
    idw = id_words()
    return re.compile(
        # where a label may begin is ``_label_starts``'s to say (not after a digit, "_", "@", ".")
        rf"(?i)(?P<label>{label_alternation()}"
        # a stem of a label ("staff" of "staff number") counts only before an id word
        rf"|(?:{stem_alternation()})(?=\.?[ \t_-]*(?:{idw}))"
        # what follows a label's opening number word ("pracownika" of "numer pracownika")
        # counts only after a number word (``_label_starts``) and before its value's sign
        rf"|(?:{lead_stem_alternation()})(?=[\"']?[ \t]*[:=#]))"
        # a label ends its word ("Lic.", "Acct."), a short id word glued to it, or camelCase's
        rf"(?:(?![^\W_])|(?<=[^\W\d_]{{{GLUED_STEM_CHARS}}})(?=(?:{glued_id_words()})\.?(?![^\W_]))"
        r"|(?-i:(?<=[a-z])(?=[A-Z])))\.?"
        rf"(?P<idw>(?:[ \t_-]*\(?(?:{idw}))*)"  # "no.", "#", "ID", "_no", "licence (no. <id>)"
        # a second label after a slash, before a colon ("NRIC/FIN:", "Passport/ID no.:")
        rf"(?:[ \t]*/[ \t]*[^\W\d_][\w.'-]{{0,20}}(?:[ \t]*(?:{idw}))*(?=[ \t]*[:=#]))?"
        # an abbreviation or a note in brackets before a colon ("Tarjeta sanitaria (CIP):")
        r"(?:(?:[ \t]*[(（][^\W\d_][\w.' -]{0,30})?[)）](?=[ \t]*[:=#：]))?"
        # a region's code glued to a register's label ("CRM-SP 123456", "CRO/RJ 7734")
        r"(?:[-/](?-i:[A-Z]{2})(?=[ \t]))?"
        r"(?:[\"'](?=[ \t]*[:=]))?"  # a quoted key of JSON or a Python dict in a text
        # a value glued to its label by a hyphen ("MRN-4471205"): one token, masked whole
        # a colon may end the label's line (a form's "MRN:" above its value); "|" parts a
        # table row's label and value ("| MRN | 00441203 |"); dots lead a form's value ("....")
        rf"(?:(?P<glue>-)(?=\d)|[ \t]*(?:[:=#|：](?:[ \t]*\r?\n)?|{_COPULA}|-(?=[ \t])|\.{{2,}})?"
        rf"[ \t]*(?:{_COPULA}[ \t]*)?)"
        rf"[#'\"“‘(*]?(?P<value>[{ID_CHARS}]"
        rf"(?:[{ID_CHARS}./-]|[ ](?=[{ID_LETTERS}]*\d)|[ ](?=(?-i:[A-Z])[ ]\d{{3}})"
        r"|(?<=(?-i:[A-Z]{2}\d\d))[ ](?=(?-i:[A-Z]{3})(?!\w))"  # a British plate "AB12 CDE"
        # a plate's letters between two groups of digits ("34 ABC 123")
        r"|(?<=\d)[ ](?=(?-i:[A-Z]{1,3})[ ]\d{2,4}(?!\w))"
        r"|(?<=\d)[ ](?=(?-i:[A-D])(?!\w)))*"  # a National Insurance number's last letter
        rf"[{ID_CHARS}](?:\([0-9A]\))?)"  # a check digit in brackets (Hong Kong's "K704951(3)")
    )


#: A run of letters: a label's first word, and the words of a text where a label may begin.
_LETTERS = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=1)
def _label_first_words() -> frozenset[str]:
    return frozenset(_LETTERS.match(label).group() for label in [*id_labels(), *stem_labels()])


def _glued_label_start(word: str) -> bool:
    """``word`` is a label's or stem's first word with a short id word glued to its end."""
    return any(h in _label_first_words() for h in glued_heads(word))


@lru_cache(maxsize=1)
def _lead_first_words() -> frozenset[str]:
    return frozenset(_LETTERS.match(stem).group() for stem in lead_stems())


@lru_cache(maxsize=2)
def _word_before(numbers: bool) -> re.Pattern[str]:
    """An id word (a number word, with ``numbers``) right before where a label's word may begin,
    maybe with a lead stem's article ("nr ", "id_", "N° de ")."""
    pool = number_word_set() if numbers else id_word_set()
    words = sorted((re.escape(w) for w in pool if w[:1].isalpha()), key=len, reverse=True)
    articles = "|".join(re.escape(a) for a in sorted(lead_articles(), key=len, reverse=True))
    return re.compile(
        rf"(?i)(?<![^\W_])(?:{'|'.join(words)})\.?[ \t_]+(?:(?:{articles})[ \t_]+)?\Z"
    )


def _after_id_word(text: str, start: int, numbers: bool) -> bool:
    """An id word (a number word, with ``numbers``) stands right before ``start``
    (``_word_before``)."""
    return _word_before(numbers).search(text, max(0, start - 16), start) is not None


def _label_starts(text: str) -> list[int]:
    """Where an id label may begin in ``text``: the letter runs that are a label's first word,
    after no digit, "_", "@" or "." but after an id word ("id_cliente"), those that open a lead
    stem right after a number word ("nr pracownika"; ``label_lists.lead_stems``), and the label
    that ends a compound ("Wunschkennzeichen": ``label_lists.compound_head_at``). A label regex
    tried only there finds what a search of the whole text would, several times faster than
    scanning the long alternation at every position."""
    first, lead, out = _label_first_words(), _lead_first_words(), []
    for m in _LETTERS.finditer(text):
        word = m.group().lower()
        if word in lead and _after_id_word(text, m.start(), numbers=True):
            out.append(m.start())  # "nr_pracownika", "N° de afiliado"
            continue
        if word in first and _after_id_word(text, m.start(), numbers=False):
            out.append(m.start())  # a label after an id word and "_": "id_cliente"
            continue
        prev = text[m.start() - 1] if m.start() else " "
        if prev in "@." or prev.isdigit() or (prev == "_" and not key_tail_label(text, m.start())):
            continue  # after "_" only a key's last word ("last_plate=…")
        camel = re.match(r"[a-z]+(?=[A-Z])", m.group())  # "employee" of "employeeNumber"
        if word in first or _glued_label_start(word) or (camel and camel.group() in first):
            out.append(m.start())
        elif (head := compound_head_at(m.group())) is not None:
            out.append(m.start() + head)
    return out


def _match_from(
    rx: re.Pattern[str], text: str, pos: int, starts: list[int]
) -> re.Match[str] | None:
    """``rx.search(text, pos)`` for a regex that starts with an id label (``starts``: the
    text's ``_label_starts``)."""
    for p in starts[bisect.bisect_left(starts, pos) :]:
        if (m := rx.match(text, p)) is not None:
            return m
    return None


def _label_finditer(rx: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``rx.finditer(text)`` for a regex that starts with an id label."""
    starts, pos = _label_starts(text), 0
    while (m := _match_from(rx, text, pos, starts)) is not None:
        yield m
        pos = m.end()


@lru_cache(maxsize=1)
def near_label_re() -> re.Pattern[str]:
    """An id a few words after its label, in one clause ("account details like 30120045",
    "the card number ending in *4471"): ``label``, ``gap`` (up to four words without digits)
    and ``value`` (five digits in a row, or four among letters and hyphens), or ``tail`` (the
    last digits after "ending in")."""
    return re.compile(
        rf"(?i)(?P<label>{label_alternation()})(?!\w)"  # at ``_label_starts`` only
        rf"(?:[ \t]*(?:{id_words()}))*"
        r"(?P<gap>(?:[ \t,]+[^\W\d][^\W\d'’-]*){1,4}?)[ \t,:]+"
        r"(?:(?P<ending>(?<=ending in )|(?<=ending with )|(?<=ends in )|(?<=ends with ))"
        r"[*xX•·.\- ]{0,12}(?P<tail>\d{2,6})(?!\d)"
        r"|[#*]?(?P<value>(?=[A-Za-z0-9-]*\d{5}|(?:[A-Za-z-]*\d){4})"
        r"[A-Za-z0-9][A-Za-z0-9-]{3,38}[A-Za-z0-9])"
        r"(?![\w@]))"
    )


@lru_cache(maxsize=1)
def handle_labels_re() -> re.Pattern[str]:
    """A login name after its label ("my username is quietfern77", "Login: r.okafor")."""
    return re.compile(
        rf"(?i)(?<![\w@.])(?P<label>{handle_alternation()})(?!\w)"
        r"[ \t]*(?P<sep>[:=]|[–-](?=[ \t])|\bis\b|\bwas\b)?[ \t]*"
        r"(?:\bis\b[ \t]*)?[@'\"“‘(]?(?P<value>\w[\w.@+-]{1,38}\w)"
    )


@lru_cache(maxsize=1)
def question_label_re() -> re.Pattern[str]:
    """Any id or login label, alone (in a question asking for it)."""
    return re.compile(
        rf"(?i)(?<![\w@.])(?:(?P<handle>{handle_alternation()})|(?P<label>{label_alternation()}))(?!\w)"
    )


#: In the line that answers a question: "it's X", "it is X", "sure: X", "yes, X", or a bare X.
_ANSWER = re.compile(
    r"(?i)(?:^|(?<=[\s,:;]))(?:it'?s|it’s|it is|that'?s|mine is|is|:|sure|yes|ok(?:ay)?)?"
    r"[ \t,:]*[#@'\"“‘]?(?P<value>[A-Za-z0-9][\w.@+-]{1,38}[A-Za-z0-9])(?![\w@])"
)


def _far_id_ok(value: str, text: str, end: int) -> bool:
    """An id a few words from its label needs a stronger shape than one right after it: letters
    and 4+ digits, or 7+ digits, and no unit after it."""
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    if not id_value_ok(value) or not (digits >= 7 or (letters and digits >= 4)):
        return False
    return UNIT_AFTER.match(text, end) is None


def _near_label_ids(text: str, entities: list[str]) -> list[RecognizerResult]:
    """Ids a few words after their label (``near_label_re``), unless a thing's word stands
    between ("account for order 5512093": the order's)."""
    out = []
    for m in _label_finditer(near_label_re(), text):
        if THING_WORD_IN.search(m.group("gap")) or re.search(r"[.;!?]", m.group("gap")):
            continue
        group = "tail" if m.group("tail") else "value"
        if group == "value" and not _far_id_ok(m.group("value"), text, m.end("value")):
            continue
        if norm_label(m.group("label")) in GENERIC_LABELS:
            continue  # "id" a few words before a number says too little
        et = label_entity(m.group("label"), ids_first=True)
        if et is None or (entities and et not in entities):
            continue
        out.append(RecognizerResult(et, m.start(group), m.end(group), NEAR_LABEL_SCORE))
    return out


#: A line that is one token (a form's value under its label's line).
_VALUE_LINE = re.compile(
    r"[ \t]*(?P<value>[A-Za-z0-9][A-Za-z0-9./-]{2,38}[A-Za-z0-9])[ \t]*(?:\r?\n|$)"
)


def _label_line_ids(text: str, entities: list[str], found: set[int]) -> list[RecognizerResult]:
    """An id on the line under a line that is only its label, without a colon (a form printed
    as text: "Prontuário" over "21.507.338"); ``found``: where values already start."""
    if "\n" not in text:
        return []
    out, start = [], 0
    for line in text.splitlines(keepends=True):
        end = start + len(line)
        label = line.strip().rstrip(":#").strip()
        m = _VALUE_LINE.match(text, end) if 2 < len(label) <= 40 else None  # the cheap test first
        et = label_entity(label, ids_first=True) if m and m.start("value") not in found else None
        if et and id_value_ok(m["value"]):
            if not entities or et in entities:
                out.append(RecognizerResult(et, m.start("value"), m.end("value"), LABEL_SCORE))
        start = end
    return out


_MARK = re.compile(r"[\d_.@]")
#: Handle labels that are nouns only: the word after one is the login name ("handle ivardo").
_HANDLE_NOUNS = frozenset({"handle", "username", "user name", "screen name", "gamertag"})


def _handles(text: str, entities: list[str]) -> list[RecognizerResult]:
    """Login names right after their label; without ``:``, ``=`` or "is" between them only a
    value shaped like a handle (a digit, ``_ . @``; "login credentials" is no login name), or
    any after a label that is a noun only (``_HANDLE_NOUNS``)."""
    if entities and "USER_ID" not in entities:
        return []
    return [
        RecognizerResult("USER_ID", m.start("value"), m.end("value"), LABEL_SCORE)
        for m in handle_labels_re().finditer(text)
        if handle_value_ok(v := m.group("value"))
        and (m.group("sep") or m.group("label").lower() in _HANDLE_NOUNS or _MARK.search(v))
    ]


#: A request that asks for a value without a question mark ("Please enter the verification
#: code.", "Kindly share your member ID.", "I'll need your passport number.", "j'ai besoin du
#: numéro de …" and the same need in Spanish, Portuguese, German and Italian).
_REQUEST = re.compile(
    r"(?i)\b(?:please|kindly|pls)\b[^.?!\n]{0,20}?\b(?:provide|share|give|send|enter|type|"
    r"confirm|tell|read|verify)\b|\b(?:i|we)(?:'ll| will| would)? need\b[^.?!\n]{0,12}?\byour\b"
    r"|\b(?:j'ai|nous avons) besoin\b|\b(?:necesito|necesitamos|preciso|precisamos)\b"
    r"|\b(?:ich|wir) (?:brauche|brauchen)\b|\b(?:ho|abbiamo) bisogno\b"
)


#: A code asked for without its full label, with what says it is a one-time code around it
#: ("Please enter the code we sent for verification."); "What is the discount code?" is none.
_CODE_ASKED = re.compile(r"(?i)\b(?:code|pin)\b")
_CODE_SENT = re.compile(
    r"(?i)\b(?:verif\w*|one[- ]time|otp|sms|text(?:ed)?|sent|e-?mailed|login|2fa|mfa|"
    r"authenticat\w*|sign[- ]?in)\b"
)


_CODE_OF_A_THING = re.compile(
    r"(?i)\b(?:discount|promo|promotional|coupon|voucher|gift|referral|zip|postal|post|area|"
    r"country|error|status|product|tracking|booking|reservation|confirmation|qr|bar|source)"
    r"[ -]?code\b"
)


#: A value written right after a label: a colon, hash or equals sign, then a token with a digit.
_VALUE_AFTER = re.compile(r"[ \t]*[:#=][ \t]*[A-Za-z0-9_-]*\d")


def asked_label(question: str) -> str | None:
    """The type a question or request asks for ("Could you share your policy number?" ->
    ``INSURANCE_ID``, "What is your username?" -> ``USER_ID``, "Please enter your one-time
    code." -> ``CREDENTIAL``): the id or login label nearest its last question mark (in the
    request), else ``None`` ("What is your order ID?": a thing's)."""
    if "?" in question:
        q = question[: question.rindex("?")]
    elif (request := _REQUEST.search(question)) is not None:
        q = question[request.start() :]
    else:
        return None
    # a label the question writes its value after asks for none ("… on your user ID: <id>.
    # Shall I change it?")
    found = [m for m in question_label_re().finditer(q) if not _VALUE_AFTER.match(q, m.end())]
    if not found:
        one_time = _CODE_ASKED.search(q) and _CODE_SENT.search(question)
        return "CREDENTIAL" if one_time and not _CODE_OF_A_THING.search(q) else None
    m = found[-1]
    if m.group("handle"):
        return "USER_ID"
    if norm_label(m.group("label")) in GENERIC_LABELS and THING_WORD_BEFORE.search(
        q, max(0, m.start() - 30), m.start()
    ):
        return None
    return label_entity(m.group("label"), ids_first=True)


def answer_value(answer: str, entity_type: str) -> tuple[int, int] | None:
    """Where the asked value stands in the answer ("Yes, it's QX77120B."): the first token
    after "it's", "sure", ":"... with an id's shape (a login name's with a digit or ``_``)."""
    for a in _ANSWER.finditer(answer):
        v = a.group("value")
        handle_like = any(c in "_0123456789" for c in v)
        login = entity_type == "USER_ID" and handle_like and handle_value_ok(v)
        if id_value_ok(v) or login:
            return a.start("value"), a.end("value")
    return None


def _answers(text: str, entities: list[str]) -> list[RecognizerResult]:
    """The id or login name in the line right after a question that asks for it ("Can you give
    me your member ID?" / "Sure, it's QX77120B"), within one text."""
    if "\n" not in text:
        return []
    out = []
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for i, line in enumerate(lines[:-1]):
        et = asked_label(line)
        if et is None or (entities and et not in entities):
            continue
        j = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
        if j is None or j > i + 2:
            continue
        where = answer_value(lines[j], et)
        if where is not None:
            a, b = where
            out.append(RecognizerResult(et, starts[j] + a, starts[j] + b, NEAR_LABEL_SCORE))
    return out


def _three_digit_id(text: str, m: re.Match[str], entity: str | None) -> bool:
    """Three digits after a label that says a number follows ("Employee no. 612", ":", "#", "=")
    or a routing label (a branch: "支店番号 214"); never a sum, nor after a bare "ID" (a task's)."""
    value = m.group("value")
    words = norm_label(m.group("label")).split()
    if len(value) != 3 or not value.isdigit() or m.group("glue"):
        return False
    if " ".join(words) in GENERIC_LABELS:
        return False
    between = text[m.end("label") : m.start("value")]
    numbered = m.group("idw").strip() or NUMBER_SIGN.search(between) or words[-1] in id_word_set()
    routing = entity == "ABA_ROUTING_NUMBER"
    return bool(numbered or routing) and not quantity_after(text, m.end("value"))


def _starts_with_a_word(value: str) -> bool:
    """A value of several parts whose first part is a lower-case word ("has 25000" after
    "account", "expires 2031-05-01" after "passport"), or one of which is a date: a sentence
    goes on, no id."""
    parts = value.split(" ")
    first = parts[0]
    if len(parts) == 1:
        return False
    if any(is_date(p) for p in parts):
        return True
    if not first.isalpha() or not first.islower():
        return False
    return len(first) >= 3 or first in STOP_WORDS or is_vocabulary(first)


#: A value glued to its label by a hyphen: digits, maybe separated, maybe a letter or two after
#: ("MRN-4471205", "EMP-2024-0093", "RN-77120A"); "tax-report" or "case-study-2" are no ids.
_GLUED_VALUE = re.compile(r"\d[\d./-]*\d[A-Za-z]{0,2}")


class IdLabelRecognizer(LocalRecognizer):
    """Ids right after an id label, in prose and ``label: value`` lines, whatever their shape."""

    def __init__(self) -> None:
        entities = sorted(set(id_labels().values()))
        super().__init__(supported_entities=entities, name="IdLabelRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report each labelled id as the label's type."""
        out, pos, rx, starts = [], 0, id_label_re(), _label_starts(text)
        while (m := _match_from(rx, text, pos, starts)) is not None:
            value, glued = m.group("value"), m.group("glue") is not None
            norm = norm_label(m.group("label"))
            et = label_entity(m.group("label"), ids_first=True) or stem_labels().get(norm)
            if et is None and _after_id_word(text, m.start(), numbers=True):
                et = lead_stems().get(norm)  # "nr_pracownika=…": after its number word only
            short = _three_digit_id(text, m, et)
            if (
                not (label_value_ok(et, value) or short)
                or _starts_with_a_word(value)
                or state_zip(text, m.start("label"), m.group("label"), value)
                or (glued and not _GLUED_VALUE.fullmatch(value))
            ):
                pos = m.end("label")  # "Patient MRN: 0045...": the next label may own it
                continue
            pos = m.end()
            if norm_label(m.group("label")) in GENERIC_LABELS and THING_WORD_BEFORE.search(
                text, max(0, m.start("label") - 30), m.start("label")
            ):
                continue  # "Order ID: 54321": the generic label belongs to a thing
            if et is None or (entities and et not in entities):
                continue
            start = m.start("label") if glued else m.start("value")  # "MRN-4471205" whole
            score = SHORT_ID_SCORE if short else LABEL_SCORE
            spans = [(start, m.end("value")), *same_shape_list(text, m.end("value"), value)]
            out += [RecognizerResult(et, a, b, score) for a, b in spans]  # "claims A-1, A-2"
        return (
            out
            + _label_line_ids(text, entities, {r.start for r in out})
            + _near_label_ids(text, entities)
            + _handles(text, entities)
            + _answers(text, entities)
        )
