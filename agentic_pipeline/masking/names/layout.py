"""Where a span sits in a text's layout, for the name model and its floor: the key of a form's
field ("<key>: <value>"), the heading line above a form, the word a greeting greets, capitals in
brackets that abbreviate the words before them. spaCy reads a field key or a form's title in a
language it does not know as a person as often as a name, and plain Presidio masks them; these
tell the floor where a span stands, the model whether its words are a name."""

from __future__ import annotations

import re
from functools import lru_cache

from agentic_pipeline.masking.detectors.label_lists import label_entity
from agentic_pipeline.masking.detectors.login_names import SPEAKER_PREFIX, chat_spans
from agentic_pipeline.masking.names.cjk import honorific_values
from agentic_pipeline.masking.names.fields import (
    script_label_values,
    script_list_values,
    script_speaker_values,
    script_title_values,
)
from agentic_pipeline.masking.names.lexicon import is_title, listed_name, listed_names
from agentic_pipeline.masking.names.words import is_role
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import STOP_WORDS, is_vocabulary, zipf

#: A form's field line: a key of 42 characters at most (maybe after a bullet, maybe in Markdown
#: emphasis as agents write keys: "- **Total:** $240", "**Fare**: Economy"), its colon, a value
#: on the same line.
_FIELD_LINE = re.compile(
    r"^[ \t]*(?:[-*•>][ \t]+)?(?:\*\*|__)?([^\W\d_](?:[^\n:：]{0,40}?[^\s:：*_])?)(?:\*\*|__)?"
    r"[ \t]*[:：](?:\*\*|__)?[ \t]*(?=[^\n]*\w)(\S[^\n]*)$",
    re.MULTILINE,
)
#: Field lines that make a text a form (or a record): a chat of two speakers has fewer keys.
MIN_FIELDS = 3
#: Words of a form's short value (a name, a date, a number, an address); a chat line says more.
_SHORT_VALUE = 6
#: The share of a form's values that are short: a chat's lines are sentences ("<speaker>: I need
#: the passport numbers of all of us") where a form's are not.
_SHORT_SHARE = 0.75
#: Lines under a heading read for its form's fields.
_HEADING_WINDOW = 4
#: A value that is a phone number alone: seven digits at least, with a phone's separators.
_PHONE_VALUE = re.compile(r"\+?[\d()][\d ()./-]{5,}\d\s*")


#: A field line's key: (start, end, folded key, words of the value, the value is a phone).
Field = tuple[int, int, str, int, bool]


@lru_cache(maxsize=256)
def _fields(text: str) -> tuple[Field, ...]:
    """(start, end, folded key, words of the value, the value is a phone) of the key of each
    field line of ``text``."""
    return tuple(
        (
            m.start(1),
            m.end(1),
            " ".join(m.group(1).split()).casefold(),
            len(m.group(2).split()),
            _PHONE_VALUE.fullmatch(m.group(2)) is not None
            and sum(c.isdigit() for c in m.group(2)) >= 7,
        )
        for m in _FIELD_LINE.finditer(text)
    )


def _form(fields: tuple[Field, ...]) -> bool:
    """Field lines that make a form: at least ``MIN_FIELDS``, as many different keys as lines (a
    chat's speakers come back line after line) and mostly short values (a chat's are
    sentences)."""
    keys = [f[2] for f in fields]
    short = sum(f[3] <= _SHORT_VALUE for f in fields)
    return (
        len(keys) >= MIN_FIELDS
        and len(set(keys)) == len(keys)
        and short >= _SHORT_SHARE * len(fields)
    )


def form_key(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is the whole key of a field line of a form ("<key>: <value>", in a text
    of at least ``MIN_FIELDS`` field lines whose keys all differ and whose values are mostly
    short, ``_form``): a label, whatever its language ("Emri:", "Upravičenec:")."""
    fields = _fields(text)
    return any(f[0] == start and f[1] == end for f in fields) and _form(fields)


def phone_list_keys(text: str) -> list[tuple[int, int]]:
    """(start, end) of the keys of field lines whose value is a phone number alone, when there
    are two at least: a phone list's entries, people's names or roles ("<name>: <phone>",
    "Reception: <phone>")."""
    keys = [(f[0], f[1]) for f in _fields(text) if f[4]]
    return keys if len(keys) >= 2 else []


def form_heading(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` lies on the first line of ``text``, a line with no colon, over a form:
    at least ``MIN_FIELDS`` of the next ``_HEADING_WINDOW`` lines are field lines with different
    keys (a form's title: "<Membership form of a club>" above "Name: ...")."""
    first_end = text.find("\n")
    if first_end < 0 or end > first_end or ":" in text[:first_end] or "：" in text[:first_end]:
        return False
    below = first_end + 1
    for _ in range(_HEADING_WINDOW):
        nxt = text.find("\n", below)
        below = len(text) if nxt < 0 else nxt + 1
    return _form(tuple(f for f in _fields(text) if f[0] < below))


#: A salutation or greeting, then the one or two capitalised words greeted and a comma, an
#: exclamation mark or the line's end ("Ciao <name>,", "Hallo <name>!").
_GREETED = re.compile(
    r"(?P<title>[^\W\d_]+)[ \t]+(?P<name>[^\W\d_][\w'’-]*(?:[ \t]+[^\W\d_][\w'’-]*)?)"
    r"[ \t]*(?:[,!]|$)",
    re.MULTILINE,
)


#: The word right before a span on its line (a greeting that a span of its name left out).
_WORD_BEFORE = re.compile(r"(?<![\w'’-])[^\W\d_]+[ \t]+$")


def greeted(text: str, start: int, end: int) -> int | None:
    """Where the name starts when ``text[start:end]`` is a salutation or greeting and the one or
    two capitalised words it greets, or those words right after one, before a comma, an
    exclamation mark or the line's end: a person, whatever the word means in the text's
    language ("Ciao <name>,"; a nickname that is a word); None otherwise, and for an English
    word ("Dear Customer,", "Hello World!")."""
    before = _WORD_BEFORE.search(text, max(0, start - 24), start)
    for at in (start, before.start()) if before else (start,):
        m = _GREETED.match(text, at)
        if m is not None and m.end("name") == end and is_title(m["title"]):
            words = m["name"].split()
            english = any(not w[0].isupper() or zipf(w.lower(), ("en",)) >= 3 for w in words)
            return None if english else m.start("name")
    return None


def abbreviation_in_brackets(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is capitals in brackets that abbreviate the words right before the
    bracket, no capitalised one a listed name: its letters are found in order in those
    words, the first at the start of a word, within min(n + 5, 2n) words for n letters (Schwartz
    and Hearst's test for an abbreviation's definition, 2003); two letters are the capitalised
    initials of the two words before. A person's initials after the name stay a name's."""
    short = text[start:end]
    if not (2 <= len(short) <= 6 and short.isalpha() and short.isupper()):
        return False
    if text[start - 1 : start] != "(" or text[end : end + 1] != ")":
        return False
    line_start = text.rfind("\n", 0, start) + 1
    words = text[line_start : start - 1].split()[-min(len(short) + 5, 2 * len(short)) :]
    if len(short) == 2:  # two letters: the initials of the two words before, no more
        initials = "".join(w[:1] for w in words[-2:])
        if initials.upper() != short or not all(w[:1].isupper() for w in words[-2:]):
            return False
    long = " ".join(words)
    j = len(long) - 1
    for k in range(len(short) - 1, -1, -1):
        c = short[k].lower()
        while j >= 0 and (long[j].lower() != c or (k == 0 and j > 0 and long[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return False
        j -= 1
    defined = [w.strip(",.;:") for w in long[j + 1 :].split()]
    return not any(w[:1].isupper() and listed_name(w) for w in defined)


def without_abbreviations(
    text: str, spans: list[tuple[int, int, float]]
) -> list[tuple[int, int, float]]:
    """``spans`` without capitals in brackets that abbreviate the words before them
    (``abbreviation_in_brackets``: "Miami (MIA)", "Data Protection Officer (DPO)"), but a
    person's initials right after a span of the name ("<First> <Last> (FL)")."""
    return [
        sp
        for sp in spans
        if not abbreviation_in_brackets(text, sp[0], sp[1])
        or any(sp[0] - 3 <= b < sp[0] for _, b, _ in spans)
    ]


#: A chat line with a time stamp (``SPEAKER_PREFIX``: "[2/3/27, 9:01 PM] ", "[18:40] ") and its
#: speaker: one or two capitalised words before a colon and the message.
_CHAT_LINE = re.compile(
    rf"(?m)^{SPEAKER_PREFIX.pattern}(?P<name>[^\W\d_a-z][^\W\d_]*(?:[ ][^\W\d_a-z][^\W\d_]*)?)"
    r"[ \t]*:[ \t]+\S"
)


def chat_speaker_values(text: str) -> list[tuple[int, int]]:
    """(start, end) of the speakers of a time-stamped chat whose speakers are people: two speak,
    one of them twice, and one is a listed given name; then every speaker is a name, a word
    of a language too ("Sunny", "Bay") when it speaks twice, but a role, a label or a
    stop word ("System", "Agent", "Note")."""
    found: dict[str, list[tuple[int, int]]] = {}
    for m in _CHAT_LINE.finditer(text):
        name = m.group("name")
        if any(is_role(w) or fold(w) in STOP_WORDS for w in name.split()) or label_entity(name):
            continue
        found.setdefault(name, []).append(m.span("name"))
    given = {n for n in found if fold(n.split()[0]) in listed_names()[0]}
    if not given:
        return []
    return chat_spans(
        {n: s for n, s in found.items() if n in given or len(s) > 1 or not is_vocabulary(n)}
    )


def placed_names(text: str) -> list[tuple[int, int]]:
    """(start, end) of the names that their place says are names, whatever the model's
    probability: in scripts no name list holds, after a label, a title or an honorific, as a
    chat's speakers or in a list (``fields``, ``cjk``), and a time-stamped chat's speakers."""
    return [
        *script_label_values(text),
        *script_speaker_values(text),
        *script_title_values(text),
        *script_list_values(text),
        *honorific_values(text),
        *chat_speaker_values(text),
    ]
