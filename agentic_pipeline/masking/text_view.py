"""The normalised view a string is analysed on, mapped back to the string's own offsets.

Personal data written in a hostile encoding passes detectors built for plain text: full-width or
other compatibility characters (full-width ``ｑｕｉｎｃｙ＠…``, ``２１９－０９－…``),
percent-encoded URL components (``?email=x%40y.com``, ``?phone=%2B1...``) and HTML character
references (``name&#64;example.com``). Detection therefore runs on a view of each string with
Unicode NFKC applied per character, ``%XX`` runs decoded (UTF-8), HTML references unescaped and
Windows line ends read as line ends;
every character of the view knows the span of the original it came from, so a detection in the
view replaces exactly the original characters (issue #22).

Out of scope, on purpose: base64 and other encodings that need a guess to decode (any word of
letters and digits is valid base64), and text split by markup (``jo<b></b>hn``).
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_HTML_REF = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_NEEDS_VIEW = re.compile(r"%[0-9A-Fa-f]{2}|&#?[A-Za-z0-9]{1,32};|[^\x00-\x7f]|\r\n")


@dataclass(frozen=True)
class TextView:
    """``text`` (the view) with, per view character, the original span ``[starts[i], ends[i])``."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the view's ``[start, end)`` (``end > start``)."""
        return self.starts[start], self.ends[end - 1]


def text_view(text: str) -> TextView | None:
    """The normalised view of ``text``, or ``None`` when it is the text itself."""
    if not _NEEDS_VIEW.search(text):
        return None
    pieces: list[tuple[int, int, str]] = []  # (original start, original end, view text)
    pos = 0
    for m in re.finditer(f"{_PERCENT_RUN.pattern}|{_HTML_REF.pattern}|\r\n", text):
        if m.start() > pos:
            pieces.extend((i, i + 1, text[i]) for i in range(pos, m.start()))
        raw = m.group()
        if raw == "\r\n":  # a Windows line end reads as a line end
            decoded = "\n"
        elif raw[0] == "%":
            decoded = _percent_decode(raw)
        else:
            decoded = html.unescape(raw)
        pieces.append((m.start(), m.end(), decoded if decoded else raw))
        pos = m.end()
    pieces.extend((i, i + 1, text[i]) for i in range(pos, len(text)))
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for a, b, piece in pieces:
        norm = piece if piece.isascii() or _number_sign(piece) else _nfkc(piece)
        for ch in norm:
            out.append(ch)
            starts.append(a)
            ends.append(b)
    view = "".join(out)
    if view == text:
        return None
    return TextView(view, tuple(starts), tuple(ends))


def _nfkc(piece: str) -> str:
    return unicodedata.normalize("NFKC", piece)


@lru_cache(maxsize=4096)
def _number_sign(c: str) -> bool:
    """A symbol or ordinal sign that NFKC spells with ASCII letters ("№" -> "No", "º" -> "o"):
    the labels' lists hold it as written ("табельный №", "n.º"), and "n.o 4471" would read as
    an id "o 4471"."""
    if len(c) != 1 or unicodedata.category(c) not in ("So", "Lo"):
        return False
    norm = _nfkc(c)
    return norm != c and norm.isascii() and norm.replace(".", "").isalpha()


def _percent_decode(run: str) -> str:
    """``%40`` -> ``@``; a run that is no valid UTF-8 stays as it is."""
    data = bytes(int(run[i + 1 : i + 3], 16) for i in range(0, len(run), 3))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return ""


def map_spans(view: TextView | None, spans: list) -> list:
    """Spans ``(start, end, *rest)`` of the view as spans of the original text."""
    if view is None:
        return spans
    out = []
    for s, e, *rest in spans:
        if e <= s:
            continue
        a, b = view.original(s, e)
        out.append((a, b, *rest))
    return out


def aligned_nfkc(text: str) -> str:
    """``text`` with each character that NFKC folds into one other character folded (full-width
    digits, the ohm sign for omega, ligature-free letters), so offsets stay the same; the
    recognizers read such text through ``text_view``."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    out = []
    for c in text:
        n = unicodedata.normalize("NFKC", c) if ord(c) > 127 else c
        # the ordinal signs of "3º B" are letters of their own ("Lo"), not an "o"
        out.append(n if len(n) == 1 and unicodedata.category(c) != "Lo" else c)
    return "".join(out)
