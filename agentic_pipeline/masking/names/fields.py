"""Labels that name a person and the values written after them: "Payee: <name>", the header of a
CSV column of names, and a name written surname first as a labelled value ("From: <Last>,
<First> <...>", "Patient name: <LAST>, <FIRST>"). The labels are data (``person`` of
``detectors/labels.yaml``); the name model reads them as features and the span finder as a
value's extent."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from agentic_pipeline.masking.detectors.data_files import alternation, data_file
from agentic_pipeline.masking.detectors.field_labels import next_label
from agentic_pipeline.masking.detectors.label_lists import label_entity, unaccented
from agentic_pipeline.masking.detectors.labels import norm_label
from agentic_pipeline.masking.detectors.login_names import chat_spans
from agentic_pipeline.masking.json_walker import key_entity
from agentic_pipeline.masking.names.cjk import (
    HAN,
    HAN_KANA,
    HANGUL_LETTERS,
    HONORIFIC_AFTER,
    HONORIFIC_DATA,
    honorific_values,  # noqa: F401  (public here too)
    one_word_name,
)
from agentic_pipeline.masking.names.lexicon import (
    DATA,
    NAME_PARTICLES,
    fold,
    given_name_bin,
    is_title,
    listed_name,
    listed_names,
    read_lines,
)
from agentic_pipeline.masking.vocabulary import (
    NO_SPACE_SCRIPT,
    WORD_LANGUAGES,
    is_city,
    is_place_or_calendar,
    is_vocabulary,
    listed_word,
)

#: Labels and column headers whose value is a person (``person`` of ``detectors/labels.yaml``),
#: as written and without their accents (a key "imie" for "imię").
PERSON_LABELS = frozenset(
    form for x in data_file("labels.yaml")["person"] for form in (x, unaccented(x))
)
#: A field label right before a word on its line: "Name:", "**Payee** -", "Account holder =",
#: "cardholder='" and '"holder": "' (a log line's ``key='value'``, JSON written in prose).
LABEL_BEFORE = re.compile(r"([^\W\d_][\w .'/&()-]{0,40}?)[\s*_'\"]*[:=|][\s*_'\"]*$")
#: A ``label:`` at a line's start (maybe after a bullet or a form box's number: "2 PATIENT NAME:",
#: "3a. Name:"), and what follows it.
_LINE_LABEL = re.compile(
    r"[ \t]*(?:[-*•>][ \t]+|\d{1,2}[a-z]?[.)]?[ \t]+)?"
    r"([^\W\d_][\w .'/&()-]{0,40}?)[ \t*_]*[:=][ \t*_]*"
)
#: A name written surname first, alone in its field: "<Last>, <First>", "<LAST>, <FIRST> J." (then
#: the line's end, an e-mail address in brackets, the next field or the end of a sentence).
_LAST_FIRST = re.compile(
    r"[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*,[ \t]+[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*"
    r"(?:[ \t]+[^\W\d_])?\.?(?=[ \t]*(?:$|\r|[<(\[|;])|(?<=\.)[ \t]+[^\W\d_])",
    re.M,
)


@lru_cache(maxsize=4096)
def person_key(label: str) -> bool:
    """The label or column header names a person ("Customer", "Account Name", "Payee"): one of
    ``PERSON_LABELS`` (or ends with one), or a key the JSON walker masks as a person."""
    words = re.findall(r"[^\W\d_]+", label.lower())
    if not words:
        return False
    if any(" ".join(words[k:]) in PERSON_LABELS for k in range(len(words))):
        return True
    last = words[-1]  # written without spaces, a label ends a longer one ("患者氏名")
    if NO_SPACE_SCRIPT.match(last) and any(last[k:] in PERSON_LABELS for k in range(len(last))):
        return True
    return key_entity(label) == "PERSON"


#: Person labels whose value is a company, a team or an address as often as a person
#: (``person_shared`` of ``detectors/labels.yaml``: "customer", "provider", "from").
SHARED_LABELS = frozenset(data_file("labels.yaml")["person_shared"])


def person_field_key(key: str) -> bool:
    """A structured field's key that names a person and nothing else ("Vorname", "claimant",
    "insured_name"): the whole key is one of ``PERSON_LABELS`` and none of ``SHARED_LABELS``
    ("customer" holds companies; "date_to", "product_name" are no person labels)."""
    label = " ".join(re.findall(r"[^\W\d_]+", norm_label(key)))
    return label in PERSON_LABELS and label not in SHARED_LABELS


def label_before(text: str, start: int) -> str | None:
    """The field label right before the word at ``start`` on its line, lower-case with its
    spaces folded ("account holder" for "**Account  Holder** -"), or None."""
    before = text[max(text.rfind("\n", 0, start) + 1, start - 48) : start]
    if ":" not in before and "=" not in before and "|" not in before:
        return None
    label = LABEL_BEFORE.search(before)
    return " ".join(label.group(1).split()).lower() if label else None


def after_person_label(text: str, start: int) -> bool:
    """The word at ``start`` is the first after a person's label on its line ("Cardholder:")."""
    label = label_before(text, start)
    return label is not None and person_key(label)


def last_first_value(text: str, start: int) -> tuple[int, int] | None:
    """(start, end) of a name written surname first as the value of a label that names a person
    ("From: <Last>, <First> <...>", "Patient name: <LAST>, <FIRST>"), on the line of ``start``; None
    when there is none."""
    m = _LINE_LABEL.match(text, text.rfind("\n", 0, start) + 1)
    if m is None or not person_key(" ".join(m.group(1).split()).lower()):
        return None
    v = _LAST_FIRST.match(text, m.end())
    if v is None or not all(w[:1].isupper() for w in v.group().replace(",", " ").split()):
        return None
    last = v.group().split()[-1]
    # a full stop after a whole word ends the sentence, not the name; after an initial it is hers
    return v.start(), v.end() - (last.endswith(".") and len(last) > 2)


def last_first_values(text: str) -> list[tuple[int, int]]:
    """Every ``last_first_value`` of ``text``, one per line at most."""
    if "," not in text or (":" not in text and "=" not in text):
        return []
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    return [v for s in line_starts if (v := last_first_value(text, s)) is not None]


#: "<Last>, <First>" alone in a field of a list or table: after a line's start (maybe a bed's or
#: a slot's code: "B1", "06:00"), a tab or a gap of two spaces, and before one or the line's end.
_FIELD_LAST_FIRST = re.compile(
    r"(?m)(?:^[ \t]*(?:[A-Z]?\d{1,2}[ \t]+|\d{1,2}:\d{2}[ \t]+)?|[ \t]{2,}|\t)"
    r"(?P<v>[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*,[ \t][^\W\d_][^\W\d_'’-]*)"
    r"(?=[ \t]{2}|\t|[ \t]*\r?$)"
)


def field_last_first_values(text: str) -> list[tuple[int, int]]:
    """(start, end) of the names a list or table writes surname first with no label, alone in
    their field (``_FIELD_LAST_FIRST``): both words capitalised, the second a given name of the
    name lists or the given-name data ("<LAST>, <FIRST>  <SSN>", "06:00  <Last>, <First>  ...")."""
    if "," not in text:
        return []
    firsts = listed_names()[0]
    out = []
    for m in _FIELD_LAST_FIRST.finditer(text):
        last, first = (w.strip() for w in m.group("v").split(",", 1))
        if not (last[:1].isupper() and first[:1].isupper()):
            continue
        if is_city(last) or any(is_place_or_calendar(fold(w)) for w in (last, first)):
            continue  # "Paris, Texas": a place and its region
        if is_title(last) or (
            is_vocabulary(last, languages=WORD_LANGUAGES) and not listed_name(last)
        ):
            continue  # "Groetjes, <name>": a closing before the name
        if fold(first) in firsts or given_name_bin(first):
            out.append((m.start("v"), m.end("v")))
    return out


#: A chat export's header line: a display name of two to four words alone, then the time of the
#: message ("<Surname>, <Given>  3:14 PM" of Teams, "<Given> <Surname>  11:51 PM" of Slack); a
#: full stop between hours and minutes only before am/pm ("Python 3.11" is a version).
_CHAT_HEADER = re.compile(
    r"^[ \t]*([^\W\d_][\w'’.-]*(?:,?[ \t][^\W\d_][\w'’.-]*){1,3})[ \t]+"
    r"\d{1,2}(?::\d{2}(?:[ \t]?[AaPp]\.?[Mm]\.?)?|\.\d{2}[ \t]?[AaPp]\.?[Mm]\.?)[ \t]*$",
    re.M,
)


def chat_header_names(text: str) -> list[tuple[int, int]]:
    """(start, end) of the display names of a chat export's header lines (``_CHAT_HEADER``):
    two to four capitalised words alone before a time at the line's end (one word is as often a
    product and its version or a meeting's name: "Standup 9:30 AM")."""
    if ":" not in text and "." not in text:
        return []
    return [
        m.span(1)
        for m in _CHAT_HEADER.finditer(text)
        if all(w[:1].isupper() for w in m.group(1).replace(",", " ").split())
    ]


#: A ``label: value`` field on its own line (a full-width colon too: "氏名：…"), or after a space
#: on a line of Chinese, Japanese or Korean fields.
_FIELD = re.compile(
    r"(?m)(?:^|(?<=[ \u3000])(?=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]))[ \t]*"
    r"(?:[-*•>][ \t]+)?(?P<label>[^\W\d_][^\n:：=|\u3000]{0,30}?)"
    r"[ \t]*[:：=][ \t]*+(?P<value>[^\n|;]*+)"
)
#: The next label of a line of Chinese, Japanese or Korean fields after a space ("学生：<name>
#: 家长：<name>"): a value ends there.
_CJK_NEXT_LABEL = re.compile(
    r"[ \t\u3000]+[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af][^\s:：]{0,7}[:：]"
)


def _non_latin_name_shape(value: str) -> bool:
    """Letters of other scripts than Latin, no digit and no quotation mark (a company's name is
    quoted: "ООО «<name>»"), one to four words (seven with "بن")."""
    letters = [c for c in value if c.isalpha()]
    words = value.split()
    chain = any(w in NAME_PARTICLES for w in words)  # "<name> بن <father> بن <grandfather>"
    return (
        bool(letters)
        and not any(c.isdigit() or c in '«»“”„"' for c in value)
        and len(words) <= (7 if chain else 4)
        and len(value) <= (48 if chain else 24)
        and not any("LATIN" in unicodedata.name(c, "") for c in letters)
    )


def script_label_values(text: str) -> list[tuple[int, int]]:
    """(start, end) of the values of person labels written in a script that no name list holds
    ("氏名：<name> 様", "ФИО: <name>", "Patient: <name>" in Greek letters): a label's place decides
    where the name model has no word to read. Shared labels ("customer": often a company) and
    values with a digit or a Latin letter do not count; an honorific after the name stays."""
    if ":" not in text and "：" not in text and "=" not in text:
        return []
    out = []
    for m in _FIELD.finditer(text):
        label = " ".join(m.group("label").split()).lower()
        value = m.group("value")
        if (cut := next_label(value)) is not None:  # "이름: <name>   생년월일: <date>"
            value = value[:cut]
        if (nxt := _CJK_NEXT_LABEL.search(value)) is not None:  # "学生：<name> 家长：<name>"
            value = value[: nxt.start()]
        # "<name> (<a note>)", "<name>（<clinic>）", "<name>, <age>"
        value = re.split(r"[(（,،፣]", value, maxsplit=1)[0]
        value = HONORIFIC_AFTER.sub("", value.rstrip())
        if not _non_latin_name_shape(value) or not _whole_person_label(label):
            continue
        out.append((m.start("value"), m.start("value") + len(value)))
    return out


#: Scripts whose labels name their head first ("اسم الطفل", "שם המטופל": the name of the child,
#: of the patient) and those that name it last ("রোগীর নাম", "मरीज़ का नाम": the patient's name).
_HEAD_FIRST = re.compile(r"[\u0590-\u06ff\u0750-\u077f\ufb1d-\ufdff\ufe70-\ufeff]")
_HEAD_LAST = re.compile(r"[\u0900-\u0dff]")
_HANGUL = re.compile(rf"[{HANGUL_LETTERS}]")
_THAI = re.compile(r"[\u0e00-\u0e7f]")


def _whole_person_label(label: str) -> bool:
    """``label`` is a person label as a whole ("이름", "ФИО"), or, written without spaces, ends
    with one ("患者氏名", "환자성명"), or its head noun is one in a script that puts the head
    first or last ("اسم الطفل", "রোগীর নাম"); "파일 이름" (a file's name) is none, and neither
    is a shared label."""
    if label in SHARED_LABELS:
        return False
    if label in PERSON_LABELS:
        return True
    words = label.split()
    if len(words) > 1 and _HEAD_FIRST.match(words[0]) and words[0] in PERSON_LABELS:
        return True
    if len(words) > 1 and _HEAD_LAST.match(words[-1]) and words[-1] in PERSON_LABELS:
        return True
    glued = NO_SPACE_SCRIPT.match(label[-1:]) or (len(words) == 1 and _HANGUL.match(label[-1:]))
    return bool(glued) and any(label[k:] in PERSON_LABELS for k in range(1, len(label)))


_TITLES_BEFORE = alternation(t for group in HONORIFIC_DATA["titles_before"].values() for t in group)
_AFTER_TITLE = alternation(HONORIFIC_DATA["honorifics_after"])
#: Titles of a script that no name list holds ("جناب آقای"), ending their word or with a stop
#: ("นพ.<given>"), then one to three words up to a comma, a stop, a bracket, a slash or the
#: line's end ("السيد/ <name> المحترم،"); in Thai, which writes without spaces, two words.
_SCRIPT_NAME = r"(?P<name>[^\W\d_][^\s,،፣።.;:()/<>\d]*(?:[ \t][^\W\d_][^\s,،፣።.;:()/<>\d]*){0,2})"
_SCRIPT_TITLE = re.compile(
    rf"(?<![^\W\d_])(?:(?:{_TITLES_BEFORE})(?:(?<=\.)|(?![^\W\d_]))[ \t]*/?[ \t]*)+{_SCRIPT_NAME}"
)
#: A letter's closing in such a script, then its writer's name on its line or the next one.
_SCRIPT_CLOSING = re.compile(
    rf"(?<![^\W\d_])(?:{alternation(HONORIFIC_DATA['closings_before'])})"
    r"[ \t]*[,،!]?[ \t]*(?:\r?\n[ \t]*)?"
    rf"{_SCRIPT_NAME}"
    rf"(?=[ \t]*(?:$|[\r\n,،.;(]))",
    re.MULTILINE,
)
_CLOSING_GROUPS = frozenset(HONORIFIC_DATA["closing_groups"])
#: A Thai title written glued to the name after it ("คุณ<given>").
_THAI_TITLE = re.compile(alternation(HONORIFIC_DATA["titles_before"]["thai"]))
#: Honorifics written after a name in Latin letters ("Hanım", "san"), folded.
HONORIFICS_AFTER_NAME = frozenset(HONORIFIC_DATA["latin_after"])
#: Degrees and registrations written after a name ("BDS", "MRCVS"; ``data/post_nominals.txt``),
#: as written.
POST_NOMINALS = read_lines(DATA / "post_nominals.txt")
_HONORIFIC_AFTER_TITLE = re.compile(rf"(?:[ \t]+(?:{_AFTER_TITLE}))+$")


def script_title_values(text: str) -> list[tuple[int, int]]:
    """(start, end) of the names after a title or a letter's closing in a script that no name
    list holds ("السيد/ <name>", "जनाब <name>", "ד\"ר <name>", "בברכה,\n<name>"), without an
    honorific of respect after them ("المحترم"): a title's place decides where the name model
    has no word to read. After a closing, a name of a cased script is capitalised, and a team's
    or an office's signature is none ("فريق الدعم")."""
    out = []
    closings = [
        m
        for m in _SCRIPT_CLOSING.finditer(text)
        if not m.group("name")[0].islower() and m.group("name").split()[0] not in _CLOSING_GROUPS
    ]
    for m in [*_SCRIPT_TITLE.finditer(text), *closings]:
        name, start = _HONORIFIC_AFTER_TITLE.sub("", m.group("name")), m.start("name")
        if _THAI.match(name):
            name = " ".join(name.split()[:2])
            if (glued := _THAI_TITLE.match(name)) and len(name) > glued.end():  # "คุณ<given>"
                name, start = name[glued.end() :], start + glued.end()
        if _non_latin_name_shape(name) and not key_entity(name) and not _whole_person_label(name):
            out.append((start, start + len(name)))
    return out


#: A chat line's speaker at the head of its line, maybe after a time stamp or an app's tag, before
#: a colon or a tab ("王 建国：…", "10:15<TAB><name><TAB>…" of a LINE export, "[LINE] <name> :").
_SPEAKER = re.compile(
    r"(?m)^[ \t]*(?P<time>(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?|\[[A-Za-z][\w ]{0,15}\])[ \t]+)?"
    r"(?P<name>[^\s:：\d][^\n:：\t]{0,23}?)[ \t]*(?:[:：]|\t)"
)


#: A phone number of any country's writing, and one right after a speaker's colon: the line is
#: a contact list's, not a chat's.
_PHONE = r"\+?[\d(][\d \-().]{6,}\d"
#: A contact list's value: a phone number or an e-mail address.
_CONTACT = rf"{_PHONE}|[\w.+-]+@[\w-]+\.\w"
_PHONE_AFTER = re.compile(rf"[ \t\u3000]*{_PHONE}")


def script_speaker_values(text: str) -> list[tuple[int, int]]:
    """(start, end) of the speakers of a chat written in a script that no name list holds: the
    name-shaped speakers (``_non_latin_name_shape``) of a text where two speak and one of them
    on two lines at least (a chat), each a family and a given name or after a time stamp or an
    app's tag, none of them a label of the key rules or a person's label (a form's "住所：",
    "電話：" are one word); and a Chinese or Korean name written as one word (``one_word_name``)
    in a text where any two speak, one of them twice ("엄마:" speaks too), or before a phone
    number (a contact list)."""
    if ":" not in text and "：" not in text and "\t" not in text:
        return []
    found: dict[str, list[tuple[int, int]]] = {}
    one_word: dict[str, list[tuple[int, int]]] = {}  # "<王><建国>：", beside "엄마:" who speaks too
    others: dict[str, list[tuple[int, int]]] = {}
    contacts: list[tuple[int, int]] = []
    for m in _SPEAKER.finditer(text):
        name = m.group("name").strip()
        span = (m.start("name"), m.start("name") + len(name))
        if not _non_latin_name_shape(name) or person_key(name.lower()) or key_entity(name):
            continue
        # a family and a given name, or a name after a time stamp (a label is one word, no time)
        if " " in name or "\u3000" in name or m.group("time"):
            found.setdefault(name, []).append(span)
        elif one_word_name(name):  # a Chinese or Korean name written as one word
            one_word.setdefault(name, []).append(span)
            if _PHONE_AFTER.match(text, m.end()):  # a contact list's "<name>：<phone>"
                contacts.append(span)
        else:
            others.setdefault(name, []).append(span)
    # "Ошибка сети:" twice is a log's prefix, no chat; a one-word name counts where any two speak
    spans = chat_spans(found)
    if one_word and chat_spans({**found, **one_word, **others}):
        return spans + [span for name_spans in one_word.values() for span in name_spans]
    return spans + contacts  # no chat: the one-word names before a phone only


#: Letters of the scripts whose names a list writes without a label before them: Han, Kana,
#: Hangul.
_CJK_NAME_PART = rf"[{HAN_KANA}{HANGUL_LETTERS}]{{1,4}}"
#: A list line's head: a name of one word or two (a Japanese "<family> <given>"), then a label.
_LIST_HEAD = re.compile(
    rf"(?m)^[ \t]*(?:[-*•·・]|\d{{1,3}}[.)．])?[ \t]*(?P<name>{_CJK_NAME_PART}(?:[ \u3000]"
    rf"{_CJK_NAME_PART})?)[ \t\u3000]+(?P<label>[^\s\d:：]{{1,12}})"
)
#: A person's label, a space, and a one-word Chinese or Korean name ("家长 <name>") or a Japanese
#: family and given name ("会長 <family> <given>").
_HAN_HANGUL = rf"[{HAN}{HANGUL_LETTERS}]"
_LABEL_THEN_NAME = re.compile(  # a lookahead: "<clinic> 院長 <name>" is read at both words
    rf"(?<!{_HAN_HANGUL})(?=(?P<label>{_HAN_HANGUL}{{2,4}})[ \t\u3000]+"
    rf"(?P<name>[{HAN_KANA}]{{1,4}}[ \u3000][{HAN_KANA}]{{1,4}}|{_HAN_HANGUL}{{2,3}})(?![^\W\d_]))"
)


#: A contact list's line in any script: maybe a bullet, a number or a group's number and word
#: ("2 班"), a cell, then a dash, a bar, a tab, a colon, a comma or an ideographic space, maybe
#: one more cell (a department, a role), and a phone number or an e-mail address.
_CELL_CHAR = r"[^\n\d:：|\t—–,@\u3000]"
_CONTACT_LINE = re.compile(
    r"(?m)^[ \t\u3000]*(?:[-*•·・][ \t]*|\d{1,3}[.)．][ \t]*|\d{1,3}[ \t]?\S{1,2}[ \t\u3000]+)?"
    rf"(?P<name>[^\W\d_]{_CELL_CHAR}{{0,30}}?)"
    r"[ \t\u3000]*(?:[—–|:：,\t\u3000]|\s-)[ \t\u3000]*"
    rf"(?:[^\W\d_]{_CELL_CHAR}{{0,24}}?[ \t\u3000]*(?:[—–|,\t\u3000]|\s-)[ \t\u3000]*)?"
    rf"(?={_CONTACT})"
)


#: A Chinese family name and a given name of one or two characters, a space between them and
#: set off by spaces, quotes or punctuation in a text that writes none between its words ("…
#: <family> <given> …" written by hand).
_SPACED_HAN_NAME = re.compile(
    rf"(?:(?<=[\s\u3000\"'“「(（])|^)(?P<name>[{HAN}] [{HAN}]{{1,2}})"
    r"(?=[\s\u3000\"'”」)），。：:、！？]|$)"
)
_CJK_LETTERS = re.compile(rf"[{HAN_KANA}{HANGUL_LETTERS} \u3000]+")


def _script_contact_name(name: str) -> bool:
    """A contact list's cell is a name in a script of no cased name model: a Chinese, Korean or
    Japanese name (``_cjk_name``), or a name of two to four words of which one is in the name
    lists (Arabic, Hebrew, Cyrillic, Indic, Thai names: "<given> <family>"; "customer service"
    is no name)."""
    if not _non_latin_name_shape(name) or key_entity(name) or person_key(name.lower()):
        return False
    if _CJK_LETTERS.fullmatch(name):
        return _cjk_name(name)
    words = name.split()
    return 2 <= len(words) <= 4 and any(map(listed_name, words))


def script_list_values(text: str) -> list[tuple[int, int]]:
    """(start, end) of the names a list writes in Chinese, Japanese or Korean with no label
    before them: at a line's head before the label of an id ("<name> 学号 …", "<family>
    <given> 社員番号 …", "<name> 학번 …"), a Chinese or Korean one-word name (``one_word_name``)
    or a Japanese family and given name; such a name right after a person's label and a
    space ("家长 <name>", "会長 <family> <given>"); a Chinese name with a space inside, set
    off by spaces (``_SPACED_HAN_NAME``); and a contact list's name of a script with no
    letter case before a phone number or an e-mail (``_script_contact_name``)."""
    spaced = _SPACED_HAN_NAME.finditer(text)
    out = [m.span("name") for m in spaced if one_word_name(m["name"].replace(" ", ""))]
    for m in _CONTACT_LINE.finditer(text):
        name = m.group("name").strip()
        if _script_contact_name(name):
            out.append((m.start("name"), m.start("name") + len(name)))
    for m in _LIST_HEAD.finditer(text):
        name, label = m.group("name"), m.group("label")
        et = label_entity(label, ids_first=True)
        if et is None or et == "PERSON" or key_entity(name) or person_key(name.lower()):
            continue
        if _cjk_name(name):
            out.append((m.start("name"), m.end("name")))
    for m in _LABEL_THEN_NAME.finditer(text):
        if _whole_person_label(m.group("label")) and _cjk_name(m.group("name")):
            out.append((m.start("name"), m.end("name")))
    return out + _cell_names(text)


#: A cell of a delimited line: between commas (Chinese ones too), enumeration commas, bars, tabs.
_CELL = re.compile(r"[^\n，,、|\t]+")
_CONTACT_VALUE = re.compile(_CONTACT)


def _cell_names(text: str) -> list[tuple[int, int]]:
    """(start, end) of the Chinese or Korean one-word names (``one_word_name``) that fill a cell
    of a delimited line holding a phone number or an e-mail address (a staff list's "<id> ，
    <name> ，<department>，<phone>"), none a word of wordfreq's lists ("周末" opens with a family
    name too)."""
    out = []
    for line in re.finditer(r"[^\n]+", text):
        if not _CONTACT_VALUE.search(line.group()):
            continue
        for m in _CELL.finditer(text, line.start(), line.end()):
            cell = m.group().strip(" \u3000")
            if one_word_name(cell) and not (listed_word(cell, "zh") or listed_word(cell, "ko")):
                start = m.start() + m.group().index(cell)
                out.append((start, start + len(cell)))
    return out


def _cjk_name(name: str) -> bool:
    """A Chinese or Korean name of one word, or a Japanese family and given name."""
    return one_word_name(name) or _two_part_name(name)


def _two_part_name(name: str) -> bool:
    """A Japanese family name and given name (Han or Kana, no Hangul: Korean names are one
    word), neither a label."""
    parts = name.split()
    if len(parts) != 2 or _HANGUL.search(name):
        return False
    return not any(label_entity(p) or key_entity(p) for p in parts)
