"""The values and template sentences of the development corpora, and a fast search for them in
source files (the corpus-value test, issue #21: no corpus value or sentence in detector modules
or tests).

Values: every labelled span of the text corpora (the repo's ``fresh-blind`` to ``-14`` among
them) and of the held-out corpus (``fresh-blind-27``) except ``OTHER:*``
(names, emails, streets, addresses, ids, companies, organisations, places...), the personal
values of the tau users files
and the FakeNameGenerator people file of the presidio-evaluator templates (names, streets,
cities, companies, emails, user names), when the wheel is found. A value counts when it has 2+
words or 6+ characters, unless it is common: one word of Zipf frequency >= 3 in English or
another language of the corpora ("Johnson", "Springfield", "strada"), several words all of Zipf
>= 4 ("Memorial Hospital", "New York"), a country name, or a trivial sequence ("123456789").

Sentences: the literal parts of the evaluator templates (between placeholders) and the
sentences of the DLP messages, the incident notes and the repo's labelled texts, of 6+ words (or 5
with a less common word).

Search: every value and sentence becomes a tuple of case-folded words; a file's string literals
and comments (Python, read with ``tokenize``) or its text (data files) are cut into words and
every window of up to ``KEY_WORDS`` words is looked up in one set; a sentence longer than that is
then checked whole.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from . import corpora as C

KEY_WORDS = 8
#: Data files read by detectors (word lists, labels); trained model files (``*model*``) are
#: built from the corpora on purpose and are not searched.
DATA_SUFFIXES = frozenset({".txt", ".json", ".yaml", ".yml", ".csv", ".tsv"})
_WORDS = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_TRIVIAL = ("01234567890", "9876543210", "abcdefghijklmnopqrstuvwxyz")


def words(text: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w in _WORDS.findall(text))


#: Languages of the corpora's words: a word common in any of them is no corpus value.
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pl", "pt")


@cache
def _zipf(word: str) -> float:
    """The word's highest Zipf frequency over ``LANGUAGES`` ("strada" is common Italian)."""
    from wordfreq import zipf_frequency

    return max(zipf_frequency(word, lang) for lang in LANGUAGES)


@cache
def _countries() -> frozenset[tuple[str, ...]]:
    """Country names (Faker's English list): a place anyone may name, not a corpus value."""
    from faker.providers.address.en import Provider

    return frozenset(words(c) for c in Provider.countries)


def is_common(value: str) -> bool:
    """Whether a value is too common to count (see module doc)."""
    ws = words(value)
    if not ws:
        return True
    flat = "".join(ws)
    if len(set(flat)) <= 3 or any(flat in seq for seq in _TRIVIAL):
        return True
    letters = [w for w in ws if w.isalpha()]
    if len(ws) == 1:  # a word of English or of a language the street words come from
        return len(value.strip()) < 6 or (bool(letters) and _zipf(ws[0]) >= 3.0)
    return len(letters) == len(ws) and all(_zipf(w) >= 4.0 for w in ws)


@dataclass(frozen=True)
class Needle:
    """One value or sentence to look for: its words, its kind and its corpus."""

    words: tuple[str, ...]
    kind: str
    corpus: str

    @property
    def text(self) -> str:
        return " ".join(self.words)


def _label_values() -> Iterator[Needle]:
    for corpus in (*C.TEXT_CORPORA, *C.HELD_OUT_CORPORA):
        try:
            docs = C.load(corpus, None)
        except FileNotFoundError:  # the evaluator wheel is optional
            continue
        for doc in docs:
            for kind, value in doc.values():
                if not kind.startswith("OTHER:"):
                    yield Needle(words(value), kind, corpus)
                    if kind == "ADDRESS":  # the street line of an address on its own
                        yield Needle(words(value.split(",")[0]), "STREET_ADDRESS", corpus)


def _tau_values() -> Iterator[Needle]:
    seen: set[Path] = set()
    for corpus in C.TAU_CORPORA:
        paths = C.tau_paths(corpus)
        if paths is None or paths[1] in seen:
            continue
        seen.add(paths[1])
        users = json.loads(paths[1].read_text())
        for uid, user in users.items():
            name = user.get("name") or {}
            full = f"{name.get('first_name', '')} {name.get('last_name', '')}"
            yield Needle(words(full), "PERSON", corpus)
            for kind, value in C.tau_user_values(uid, user):
                if kind != "CARD_LAST4":
                    yield Needle(words(value), kind, corpus)


def _people_values() -> Iterator[Needle]:
    try:
        _, people = C.evaluator_files()
    except FileNotFoundError:
        return
    fields = {
        "StreetAddress": "STREET_ADDRESS",
        "City": "LOCATION",
        "Company": "COMPANY",
        "EmailAddress": "EMAIL_ADDRESS",
        "Username": "USERNAME",
        "TelephoneNumber": "PHONE_NUMBER",
        "NationalID": "ID:NATIONAL_ID",
        "Surname": "PERSON",
        "MothersMaiden": "PERSON",
    }
    for p in people:
        yield Needle(words(f"{p['GivenName']} {p['Surname']}"), "PERSON", C.TEMPLATES)
        for key, kind in fields.items():
            if p.get(key):
                yield Needle(words(p[key]), kind, C.TEMPLATES)


def _sentences() -> Iterator[Needle]:
    try:
        templates, _ = C.evaluator_files()
    except FileNotFoundError:
        templates = []
    for t in templates:
        for chunk in re.split(r"{{\w+}}", t):
            yield Needle(words(chunk), "TEMPLATE", C.TEMPLATES)
    for corpus in (
        C.DLP,
        C.NANNIGALAXY,
        C.FRESH_BLIND,
        C.FRESH_BLIND_2,
        C.FRESH_BLIND_3,
        *C.HELD_OUT_CORPORA,
    ):
        for doc in C.load(corpus, None):
            for sentence in _SENTENCE_END.split(doc.text):
                yield Needle(words(sentence), "SENTENCE", corpus)


def _distinct_sentence(ws: tuple[str, ...]) -> bool:
    """6+ words, or 5 with one less common than Zipf 4.5 ("this song by ex <band>" counts,
    "in a couple of months" does not)."""
    return len(ws) >= 6 or (len(ws) == 5 and any(_zipf(w) < 4.5 for w in ws))


@lru_cache(maxsize=1)
def needles() -> tuple[Needle, ...]:
    """Every countable value and sentence of the development corpora (deduplicated by words)."""
    out: dict[tuple[str, ...], Needle] = {}
    for n in (*_label_values(), *_tau_values(), *_people_values()):
        if n.kind == "LOCATION" and n.words in _countries():
            continue
        if n.words and n.words not in out and not is_common(" ".join(n.words)):
            if len(n.words) >= 2 or len(n.words[0]) >= 6:
                out[n.words] = n
    for n in _sentences():
        if n.words not in out and _distinct_sentence(n.words):
            out[n.words] = n
    return tuple(out.values())


@dataclass(frozen=True)
class Hit:
    path: str
    line: int
    needle: Needle


class Finder:
    """Looks up every needle in a text's word windows at once."""

    def __init__(self, found: Iterable[Needle], single_words: bool = True) -> None:
        self.keys: dict[tuple[str, ...], list[Needle]] = {}
        for n in found:
            if not single_words and len(n.words) < 2:
                continue
            self.keys.setdefault(n.words[:KEY_WORDS], []).append(n)
        self.lengths = sorted({len(k) for k in self.keys})

    def find(self, text: str) -> list[Needle]:
        ws = words(text)
        out = []
        for i in range(len(ws)):
            for n in self.lengths:
                cands = self.keys.get(ws[i : i + n])
                for c in cands or ():
                    if c.words == ws[i : i + len(c.words)]:
                        out.append(c)
        return out


def python_texts(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each string literal and comment of a Python source."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.STRING, tokenize.COMMENT) or tok.type == getattr(
                tokenize, "FSTRING_MIDDLE", -1
            ):
                yield tok.start[0], tok.string
    except (tokenize.TokenError, SyntaxError):
        yield 1, source


def search(files: Iterable[Path], root: Path) -> list[Hit]:
    """Corpus values and sentences in ``files``: Python string literals and comments (every
    needle) and data files (values of 2+ words and sentences: word lists legitimately hold
    single names that a corpus also has)."""
    all_needles = needles()
    py, data = Finder(all_needles), Finder(all_needles, single_words=False)
    hits: list[Hit] = []
    for path in sorted(files):
        try:
            source = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        rel = str(path.relative_to(root))
        if path.suffix == ".py":
            for line, text in python_texts(source):
                hits += [Hit(rel, line, n) for n in py.find(text)]
        else:
            for line, text in enumerate(source.splitlines(), start=1):
                hits += [Hit(rel, line, n) for n in data.find(text)]
    return list(dict.fromkeys(hits))  # one hit per needle and line


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.masking_eval.values [folder ...]``: the corpus values and sentences
    in the files under the folders (default: agentic_pipeline/masking and tests), per file."""
    import argparse
    from collections import defaultdict

    ap = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=["agentic_pipeline/masking", "tests"])
    args = ap.parse_args(argv)
    root = Path.cwd()
    files = [
        p
        for f in args.folders
        for p in Path(f).resolve().rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and p.name != "test_corpus_values.py"
        and (p.suffix == ".py" or (p.suffix in DATA_SUFFIXES and "model" not in p.name))
    ]
    by_file: dict[str, list[Hit]] = defaultdict(list)
    for h in search(files, root):
        by_file[h.path].append(h)
    for path, hs in sorted(by_file.items()):
        print(f"{path}: {len(hs)}")
        for h in hs:
            print(f"  line {h.line}: {h.needle.kind} of {h.needle.corpus}: {h.needle.text!r}")
    print(f"{sum(len(v) for v in by_file.values())} hits in {len(by_file)} files")
    return 1 if by_file else 0


if __name__ == "__main__":
    raise SystemExit(main())
