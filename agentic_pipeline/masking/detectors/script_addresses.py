"""Postal addresses of the languages the street patterns do not read (``addresses.py`` reads the
Latin street lines of the US, UK and Europe): an address found by its address words, whole.

* Comma-separated addresses (Persian, Arabic, Hebrew, Urdu, Hindi, Bengali, Cyrillic, Greek,
  Armenian, Georgian, Vietnamese, Indonesian, Filipino, Turkish, Swahili): a line is cut at its
  commas (also "،", "、", ";") into parts; a run of short parts is an address when it holds a
  strong address word of ``script_addresses.yaml`` (a street, building, unit or district word:
  "خیابان", "ул.", "Phường", "Jl."), a number, and a second address word or a third part. The
  span runs from the first part with an address word or number (and a place named alone right
  before it: a city written first) to the last, and the places named alone after it.
* Thai addresses (``_THAI``: words not separated), a house number and the places after their
  words. Chinese, Japanese and Korean ones are street patterns of ``streets.py``.

Why no library: libpostal (``postal``) holds these dictionaries but needs a 2 GB model
downloaded at install time; no maintained pure-Python parser reads these scripts.
"""

from __future__ import annotations

import itertools
import re
from functools import cache

from agentic_pipeline.masking.detectors.address_fields import ADDRESS, DETECTOR, JOINED_SCORE, Span
from agentic_pipeline.masking.detectors.data_files import alternation, data_file

_D = data_file("script_addresses.yaml")
#: Between two parts of an address.
_SEPARATOR = re.compile(r"[ \t]*[,،、，;؛][ \t]*")
_TOKEN = re.compile(r"[^\s,،、，;؛\"“”«»()\[\]{}<>]+")
#: Where no address runs on: a sentence's end, a label's colon ("Địa chỉ: …", not Turkish
#: "No:"); a full stop that ends an address word or an initial is none ("TP. <City>").
_BREAK = re.compile(r"[。！？!?]|(?<=\w)\.(?=[ \t]+\S)|(?<![\s:：])(?<!\bNo)(?<!\bD)[:：](?=\s|$)")
_DIGIT = re.compile(r"\d")


@cache
def _markers() -> re.Pattern[str]:
    """The address words, each named by its group: strong or weak, before or after its name."""
    glued = [w for w in _D["after_strong"] if w.startswith("-")]
    after = [w for w in _D["after_strong"] if not w.startswith("-")]
    return re.compile(
        rf"(?<![\w.])(?P<strong>{alternation(_D['before_strong'])})(?!\w)"
        rf"|(?<![\w.])(?P<weak>{alternation(_D['before_weak'])})(?=[\s\d]|$)"
        rf"|(?<![\w.])(?P<after>{alternation(after)})(?!\w)"
        rf"|(?<=\w)(?P<glued>{alternation(glued)})(?![\w-])"
    )


_THAI_WORD = r"[\u0e00-\u0e7f]+\.?"
#: A Thai address: a house number ("เลขที่ 99/1"), then its village, lane, road, subdistrict,
#: district and province, each after its word, and a five-digit postcode.
_THAI = re.compile(
    rf"(?:(?:{alternation(_D['thai_house'])})[ \t]*)?\d+(?:/\d+)?"
    rf"(?:[ \t]+(?:(?:{alternation(_D['thai_village'])})[ \t]*\d+"
    rf"|(?:{alternation(_D['thai_places'])})[ \t]*{_THAI_WORD}(?:[ \t]*\d+)?"
    rf"|{alternation(_D['thai_capital'])})){{2,}}"
    rf"(?:[ \t]+(?:{_THAI_WORD}[ \t]+)?\d{{5}})?"
)


def script_address_spans(text: str) -> list[Span]:
    """The addresses of ``text`` written in the languages of this module's doc, whole."""
    out: list[Span] = []
    if _markers().search(text):
        pos = 0
        for line in text.split("\n"):
            out += _line_spans(text, pos, pos + len(line))
            pos += len(line) + 1
    if re.search("[\u0e00-\u0e7f]", text):
        out += [(m.start(), m.end(), ADDRESS, JOINED_SCORE, DETECTOR) for m in _THAI.finditer(text)]
    return out


class _Part:
    """One comma-separated part of a sentence or a labelled value: its tokens, its address words
    and whether it has a number or is a place's name alone."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.start = start + len(text[start:end]) - len(text[start:end].lstrip())
        self.end = end
        self.tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text, self.start, end)]
        self.markers = [
            m for m in _markers().finditer(text, self.start, end) if _marks(text, m, end)
        ]
        self.strong = sum(m.lastgroup != "weak" for m in self.markers)
        # a number counts in a short part or beside an address word ("ул. <name>, д. 14"), not
        # a year in a sentence
        self.digit = _DIGIT.search(text, self.start, end) is not None and (
            len(self.tokens) <= 4 or bool(self.markers)
        )
        self.place = 0 < len(self.tokens) <= 3 and all(
            _name_token(text[s:e]) for s, e in self.tokens
        )

    @property
    def marked(self) -> bool:
        return bool(self.markers) or self.digit

    def _opening(self, text: str) -> re.Match[str] | None:
        """The address word the address opens at: the first strong one, after the weak ones
        just before it ("số 57 đường …"), not a weak one that marks another number earlier in
        the sentence (an id card's "số <number>" before "… tại số 57 đường …")."""
        strong = [i for i, m in enumerate(self.markers) if m.lastgroup != "weak"]
        i = strong[0] if strong else 0
        while i > 0 and _near(text, self.markers[i - 1].end(), self.markers[i].start()):
            i -= 1
        return self.markers[i] if self.markers else None

    def first_start(self, text: str) -> int:
        """Where the address starts in this part: its opening address word (with up to two
        names before a word written after them), or a number just before it."""
        first = self._opening(text)
        digit = _DIGIT.search(text, self.start, self.end)
        far = first and digit and not _near(text, digit.start(), first.start())
        if far and first.lastgroup != "glued":  # "2-9 <Name> 4-jo <Name> 2-chome" is one
            digit = None  # a number far before the address word (a date, an amount, an id)
        if first is None or (digit is not None and digit.start() < first.start()):
            return next(s for s, e in self.tokens if e > digit.start()) if digit else self.start
        if first.lastgroup == "glued":  # "2-9 <Name> 4-jo <Name> 2-chome": from the part's start
            return self.start
        if first.lastgroup == "after":
            start = first.start()
            for s, e in reversed([t for t in self.tokens if t[1] <= first.start()][-2:]):
                if not _name_token(text[s:e]):
                    break
                start = s
            return start
        return first.start()

    def last_end(self, text: str) -> int:
        """Where the address ends in this part: after its last number or address word and the
        names that follow it ("Quận 1", "TP. <City> <Name>"), before the words that are no
        place's ("…, <City> 60231 ya kak")."""
        marks = [m.end() for m in self.markers] + [
            e for s, e in self.tokens if _DIGIT.search(text, s, e)
        ]
        end = max(marks, default=self.end)
        for s, e in self.tokens:
            if s >= end and not _name_token(text[s:e]):
                break
            end = max(end, e)
        return end


_NEXT_TOKEN = re.compile(r"[ \t]*([^\s,،、，;؛]+)")
#: An address word opens an address with the words before it that are at most this many tokens
#: away ("No. 14 Jl. …", "Số 27 ngõ …").
_NEAR_TOKENS = 2


def _near(text: str, start: int, end: int) -> bool:
    """Whether at most ``_NEAR_TOKENS`` tokens stand between ``start`` and ``end``."""
    return len(_TOKEN.findall(text, start, end)) <= _NEAR_TOKENS


def _marks(text: str, m: re.Match[str], end: int) -> bool:
    """Whether an address word marks a name or number: a word written before its name is followed
    by one ("ул. <Name>", not the year's "г. в"), a word written after it follows one."""
    if m.lastgroup in ("after", "glued"):
        return True
    nxt = _NEXT_TOKEN.match(text, m.end(), end)
    return nxt is not None and _name_token(nxt.group(1))


def _name_token(token: str) -> bool:
    """A token that may be a place's name: capitalised, in a script without case, or a number."""
    first = token[0]
    uncased = first.isalpha() and first.lower() == first.upper()
    return first.isupper() or first.isdigit() or uncased


def _line_spans(text: str, start: int, end: int) -> list[Span]:
    """The comma-separated addresses of one line of ``text`` (see module doc), each inside one
    sentence and after its label."""
    out: list[Span] = []
    pos = start
    for m in [*_BREAK.finditer(text, start, end), None]:
        if m is not None and m.group() == "." and _abbreviation(text, m.end()):
            continue
        out += _segment_spans(text, pos, m.start() if m else end)
        pos = m.end() if m else end
    return out


def _abbreviation(text: str, dot_end: int) -> bool:
    """Whether the full stop ending at ``dot_end`` ends an address word or an initial."""
    token_start = max(text.rfind(" ", 0, dot_end), text.rfind("\t", 0, dot_end)) + 1
    token = text[token_start:dot_end]
    return len(token) <= 2 or _markers().fullmatch(token) is not None


def _segment_spans(text: str, start: int, end: int) -> list[Span]:
    """The addresses of one sentence or labelled value: runs of short parts (module doc)."""
    bounds, pos = [], start
    for m in _SEPARATOR.finditer(text, start, end):
        bounds.append((pos, m.start()))
        pos = m.end()
    bounds.append((pos, end))
    parts = [_Part(text, s, e) for s, e in bounds if text[s:e].strip()]
    out: list[Span] = []
    run: list[_Part] = []
    for part in [*parts, None]:
        joins = part is not None and (part.marked or part.place)
        joins = joins and (len(part.tokens) <= 8 or part.strong > 0)
        if run and not joins:
            out += _run_span(text, run, part)
            run = []
        if joins:
            run.append(part)
    return out


def _numbered_street(text: str, run: list[_Part]) -> bool:
    """A run of a street word written before its name, the name and a house number, then a
    place ("שדרות <name> 17, <city>", "Jl. <name> 14, <city>"): an address of one address word."""
    if len(run) != 2 or not run[1].place:
        return False
    word = next((m for m in run[0].markers if m.lastgroup == "strong"), None)
    after = _TOKEN.findall(text, word.end(), run[0].end) if word else []
    return 2 <= len(after) <= 4 and _name_token(after[0]) and _DIGIT.search(after[-1]) is not None


def _run_span(text: str, run: list[_Part], after: _Part | None = None) -> list[Span]:
    """The address a run of short parts holds, if it is one (see module doc); ``after``: the
    part after the run, whose leading names close it ("…, <City> adresine gitti")."""
    strong = sum(p.strong for p in run)
    words = sum(len(p.markers) for p in run)
    if not strong or not any(p.digit for p in run):
        return []
    if words < 2 and len(run) < 3 and not _numbered_street(text, run):
        return []
    marked = [i for i, p in enumerate(run) if p.marked]
    # it opens at its first address word, not at a number before it (a CSV row's date, amount)
    first, last = next(i for i, p in enumerate(run) if p.markers), marked[-1]
    start = run[first].first_start(text)
    if first > 0 and run[first - 1].place and start == run[first].start:
        start = run[first - 1].start  # a city written first ("<city>، خیابان …")
    while last + 1 < len(run) and run[last + 1].place and last - marked[-1] < 3:
        last += 1  # the district, city, region and country after the street
    end = run[last].end if last > marked[-1] else run[last].last_end(text)
    if after is not None and last == len(run) - 1 and end == run[last].end:
        names = list(itertools.takewhile(lambda t: _name_token(text[t[0] : t[1]]), after.tokens))
        if 0 < len(names) <= 3:
            end = names[-1][1]
    return [(start, end, ADDRESS, JOINED_SCORE, DETECTOR)] if end > start else []
