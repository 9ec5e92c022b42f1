"""Candidate tokens of a text and the features the name model reads for each.

The unit is a spaCy token of the analyzer's own document (the NER-only pipeline of
``engine.py``), so training and masking see the same tokens and NER labels. A token is a
*candidate* when it could be (part of) a person name: a capitalised or upper-case word, a word
spaCy puts in a PERSON entity, a lower-case listed first name beside a listed name, or a word in
a CSV column or after a label that names a person ("Customer", "Payee", "Name:"). Everything else
is never a name and costs nothing.

Features are strings (one-hot): the word's shape, length and ending, whether the name lists have it,
its word frequency in English, in the other main European languages and in the text's own language
when that is not English (``wordfreq``, binned), whether it is a place or calendar word, the spaCy
entity label of it and of its neighbours, the neighbour words (their identity only when they are
frequent vocabulary, so no rare word, hence no name, is ever a feature), a title or form of address
before it in the main European languages (``data/titles.txt``: "Frau", "Pani", "Nurse"), the
punctuation around it, its place in its line (first, last, after a bullet or a ``label:``), the
header of its CSV column, and the run of capitalised words it is in.
No name or value is a feature: the model generalises from the word's kind, not from the word.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter

from spacy.tokens import Doc

from agentic_pipeline.masking.delimited import header_candidates, header_like
from agentic_pipeline.masking.detectors.login_names import SPEAKER_PREFIX
from agentic_pipeline.masking.names.fields import (
    after_person_label,
    label_before,
    person_key,
)
from agentic_pipeline.masking.names.lexicon import given_name_bin, is_title, listed_names
from agentic_pipeline.masking.names.words import (
    HAS_DIGIT,
    context_word,
    is_role,
    tag_words,
    word_info,
    wordlike,
)
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    COMBINING_MARKS,
    STOP_WORDS,
    WORD_LANGUAGES,
    bare_word,
    compound_word,
    english_compound,
    foreign_stop_word,
    is_city,
    not_english,
    text_language,
    zipf,
)

#: Bumped whenever a feature changes meaning: a model built on other features is refused.
FEATURE_VERSION = "30"

#: A word of at least this many letters has its last three as a feature (``suf=``): endings
#: say a word's kind in many languages (a field of study, a noun of action, a patronymic).
SUFFIX_MIN_LETTERS = 6
#: A word in no name list that is vocabulary of another main European language (Zipf bin at least
#: ``FOREIGN_MIN_ZFO``) and ``FOREIGN_GAP`` bins more frequent there than in English ("Sie",
#: "Adresse") is that language's vocabulary (the ``foreign`` features).
FOREIGN_MIN_ZFO = 3
FOREIGN_GAP = 2
#: A lower-case listed name this frequent in English (Zipf bin) is a word ("said", "will"), no
#: candidate.
LOWER_NAME_MAX_ZEN = 5
_BULLET = re.compile(r"\s*(?:[-*•·▪‣◦>+–]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)])?\s*")
#: The units features are computed on (spaCy's tokens keep "2025-02-03,Anna" or "Name:Anna"
#: whole): a short capitalised abbreviation with its period ("Dr.", "Ms."), a word with inner
#: apostrophes or hyphens ("O'Dwyer", "Anne-Marie"; a possessive "'s" apart) and its combining
#: marks (the vowel signs of Devanagari and Thai), or one other character.
_W = rf"[\w{COMBINING_MARKS}]"  # a letter, digit or combining mark ("मेहता", "ใจดี", "é" as e + ◌́)
_UNIT = re.compile(
    rf"[A-Z][a-z]{{0,2}}\.(?=\s)|{_W}+(?:['’](?![sS]\b){_W}+|-{_W}+)*|[^\w\s{COMBINING_MARKS}]"
)
#: E-mail addresses, URLs, @handles and #tags: their words are never name candidates.
_NOT_NAMES = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|www\.\S+|(?<!\w)[@#]\w+")


def _listed(first: bool, last: bool) -> str:
    return "fl" if first and last else "f" if first else "l" if last else "-"


class TextFeatures:
    """Per-text state (tokens as plain lists, lines, CSV header) for the features of the tokens
    of one document."""

    def __init__(self, text: str, doc: Doc) -> None:
        self.text = text
        self.csv = _csv_header(text) if "\n" in text else None
        units = [(m.start(), m.end()) for m in _UNIT.finditer(text)]
        self.starts = [a for a, _ in units]
        self.ends = [b for _, b in units]
        self.words = [text[a:b] for a, b in units]
        n = len(units)
        # a line break between unit k-1 and unit k
        self.nl = [k == 0 or "\n" in text[self.ends[k - 1] : self.starts[k]] for k in range(n)]
        self.ent = [""] * n
        self.iob = ["O"] * n
        for e in doc.ents:  # spaCy's entities, on these units
            k = bisect.bisect_right(self.ends, e.start_char)
            first = True
            while k < n and self.starts[k] < e.end_char:
                self.ent[k] = e.label_
                self.iob[k] = "B" if first else "I"
                first = False
                k += 1
        # what spaCy calls each word elsewhere in the text ("Acme" as ORG in one sentence)
        self.labels_of: dict[str, set[str]] = {}
        for k in range(n):
            if self.ent[k]:
                self.labels_of.setdefault(self.words[k], set()).add(self.ent[k])
        self.count = Counter(self.words)
        self.skip = [False] * n  # units inside an e-mail address, a URL, a handle or a tag
        #: the words of each #tag, (start, end, words): see ``tag_words``
        self.tags: list[tuple[int, int, list[str]]] = []
        for m in _NOT_NAMES.finditer(text):
            k = bisect.bisect_left(self.starts, m.start())
            while k < n and self.starts[k] < m.end():
                self.skip[k] = True
                k += 1
            if m.group().startswith("#"):
                self.tags.append((m.start(), m.end(), tag_words(m.group()[1:])))
        self._line_words: dict[int, int] = {}
        #: the text's language when it is not English (``text_language``; the ``ztl`` features)
        self.language = text_language(self.words)
        #: the text is in another language than English, named by ``language`` or not
        self.foreign = self.language is not None or not_english(self.words)

    def candidates(self) -> list[int]:
        """Indices of the units that may be part of a person name."""
        firsts, lasts = listed_names()
        words, out = self.words, []
        for i, w in enumerate(words):
            if self.skip[i] or len(w) > 40 or not wordlike(w):
                continue
            if self.ent[i] == "PERSON":
                out.append(i)
                continue
            f = fold(w)
            if w[0].isupper():
                if f not in STOP_WORDS or f in firsts or f in lasts:
                    out.append(i)
            elif (
                (f in firsts or f in lasts)
                and f not in STOP_WORDS
                and len(f) > 2
                and word_info(w)[5] < LOWER_NAME_MAX_ZEN
                and (self._lower_name_context(i) or self._speaker(i))
            ):
                out.append(i)
            elif self.csv is not None and person_key(self._csv_header_of(i) or ""):
                out.append(i)  # a lower-case name under "Customer", "Payee", ...
            elif f not in STOP_WORDS and (
                after_person_label(self.text, self.starts[i])
                or (out and out[-1] == i - 1 and after_person_label(self.text, self.starts[i - 1]))
            ):
                out.append(i)  # a lower-case name after "Cardholder:", "Payee -", ...
        return out

    def _lower_name_context(self, i: int) -> bool:
        """A lower-case listed name (unit ``i``) is a candidate beside another listed name
        ("anna kowalska") or after a title or greeting on its line ("thanks kwame", "hi ines");
        after a label that names a person, any lower-case word is (``candidates``)."""
        firsts, lasts = listed_names()
        nb = [fold(self.words[j]) for j in (i - 1, i + 1) if 0 <= j < len(self.words)]
        if any((x in firsts or x in lasts) and x not in STOP_WORDS for x in nb):
            return True
        return i > 0 and is_title(self.words[i - 1]) and self.neighbours(i)[0] == i - 1

    def _speaker(self, i: int) -> bool:
        """Unit ``i`` alone names the speaker of a chat line: after the line's time stamp, if
        any, and before a colon ("tolu: on my way")."""
        start, end = self.starts[i], self.ends[i]
        line_start = self.text.rfind("\n", 0, start) + 1
        return (
            SPEAKER_PREFIX.fullmatch(self.text, line_start, start) is not None
            and self.text[end : end + 1] == ":"
        )

    def _neighbour(self, i: int, step: int) -> tuple[int, bool]:
        """The next unit from ``i`` in direction ``step`` (-1 when none) and whether a line
        break lies between."""
        j = i + step
        if not 0 <= j < len(self.words):
            return -1, True
        return j, self.nl[max(i, j)]

    def neighbours(self, i: int) -> tuple[int, int]:
        """The units right before and after unit ``i`` on its line, separated from it by at most
        one space or nothing (-1: none)."""
        p = i - 1 if i > 0 and not self.nl[i] and self.starts[i] - self.ends[i - 1] <= 1 else -1
        n = i + 1
        if n >= len(self.words) or self.nl[n] or self.starts[n] - self.ends[i] > 1:
            n = -1
        return p, n

    def _csv_header_of(self, i: int) -> str | None:
        """The header of the CSV column token ``i`` stands in (None outside a CSV body)."""
        assert self.csv is not None
        delim, header, _, header_end = self.csv
        pos = self.starts[i]
        if pos <= header_end:
            return None
        line_start = self.text.rfind("\n", 0, pos) + 1
        col = self.text.count(delim, line_start, pos)
        return header[col] if col < len(header) else None

    def features(self, i: int) -> list[str]:
        """The feature strings of token ``i``."""
        text, words = self.text, self.words
        w = words[i]
        start = self.starts[i]
        f, shape, first, last, common, zen, zfo, place = word_info(w)
        listed = _listed(first, last)
        ent = self.ent[i] or "O"
        feats = [
            "bias",
            f"shape={shape}",
            f"len={min(len(w), 10)}",
            f"listed={listed}",
            f"zen={zen}",
            f"zfo={zfo}",
            f"ent={ent}",
            f"entiob={self.iob[i]}{ent}",
            f"shape={shape}|zen={zen}",
            f"listed={listed}|zen={zen}",
            f"listed={listed}|zfo={zfo}",
            f"ent={ent}|zen={zen}",
            f"ent={ent}|listed={listed}",
        ]
        # how often the given-name data records the word, a word of some language or not
        # ("Kemi", "Corazon" are given names the lists leave out as words); its absence says
        # nothing (a rare or new name is in no data set), so it is no feature
        if len(f) >= SUFFIX_MIN_LETTERS and f[-3:].isalpha():
            feats.append(f"suf={f[-3:]}")  # a word's ending: "-ology", "-ción"; "-escu", "-ović"
        gn = given_name_bin(w)
        if gn:
            feats += [f"gn={gn}", f"gn={gn}|listed={listed}"]
        # a listed name mostly a word; a role ("Payer"); an unlisted compound ("Hundefutter"),
        # in English one that the frequency list lacks ("Bookshelf")
        marks = (("common", common), ("role", is_role(w)), ("compound", listed == "-"))
        feats += [x for x, on in marks if on and (x != "compound" or compound_word(w))]
        if listed == "-" and english_compound(w):
            feats += ["encompound", f"encompound|ent={ent}"]
        # another European language's vocabulary that English and the name lists lack ("Adresse")
        feats.append(f"zen={zen}|zfo={zfo}")
        if listed == "-" and zfo != 9 and zfo >= FOREIGN_MIN_ZFO and zfo - zen >= FOREIGN_GAP:
            feats += ["foreign", f"foreign|shape={shape}", f"foreign|ent={ent}"]
        if self.language is not None and (
            shape == "lower" or (listed == "-" and self.language in WORD_LANGUAGES)
        ):
            # the frequency of a word in the text's own language: a frequent lower-case word of a
            # Vietnamese or Turkish text ("anh", "bulan") is a word there, though a name list
            # has it (capitalised and listed, such words are names as often: not a feature);
            # a word no name list has and not in lower case, frequent in a language whose words
            # are seldom names, opens its sentence ("Üdvözlettel", "Cordialmente")
            bare = bare_word(w)
            ztl = min(7, int(zipf(bare, (self.language,)))) if len(bare) > 1 else 9
            kind = "ztl" if shape == "lower" else "ztlcap"
            feats += [f"{kind}={ztl}", f"{kind}={ztl}|listed={listed}"]
        if self.foreign and self.language is None:  # a language without a word list (Hausa)
            feats += ["unknownlang", f"unknownlang|listed={listed}", f"unknownlang|shape={shape}"]
        if foreign_stop_word(f):
            feats += ["stopother", f"stopother|listed={listed}"]  # "Sie", "Votre", "Uw"
        elsewhere = self.labels_of.get(w, ())
        for lab in ("PERSON", "ORG", "GPE", "PRODUCT"):
            if lab in elsewhere:
                feats.append(f"textent={lab}")
        if self.count[w] > 1:
            feats.append("repeated")
        if place:
            feats.append("place")
        if is_city(w):  # "en Bilbao", "to Raleigh"; weighed against the lists ("Charlotte")
            feats += ["city", f"city|listed={listed}"]
        if self.iob[i] == "B":
            j = i + 1
            while j < len(words) and self.iob[j] == "I":
                j += 1
            feats.append(f"entlen={min(j - i, 4)}")
        p1, p1nl = self._neighbour(i, -1)
        n1, n1nl = self._neighbour(i, 1)
        p2 = self._neighbour(p1, -1)[0] if p1 >= 0 and not p1nl else -1
        n2 = self._neighbour(n1, 1)[0] if n1 >= 0 and not n1nl else -1
        cp1 = "<s>" if p1 < 0 else "<nl>" if p1nl else context_word(words[p1])
        cn1 = "</s>" if n1 < 0 else "<nl>" if n1nl else context_word(words[n1])
        feats += [
            f"p1={cp1}",
            f"n1={cn1}",
            f"p2={context_word(words[p2]) if p2 >= 0 else '<s>'}",
            f"n2={context_word(words[n2]) if n2 >= 0 else '</s>'}",
            f"p1={cp1}|shape={shape}",
            f"n1={cn1}|shape={shape}",
            f"p1={cp1}|listed={listed}",
            f"n1={cn1}|listed={listed}",
            f"p1ent={(self.ent[p1] or 'O') if p1 >= 0 and not p1nl else '-'}",
            f"n1ent={(self.ent[n1] or 'O') if n1 >= 0 and not n1nl else '-'}",
        ]
        if p1 >= 0 and not p1nl and is_city(words[p1]) and not word_info(words[p1])[2]:
            # after a city that is no first name: an airport's or a place's name ("Chicago
            # O'Hare", "Paris Orly"), as often as a person's
            feats += ["p1city", f"p1city|listed={listed}"]
        if p1 >= 0 and not p1nl and self._title_at(p1):  # "Herr", "Pani", "Nurse", "dr."
            feats += ["p1title", f"p1title|listed={listed}", f"p1title|shape={shape}"]
        if p1 >= 0 and p1nl:  # the end of the line above ("Best regards,")
            feats.append(f"pl={context_word(words[p1])}")
            if p1 > 0 and not self.nl[p1]:
                feats.append(f"pl2={context_word(words[p1 - 1])}")
        if p1 < 0 or p1nl or words[p1] in _STARTERS:
            feats += ["start", f"start|zen={zen}", f"start|listed={listed}"]
        for name, nb, nl in (("p1", p1, p1nl), ("n1", n1, n1nl)):
            if nb >= 0 and not nl and wordlike(words[nb]):
                _, nshape, nf, nl_, _, nzen, _, _ = word_info(words[nb])
                nlisted = _listed(nf, nl_)
                feats += [
                    f"{name}shape={nshape}",
                    f"{name}listed={nlisted}|zen={nzen}",
                    f"{name}listed={nlisted}|listed={listed}",
                ]
                if nshape == "cap" and nlisted == "-" and 9 > nzen >= 4:
                    # a capitalised common word beside it: "Acme Cloud", "Northwind Traders"
                    feats += [f"{name}capvocab", f"{name}capvocab|listed={listed}"]
        # the capitalised run the token is in (same line, single spaces)
        run_before = self._run(i, -1)
        run_after = self._run(i, 1)
        run = 1 + run_before + run_after
        pos = (
            "single"
            if run == 1
            else "first"
            if not run_before
            else "last"
            if not run_after
            else "mid"
        )
        feats += [f"run={min(run, 5)}", f"runpos={pos}", f"run={min(run, 5)}|listed={listed}"]
        # the token's line: first or last word, after a bullet or a label, a short line
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        before = text[max(line_start, start - 48) : start]
        if _BULLET.fullmatch(before):
            feats.append("linefirst" if not before.strip() else "bullet")
        lab = label_before(text, start)
        if lab:
            feats.append(f"label={lab}" if _vocabulary_label(lab) else "label=<other>")
            if person_key(lab):
                feats.append("labelperson")
        if not text[start + len(w) : line_end].strip(" \t.,;"):
            feats.append("linelast")
        if SPEAKER_PREFIX.fullmatch(text, line_start, start) or (
            run_before and SPEAKER_PREFIX.fullmatch(text, line_start, self.starts[i - run_before])
        ):
            # the speaker of a chat line: a capitalised run after its time stamp and before a
            # colon ("[10:18 AM] <name>: ..."), not a time-stamped sentence or log line
            if text[self.ends[i + run_after] : line_end].lstrip(" \t").startswith(":"):
                feats.append("speaker")
        if self.csv is not None and self.csv[2] <= start <= self.csv[3]:
            feats.append("csvheader")  # a cell of a table's header line names a column
        n_words = self._line_words.get(line_start)
        if n_words is None:
            n_words = self._line_words[line_start] = len(text[line_start:line_end].split(None, 6))
        feats.append(f"linewords={min(n_words, 6)}")
        if shape == "upper":  # capitals among lower-case words are an acronym or a code ("MIA")
            line = text[line_start:line_end]
            feats.append("upper|lineupper" if line == line.upper() else "upper|linelower")
        if self.csv is not None:
            header = self._csv_header_of(i)
            if header is not None:
                hdr = " ".join(header.split()).lower()
                feats.append(f"csv={hdr}" if _vocabulary_label(hdr) else "csv=<other>")
                if person_key(hdr):
                    feats.append("csvperson")
        if any(self.skip[i + 1 : i + 6]) and "@" in text[start : start + 80]:
            feats.append("email_after")
        return feats

    def _title_at(self, k: int) -> bool:
        """Unit ``k`` is a title, or the period of a short one written in lower case ("dr.",
        "mevr.": the units keep only a capitalised abbreviation's period; "nurse." ends a
        sentence)."""
        if is_title(self.words[k]):
            return True
        before = self.words[k - 1] if k > 0 else ""
        return (
            self.words[k] == "."
            and self.ends[k - 1] == self.starts[k]
            and before.islower()
            and len(before) <= 4
            and is_title(before)
        )

    def _run(self, i: int, step: int) -> int:
        """How many capitalised words follow (or precede) token ``i`` on its line."""
        words, n, j = self.words, 0, i
        while 0 <= j + step < len(words) and n < 4:
            a, b = (j, j + step) if step > 0 else (j + step, j)
            nxt = words[j + step]
            if text_gap(self.text, self.ends[a], self.starts[b]) or not (
                nxt[:1].isupper() and wordlike(nxt)
            ):
                break
            n += 1
            j += step
        return n


def text_gap(text: str, a: int, b: int) -> bool:
    """More than one space (or any other character) between ``a`` and ``b``."""
    return b - a > 1 or (b - a == 1 and text[a] != " ")


_STARTERS = frozenset({".", "!", "?", ":", '"', "“", "(", "-", "*", "•"})


def _vocabulary_label(label: str) -> bool:
    """A label made of frequent words (its identity is a feature; a rare one, maybe a speaker's
    name, is not). A label with a digit is a value (a street line, a time stamp), not a label."""
    if HAS_DIGIT.search(label):
        return False
    words = re.findall(r"[^\W\d_]+", label)
    if not words or len(words) > 4:
        return False
    firsts, lasts = listed_names()
    return all(
        zipf(w, ("en",)) >= 3.0 and not (w in firsts or w in lasts) or w in STOP_WORDS
        for w in words
    )


def _csv_header(text: str) -> tuple[str, list[str], int, int] | None:
    """(delimiter, header cells, start and end of the header line) when ``text`` is CSV-like: a
    header line, maybe under a title line or two, and rows with the same number of delimiters."""
    lines = text.split("\n", 12)[:12]
    body = [ln for ln in lines if ln.strip()]
    if len(body) < 2:
        return None
    for skip, delim in header_candidates(body):
        n = body[skip].count(delim)
        header = [h.strip().strip("\"'*") for h in body[skip].split(delim)]
        if not header_like(header):
            continue
        rows = body[skip + 1 :]
        if sum(ln.count(delim) == n for ln in rows) >= max(1, len(rows) // 2):
            start = text.index(body[skip])
            return delim, header, start, start + len(body[skip])
    return None
