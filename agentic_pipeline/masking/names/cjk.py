"""Names written in Chinese, Japanese and Korean letters by what stands beside them: an
honorific after a name ("李明 老师", "김하늘 님"), a Korean position after one ("<name> 팀장"),
and the shape of a Chinese or Korean name written as one word (a family name first). No name
list holds these scripts' names; the honorifics, positions and role nouns are data
(``data/honorifics.yaml``)."""

from __future__ import annotations

import re
from functools import lru_cache

import yaml

from agentic_pipeline.masking.detectors.data_files import alternation
from agentic_pipeline.masking.detectors.label_lists import person_labels
from agentic_pipeline.masking.names.lexicon import DATA
from agentic_pipeline.masking.vocabulary import listed_word

#: ``data/honorifics.yaml``: honorifics and positions after a name, role nouns that take one
#: without being a name, and the titles and closings that ``fields`` reads for other scripts.
HONORIFIC_DATA = yaml.safe_load((DATA / "honorifics.yaml").read_text(encoding="utf-8"))
_HONORIFICS = alternation(
    [*HONORIFIC_DATA["japanese"], *HONORIFIC_DATA["chinese"], *HONORIFIC_DATA["korean"]]
)
_AFTER_FULL_NAME = alternation(HONORIFIC_DATA["japanese"])
#: A person label that opens with an honorific's letters ("氏名", a name, opens with "氏"): no
#: honorific there.
_LABELS_LIKE_HONORIFICS = [
    label
    for label in person_labels()
    if any(label.startswith(h) and label != h for h in HONORIFIC_DATA["japanese"])
]
_NOT_A_LABEL = rf"(?!{alternation(_LABELS_LIKE_HONORIFICS)})" if _LABELS_LIKE_HONORIFICS else ""
_HONORIFIC_ROLES = frozenset(HONORIFIC_DATA["roles"])
HONORIFIC_AFTER = re.compile(rf"[ \t]*(?:{_HONORIFICS})$")
HAN = r"\u4e00-\u9fff"
HANGUL_LETTERS = r"\uac00-\ud7a3"
HAN_KANA = rf"\u3040-\u30ff{HAN}"
#: A name of Han, kana or Hangul letters before an honorific: one Hangul word, maybe glued to it
#: ("김하늘님"); one word of Han or kana set off by a space ("李明 老师"), or a family and a given
#: name after a label or at a line's start ("紹介元： <family> <given> 医師").
_BEFORE_HONORIFIC = re.compile(
    rf"(?<![^\W\d_])(?P<name>[{HANGUL_LETTERS}]{{2,4}}(?=[ ]?(?:{_HONORIFICS}))"
    rf"|(?:(?<=[:：])[ \t\u3000]*|(?<![^\n]))[{HAN}]{{1,3}}[ \u3000][{HAN_KANA}]{{1,4}}"
    rf"(?=[ \u3000]{_NOT_A_LABEL}(?:{_AFTER_FULL_NAME}))"
    rf"|[{HAN_KANA}]{{1,5}}(?=[ \u3000]{_NOT_A_LABEL}(?:{_HONORIFICS})))"
)


def honorific_values(text: str) -> list[tuple[int, int]]:
    """(start, end) of the names of Japanese, Chinese and Korean letters set off before an
    honorific ("李明 老师", "김하늘 님"), but a role's noun ("고객 님": the customer), and Korean
    names before a position (``_position_values``)."""
    out = []
    for m in _BEFORE_HONORIFIC.finditer(text):
        name = m.group("name").strip()
        if name.split()[-1] in _HONORIFIC_ROLES:
            continue
        out.append((m.end("name") - len(name), m.end("name")))
    return out + _position_values(text)


_POSITIONS = alternation(HONORIFIC_DATA["korean_positions"])
_POSITION_AFTER = re.compile(rf"(?<![^\W\d_])[{HANGUL_LETTERS}]{{3}}(?=[ ]?(?:{_POSITIONS}))")
#: A name after a position in a staff list ("교장 <name>"): set off by a space, a word of its own.
_POSITION_BEFORE = re.compile(
    rf"(?<![^\W\d_])(?:{_POSITIONS})[ ]([{HANGUL_LETTERS}]{{3}})(?![^\W\d_])"
)


#: The last syllable of a Korean unit's name (team, department, section, office): no person's.
_UNIT_ENDS = "팀부과실처청"


def _position_values(text: str) -> list[tuple[int, int]]:
    """(start, end) of Korean names before a position ("<name> 팀장", "<name> 대리님"): three
    syllables, the first a family name (``one_word_name``), or no word of Korean's word list
    and no unit's name ("영업팀 팀장": the sales team's lead); after a position, only a name of
    that shape ("교장 <name>")."""
    after = [
        m.span()
        for m in _POSITION_AFTER.finditer(text)
        if one_word_name(w := m.group()) or not (listed_word(w, "ko") or w[-1] in _UNIT_ENDS)
    ]
    return after + [m.span(1) for m in _POSITION_BEFORE.finditer(text) if one_word_name(m[1])]


#: Chinese and Korean family names (Faker's ``zh_CN`` and ``ko_KR`` person providers, the
#: ``_FAMILY_NAMES`` most frequent Chinese ones), before a given name of one or two characters.
_FAMILY_NAMES = 150
_ONE_WORD_NAME = re.compile(rf"[{HAN}]{{2,3}}|[{HANGUL_LETTERS}]{{3}}")


@lru_cache(maxsize=1)
def _family_names() -> frozenset[str]:
    from faker.providers.person.ko_KR import Provider as Korean
    from faker.providers.person.zh_CN import Provider as Chinese

    return frozenset([*list(Chinese.last_names)[:_FAMILY_NAMES], *Korean.last_names])


def one_word_name(word: str) -> bool:
    """``word`` is a Chinese name of two or three characters or a Korean one of three
    syllables, its first a family name ("王建国", "이수진"; not "老婆", "엄마")."""
    return bool(_ONE_WORD_NAME.fullmatch(word)) and word[0] in _family_names()
