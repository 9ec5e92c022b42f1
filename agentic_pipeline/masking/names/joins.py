"""The name parts joined to what the model masks, whatever their probability: half a name left
in clear names the person. Units by ``model.NameModel.name_units`` (``with_name_parts``),
character spans by ``model.NameModel.spans`` (``with_particles``) and
``recognizer.without_titles`` (``particles_before``)."""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.login_names import SPEAKER_PREFIX
from agentic_pipeline.masking.names.features import TextFeatures
from agentic_pipeline.masking.names.floor import between_names, organisation_word
from agentic_pipeline.masking.names.lexicon import (
    NAME_PARTICLES,
    given_names_before_a_name,
    is_title,
    listed_name,
    listed_names,
    surnames_after_a_first_name,
)
from agentic_pipeline.masking.names.words import is_role
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    STOP_WORDS,
    WEEKDAYS,
    WORD_LANGUAGES,
    is_city,
    is_place_or_calendar,
    is_vocabulary,
)


def with_name_parts(tf: TextFeatures, probs: dict[int, float], names: set[int]) -> set[int]:
    """``names`` with the name parts around the capitalised ones among them, without a word that
    joins two people (``two_people``):

    * a listed surname right after one: a surname that is also a word ("Brown", "White", and the
      census's frequent ones, ``surnames_after_a_first_name``) is no vocabulary after a masked
      first name, listed or not ("<first> Green: hi" in a chat);
    * a frequent given name right before one ("Lucky <Surname>", ``given_names_before_a_name``),
      but a title, role or weekday ("Judge", "Sunday");
    * a surname written first, before a comma and a masked first name, at the start of a
      line, after a colon or a time ("Okoro, <First>" of a list or a form): a listed surname or
      a word no language has, in capitals or not, but a place or calendar word ("Lagos,
      <First>"); and a listed first name after a comma and a surname masked there ("<Surname>,
      Ada");
    * the other half of an airline's ``SURNAME/GIVEN``, in capitals on both sides of the slash;
    * a capitalised word right beside one, a space between, that no name list has and that is
      no word, title, role, place or organisation of a language (``_unlisted_part``: a middle
      name or a second surname the lists lack, "<First> Araújo <Unlisted>"), repeated outward."""
    lasts, firsts = surnames_after_a_first_name(), given_names_before_a_name()
    out = _with_unlisted_parts(tf, probs, set(names))
    for i in sorted(names):
        if not tf.words[i][:1].isupper():
            continue
        for j in (i - 2, i + 2):
            if j in probs and j not in out and _slash_pair(tf, min(i, j), max(i, j)):
                out.add(j)
        j = i + 2 if i + 2 < len(tf.words) and tf.words[i + 1] == "," else -1
        if j in probs and j not in out and _first_after_surname(tf, i, j):
            out.add(j)
        for j, listed in ((i + 1, lasts), (i - 1, firsts)):
            w = tf.words[j] if j in probs and j not in out else ""
            if not w[:1].isupper() or fold(w) not in listed or fold(w) in STOP_WORDS:
                continue
            if j < i and (is_title(w) or is_role(w) or fold(w) in WEEKDAYS):
                continue
            if tf.text[tf.ends[min(i, j)] : tf.starts[max(i, j)]] == " ":
                out.add(j)
        j = i - 2 if i >= 2 and tf.words[i - 1] == "," else -1  # the unit before the comma
        if j in probs and j not in out and _surname_first(tf, j, i, lasts):
            out.add(j)
        if i - 1 in probs and i - 1 not in out and _surname_before_first(tf, i - 1, i):
            out.add(i - 1)
    for i in sorted(out):
        out.update(_titled_name_rest(tf, probs, i))
    return two_people(tf, out)


#: What closes a salutation's name: a comma or the line's end.
_NAME_CLOSE = re.compile(r"[ \t]*(?:,|\r?$)", re.M)
#: The word right before a name (a title: "Sra.", "Mrs.", "Frau").
_TITLE_BEFORE = re.compile(r"(?<!\S)([^\W\d_][\w.'’-]*)[ \t]+$")


def _titled_name_rest(tf: TextFeatures, probs: dict[int, float], i: int) -> list[int]:
    """The units after the masked unit ``i`` that a title opens, up to a comma or the line's
    end, when all are capitalised name words ("Sra. <given> <surname> <surname>,": a surname
    that is also a word of its language): no stop word, title, role, organisation, place,
    calendar or English word; at most three."""
    title = _TITLE_BEFORE.search(tf.text, max(0, tf.starts[i] - 30), tf.starts[i])
    if title is None or not is_title(title.group(1)):
        return []
    rest, j = [], i + 1
    while j in probs and len(rest) < 3 and tf.text[tf.ends[j - 1] : tf.starts[j]] == " ":
        w, f = tf.words[j], fold(tf.words[j])
        if not w[:1].isupper() or len(w) < 2 or f in STOP_WORDS or is_title(w) or is_role(w):
            return []
        if organisation_word(w) or is_place_or_calendar(f) or is_vocabulary(w, languages=("en",)):
            return []  # an English word ("Said Yes,") is no surname the lists lack
        rest.append(j)
        if _NAME_CLOSE.match(tf.text, tf.ends[j]) is not None:
            return rest
        j += 1
    return []


#: What closes a list's "<Surname> <Given>" field: the line's end (also a CRLF line's), a dash,
#: bar, comma, semicolon, tab, bracket or a column's gap.
_FIELD_END = re.compile(r"[ \t]*(?:$|\r|[—–|,;(\t]|-[ \t]|  )", re.M)


def _surname_before_first(tf: TextFeatures, j: int, i: int) -> bool:
    """Unit ``j`` is a surname written before the masked listed first name ``i`` with no comma,
    as lists of Slavic, Hungarian and East Asian names do ("<Surname> <Given> — <phone>"): at
    the head of its line, capitalised, no English word, title, role, place or organisation, and
    the field closes after the first name."""
    w = tf.words[j]
    if not w[:1].isupper() or len(w) < 2 or fold(tf.words[i]) not in listed_names()[0]:
        return False
    if tf.text[tf.ends[j] : tf.starts[i]] != " " or not _line_head(tf.text, tf.starts[j]):
        return False
    if _FIELD_END.match(tf.text, tf.ends[i]) is None:
        return False
    f = fold(w)
    if f in STOP_WORDS or is_title(w) or is_role(w) or organisation_word(w) or is_city(w):
        return False
    return not is_place_or_calendar(f) and not is_vocabulary(w, languages=("en",))


def _with_unlisted_parts(tf: TextFeatures, probs: dict[int, float], names: set[int]) -> set[int]:
    """``names`` with the unlisted name parts beside them (``_unlisted_part``), outward."""
    todo = sorted(names)
    while todo:
        i = todo.pop()
        if not tf.words[i][:1].isupper():
            continue
        for j in (i - 1, i + 1):
            a, b = min(i, j), max(i, j)
            if (
                j in probs
                and j not in names
                and tf.text[tf.ends[a] : tf.starts[b]] == " "
                and _unlisted_part(tf.words[j], tf.words[i])
            ):
                names.add(j)
                todo.append(j)
    return names


def _unlisted_part(word: str, beside: str) -> bool:
    """``word`` (beside the masked ``beside``) reads as a part of the same name: capitalised
    like it (in capitals only beside capitals), in no name list (listed parts join by the
    rules above), and no stop word, vocabulary, title, role, place, calendar or organisation
    word of the languages the lists know."""
    if not word[:1].isupper() or len(word) < 3 or (word.isupper() and not beside.isupper()):
        return False
    if listed_name(word) or is_title(word) or is_role(word) or organisation_word(word):
        return False
    f = fold(word).strip("'’.-")
    return not (
        f in STOP_WORDS
        or is_vocabulary(word, languages=WORD_LANGUAGES)
        or is_place_or_calendar(f)
        or is_city(word)
    )


def _surname_first(tf: TextFeatures, j: int, i: int, lasts: frozenset[str]) -> bool:
    """Unit ``j`` is a surname written before a comma and the masked first name ``i``, at the
    start of its line or after a colon."""
    w, f = tf.words[j], fold(tf.words[j])
    if tf.text[tf.ends[j] : tf.starts[i]] != ", " or not w[:1].isupper():
        return False
    if not _line_head(tf.text, tf.starts[j]):
        return False
    if f in STOP_WORDS or is_place_or_calendar(w) or is_city(w) or is_title(w) or is_role(w):
        return False
    return f in lasts or not is_vocabulary(w)


#: A comma and a capitalised word after a surname written first.
_GIVEN_AFTER = re.compile(r", ([^\W\d_][\w'’-]*)")


def surname_before_given(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is a surname written first at the head of its line, before a comma
    and a listed first name ("Bed 3  <SURNAME>, <Given>", "| <SURNAME>, <Given> |")."""
    m = _GIVEN_AFTER.match(text, end)
    if m is None or fold(m.group(1)) not in listed_names()[0]:
        return False
    return _line_head(text, start)


#: A surname written first, then a comma, right before ``start`` ("<SURNAME>, " of "<SURNAME>,
#: <GIVEN>").
_SURNAME_COMMA = re.compile(r"([^\W\d_][\w'’-]*), \Z")


def given_after_surname(text: str, start: int) -> bool:
    """``start`` follows a surname written first at the head of its line and a comma ("DRIVER:
    <SURNAME>, <GIVEN>", "Bed 3  <Surname>, <Given>"): the given name of that person."""
    m = _SURNAME_COMMA.search(text, max(0, start - 60), start)
    return m is not None and _line_head(text, m.start(1))


def _first_after_surname(tf: TextFeatures, i: int, j: int) -> bool:
    """Unit ``j`` is a first name after a comma and the masked surname ``i`` written first at
    the head of a line (``_line_head``): "<Surname>, Ada", "<SURNAME>, ADA"; a listed first
    name, or a word that no language has, in capitals or not, but a place or calendar word."""
    w, f = tf.words[j], fold(tf.words[j])
    if tf.text[tf.ends[i] : tf.starts[j]] != ", " or not w[:1].isupper():
        return False
    if _title_not_name(w) or is_role(w) or not _line_head(tf.text, tf.starts[i]):
        return False
    if f in STOP_WORDS or is_place_or_calendar(w) or is_city(w):
        return False
    return f in listed_names()[0] or not is_vocabulary(w, languages=WORD_LANGUAGES)


def _slash_pair(tf: TextFeatures, a: int, b: int) -> bool:
    """Units ``a`` and ``b`` are the two halves of ``SURNAME/GIVEN`` (an airline's passenger
    name): capitals on both sides of a slash with no space, no title ("MR")."""
    wa, wb = tf.words[a], tf.words[b]
    if tf.words[a + 1] != "/" or tf.ends[a] != tf.starts[a + 1] or tf.ends[a + 1] != tf.starts[b]:
        return False
    return all(len(w) > 1 and w.isupper() and not _title_not_name(w) for w in (wa, wb))


def _title_not_name(word: str) -> bool:
    """A title or kinship word that no name list has ("MR", "Mme"; not "Tia", "Nana")."""
    return is_title(word) and not listed_name(word)


#: Spaces, a bullet, a number or an id before a line's value ("- 1234567893 <Surname>, <First>":
#: ``_line_head`` reads labels and time stamps besides).
_HEAD = re.compile(r"[ \t]*(?:[-*•]|\d{1,3}[.)]?)?[ \t]*(?:[A-Za-z]{0,4}\d[\w-]{3,19}[ \t]+)?")


def _line_head(text: str, start: int) -> bool:
    """``start`` opens its line's value: after nothing but a bullet, a label's colon, a table's
    bar, a dash between fields ("Bed 4 — <Surname>, <First>"), a column's gap or a time stamp
    ("14:00 <Surname>, <First>")."""
    before = text[text.rfind("\n", 0, start) + 1 : start]
    return (
        _HEAD.fullmatch(before) is not None
        or before.rstrip().endswith((":", "|", " —", " –"))
        or before.endswith(("  ", "\t"))
        or SPEAKER_PREFIX.fullmatch(before) is not None
    )


#: Name particles that join two people's names as often as one's ("<First> y <First>"): no
#: particle of ``_particle``.
_COORDINATORS = frozenset({"y", "e", "i"})
#: A word and the space after it, read backwards from a name (``particles_before`` keeps the
#: lower-case particles).
_WORD_BEFORE = re.compile(r"(?<![^ \t\n])[^\W\d_]+[ \t]$")


def _particle(word: str) -> bool:
    """A lower-case name particle that joins one name's words, not two people's names."""
    f = fold(word)
    return word.islower() and f in NAME_PARTICLES and f not in _COORDINATORS


def particles_before(text: str, start: int, end: int) -> int:
    """The start of the name ``start:end`` with up to three particles before it, the first of
    them maybe capitalised, when they stand at the head of the line or after a title and the
    name is a surname ("van der <Surname>", "Van der <Surname>"), not a first name and more
    ("van <First> <Last>": "from"); ``start`` otherwise."""
    words = text[start:end].split()
    firsts, lasts = listed_names()
    if len(words) > 1 and (fold(words[0]) in firsts or fold(words[0]) not in lasts):
        return start
    a = start
    for _ in range(3):
        m = _WORD_BEFORE.search(text, max(0, a - 16), a)
        if m is None:
            break
        word = m.group().rstrip()
        if _particle(word):
            a = m.start()
            continue
        if word[:1].isupper() and word[1:].islower() and _particle(word.lower()):
            a = m.start()  # "Van der <Surname>": the first particle, capitalised
        break
    if a == start:
        return start
    before = text[text.rfind("\n", 0, a) + 1 : a].split()
    return a if _line_head(text, a) or (before and is_title(before[-1])) else start


#: A nickname in quotes between the parts of a name ('<First> "Lupe" <Last>'), capitalised.
_NICKNAME = re.compile(r"[ \t]+[\"'“‘«](?=[A-ZÀ-ÖØ-ÞĀ-Ž])[^\W\d_][\w'’-]*[\"'”’»][ \t]+")
#: A nickname in quotes and the capitalised word after it, after a name.
_NICKNAME_AFTER = re.compile(rf"{_NICKNAME.pattern}([^\W\d_][\w'’-]*)")
#: A capitalised word and a nickname in quotes after it, before a name.
_NICKNAME_BEFORE = re.compile(rf"(?<![\w'’-])([^\W\d_][\w'’-]*){_NICKNAME.pattern}$")


#: Particles and a capitalised word after a name, ending a field: the line's end, a comma, a
#: semicolon, a slash, a bar, a dash or a bracket ("<First> <Surname> de <Surname> /").
_PARTICLE_TAIL = re.compile(
    r"((?:[ \t]+[^\W\d_A-Z]{1,4}){1,2})[ \t]+[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*(?=[ \t]*(?:$|[,;/|(—–]))",
    re.MULTILINE,
)


def with_particles(text: str, spans: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Person ``spans`` with the name particles and nicknames that belong to them: particles
    between two spans on one line make one name ("<First> de las <Surnames>"), and those before
    a span at the head of its line or after a title are its own ("van den <Surname>" in a
    form's line, "Sra. de la <Surname>"), and those after a name of two words or more before a
    capitalised word that ends a field are its own ("<First> <Surname> de <Surname>,"); a
    nickname in quotes joins the name it stands in, and
    the word on its other side when that is a name's ('<First> "Lupe" <Last>'), so that no
    part of a name stays in clear beside a masked one."""
    out: list[tuple[int, int, float]] = []
    for s, e, p in sorted(spans):
        if out:
            ps, pe, pp = out[-1]
            gap = text[pe:s]
            words = gap.split()
            if (
                gap[:1] == " " == gap[-1:]
                and 0 < len(words) <= 3
                and "\n" not in gap
                and all(_particle(w) for w in words)
            ) or _NICKNAME.fullmatch(gap):
                out[-1] = (ps, e, max(pp, p))
                continue
        s = particles_before(text, s, e)
        m = _NICKNAME_BEFORE.search(text, max(0, s - 60), s)
        if m and _name_word(m.group(1)) and (not out or out[-1][1] <= m.start(1)):
            s = m.start(1)
        out.append((s, e, p))
    grown: list[tuple[int, int, float]] = []
    for k, (s, e, p) in enumerate(out):
        if grown and e <= grown[-1][1]:
            continue  # the nickname of the name before, taken in with it
        tail = _PARTICLE_TAIL.match(text, e)
        if tail and len(text[s:e].split()) > 1 and all(_particle(w) for w in tail[1].split()):
            e = tail.end()  # "<First> <Surname> de <Surname>" ending a field: one name
        m = _NICKNAME_AFTER.match(text, e)
        nxt = out[k + 1] if k + 1 < len(out) else None
        # not into the next name, unless it is the nickname itself ('<First> "<Nick>" <Last>')
        if (
            m
            and _name_word(m.group(1))
            and (nxt is None or nxt[0] >= m.end(1) or nxt[1] <= m.end(1))
        ):
            e = m.end(1)
        grown.append((s, e, p))
    return grown


#: The other half of a hyphenated name, right after or before a span ("<First>-<Second>").
_HALF_AFTER = re.compile(r"-[^\W\d_][\w'’]*")
_HALF_BEFORE = re.compile(r"(?<![\w'’])[^\W\d_][\w'’]*-$")


def with_hyphen_halves(
    text: str, spans: list[tuple[int, int, float]]
) -> list[tuple[int, int, float]]:
    """Person ``spans`` grown over the hyphenated word they stop inside ("<Surname>-Qorvath",
    "Qorvath-<Surname>"), a half written in the case of the span's first letter: a
    double-barrelled name is one name, half of it names the person."""
    out = []
    for s, e, p in spans:
        upper = text[s : s + 1].isupper()  # a half written as the name is ("-qorvath" too)
        while (m := _HALF_AFTER.match(text, e)) and text[m.start() + 1].isupper() == upper:
            e = m.end()
        while (m := _HALF_BEFORE.search(text, max(0, s - 40), s)) and m.group()[
            0
        ].isupper() == upper:
            s = m.start()
        out.append((s, e, p))
    return out


def _name_word(word: str) -> bool:
    """A capitalised word that may be part of a name: a listed name, or no word of a language,
    a place or a calendar."""
    if not word[:1].isupper() or is_place_or_calendar(word) or fold(word) in STOP_WORDS:
        return False
    return listed_name(word) or not is_vocabulary(word, languages=WORD_LANGUAGES)


def two_people(tf: TextFeatures, names: set[int]) -> set[int]:
    """``names`` without a word that joins two of them as two people's ("<First> und <First>":
    ``floor.between_names``)."""
    return {
        i for i in names if not (i - 1 in names and i + 1 in names and between_names(tf.words[i]))
    }
