"""Training texts in the shapes the prose corpora lack: tables with a person column among
others and bulleted or numbered lists, filled with one corpus's own labelled values."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentic_pipeline.masking.names.words import word_info
from agentic_pipeline.masking.vocabulary import OTHER_LANGUAGES

Span = tuple[int, int, str]


@dataclass
class LabelledText:
    """A text with labelled spans (the contract of ``benchmarks/masking_eval/corpora.py``)."""

    text: str
    spans: list[Span]
    corpus: str
    doc_id: str


#: Column headers of the generated training tables: person columns and the others.
_PERSON_HEADERS = (
    "Name",
    "Full Name",
    "Customer",
    "Customer Name",
    "Payee",
    "Account Name",
    "Account Holder",
    "Contact",
    "Employee",
    "Patient",
    "Recipient",
    "Beneficiary",
    "Owner",
    "Assignee",
    "Client",
)
_ORG_HEADERS = ("Company", "Merchant", "Bank", "Employer", "Vendor", "Organization")
_WORD_HEADERS = ("Status", "Category", "Plan", "Type", "Department", "Product", "Tier")
_PLACE_HEADERS = ("City", "Location", "Branch", "Region")
_LIST_HEADS = ("Attendees:", "Participants:", "Team:", "Contacts:", "Guests:", "Signed by:")
_OTHER_LIST_HEADS = ("Topics:", "Products:", "Agenda:", "Features:", "Departments:")


def _values(items: Sequence, kinds: frozenset[str]) -> list[str]:
    out = []
    for x in items:
        for a, b, t in x.spans:
            v = " ".join(x.text[a:b].split())
            if t in kinds and 2 <= len(v) <= 40 and all(w.isalpha() for w in v.split()):
                out.append(v)
    return sorted(set(out))


def _cap_words(items: Sequence, limit: int = 400) -> list[str]:
    """Capitalised frequent words outside every labelled span ("Billing", "Priority")."""
    out: set[str] = set()
    for x in items:
        for m in re.finditer(r"(?<![\w.@])[A-Z][a-z]{3,}(?!\w)", x.text):
            if any(a < m.end() and m.start() < b for a, b, _ in x.spans):
                continue
            _, shape, first, last, _, zen, _, _ = word_info(m.group())
            if shape == "cap" and not first and not last and 9 > zen >= 4:
                out.add(m.group())
        if len(out) >= limit:
            break
    return sorted(out)


def tables_and_lists(
    items: Sequence, corpus: str, person_types: frozenset[str], n: int = 200, seed: int = 21
) -> list:
    """Training texts in the shapes prose corpora lack: CSV/TSV/Markdown tables with a person
    column among others, and bulleted or numbered lists, filled with the person, organisation and
    place values of ``items`` (so a corpus left out of training leaves these out too) and with
    capitalised common words of its texts as the non-person cells (``LabelledText`` items)."""
    rng = random.Random(seed)
    persons = _values(items, person_types)
    if not persons:
        return []
    orgs = _values(items, frozenset({"ORGANIZATION", "COMPANY"})) or ["Northwind"]
    places = _values(items, frozenset({"LOCATION"})) or ["Springfield"]
    words = _cap_words(items) or ["Standard"]
    out = []
    for k in range(n):
        parts: list[tuple[str, str | None]] = []  # (text, span type or None)
        if k % 3 == 2:  # a list
            people = rng.random() < 0.7
            head = rng.choice(_LIST_HEADS if people else _OTHER_LIST_HEADS)
            parts.append((head + "\n", None))
            for r in range(rng.randint(2, 5)):
                bullet = rng.choice(("- ", "* ", "• ", f"{r + 1}. "))
                value = _name_form(rng.choice(persons), rng) if people else rng.choice(words)
                parts += [(bullet, None), (value, "PERSON" if people else None), ("\n", None)]
        else:  # a table
            delim = rng.choice((",", "\t", ";", " | "))
            cols = [("P", rng.choice(_PERSON_HEADERS))]
            for kind, headers in (("O", _ORG_HEADERS), ("W", _WORD_HEADERS), ("L", _PLACE_HEADERS)):
                if rng.random() < 0.5:
                    cols.append((kind, rng.choice(headers)))
            cols += [("D", "Date"), ("A", rng.choice(("Amount", "Balance", "Total")))]
            rng.shuffle(cols)
            parts.append((delim.join(h for _, h in cols) + "\n", None))
            if delim == " | ":
                parts.append((delim.join("---" for _ in cols) + "\n", None))
            for _ in range(rng.randint(2, 6)):
                for j, (kind, _) in enumerate(cols):
                    if j:
                        parts.append((delim, None))
                    if kind == "P":
                        parts.append((_name_form(rng.choice(persons), rng), "PERSON"))
                    elif kind == "O":
                        parts.append((rng.choice(orgs), "ORGANIZATION"))
                    elif kind == "L":
                        parts.append((rng.choice(places), "LOCATION"))
                    elif kind == "W":
                        parts.append((rng.choice(words), None))
                    elif kind == "D":
                        parts.append(
                            (f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", None)
                        )
                    else:
                        parts.append((f"{rng.randint(1, 9999)}.{rng.randint(0, 99):02d}", None))
                parts.append(("\n", None))
        text, spans = "", []
        for piece, kind in parts:
            if kind is not None:
                spans.append((len(text), len(text) + len(piece), kind))
            text += piece
        out.append(LabelledText(text, spans, corpus, f"{corpus}-table-{k}"))
    return out


def _name_form(name: str, rng) -> str:
    """A name as tables write it: as is, upper or lower case, or "Last, First" in quotes."""
    r = rng.random()
    words = name.split()
    if r < 0.1:
        return name.upper()
    if r < 0.2:
        return name.lower()
    if r < 0.3 and len(words) == 2:
        return f'"{words[1]}, {words[0]}"'
    return name


def lower_case_names(
    items: Sequence, corpus: str, person_types: frozenset[str], n: int = 300, seed: int = 21
) -> list:
    """Texts of ``items`` with their person names written in lower case, and some written all in
    lower case (users type "anna kowalska"; chat lines have no capitals at all)."""
    rng = random.Random(seed)
    with_names = [x for x in items if any(t in person_types for _, _, t in x.spans)]
    rng.shuffle(with_names)
    out = []
    for k, x in enumerate(with_names[:n]):
        if k % 3 == 0:
            text = x.text.lower()  # same length: the spans stay
            if len(text) != len(x.text):
                continue
        else:
            chars = list(x.text)
            for a, b, t in x.spans:
                if t in person_types:
                    chars[a:b] = x.text[a:b].lower()
            text = "".join(chars)
            if len(text) != len(x.text):
                continue
        out.append(LabelledText(text, list(x.spans), corpus, f"{x.doc_id}-lower"))
    return out


_VOWEL = re.compile(r"[aeiouy]", re.IGNORECASE)


def _halves(word: str) -> tuple[str, str] | None:
    """A word cut after its first vowel group ("Marlow" -> "Mar", "low"), or None."""
    m = _VOWEL.search(word, 1)
    if m is None:
        return None
    k = m.end()
    while k < len(word) and _VOWEL.match(word[k]):
        k += 1
    return (word[:k], word[k:]) if 0 < k < len(word) else None


def _like(word: str, model: str) -> str:
    """``word`` in the letter case of ``model`` (upper, lower or capitalised)."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model.islower():
        return word.lower()
    return word[:1].upper() + word[1:].lower()


def invented_names(
    items: Sequence, corpus: str, person_types: frozenset[str], n: int = 300, seed: int = 21
) -> list:
    """Texts of ``items`` with each word of their person names replaced by an invented word that
    no name list and no word list has (the head of one of the corpus's name words joined to the
    tail of another: "Marlow" + "Quint" -> "Marint"), in the same letter case. Names met in use
    come from everywhere ("Ngozi Adeyemi", "Thanh Nguyen"), most of them in no list: these texts
    teach the model the context and the shape of a name, not the lists alone. So that an unknown
    word alone does not become a name, a quarter of the capitalised words outside every labelled
    span are written without their inner vowels ("Wht", "Prcss", as chat lines abbreviate) when
    that makes a word no list has."""
    from agentic_pipeline.masking.names.lexicon import listed_name
    from agentic_pipeline.masking.vocabulary import zipf

    rng = random.Random(seed)
    with_names = [x for x in items if any(t in person_types for _, _, t in x.spans)]
    rng.shuffle(with_names)
    parts = sorted(
        {
            h
            for x in with_names
            for a, b, t in x.spans
            if t in person_types
            for w in re.findall(r"[^\W\d_]{3,}", x.text[a:b])
            if (h := _halves(w.lower())) is not None
        }
    )
    if len(parts) < 4:
        return []
    invented: dict[str, str] = {}

    def invent(word: str) -> str:
        key = word.lower()
        if key not in invented:
            for _ in range(20):
                new = rng.choice(parts)[0] + rng.choice(parts)[1]
                if len(new) >= 3 and not listed_name(new) and zipf(new) == 0.0:
                    break
            invented[key] = new
        return _like(invented[key], word)

    def abbreviate(m: re.Match) -> str:
        word = m.group()
        short = word[0] + _VOWEL.sub("", word[1:-1]) + word[-1]
        if rng.random() < 0.25 and short != word and not listed_name(short) and zipf(short) == 0:
            return short
        return word

    def value(v: str, t: str) -> str:
        if t not in person_types:
            return v
        return re.sub(r"[^\W\d_]{3,}", lambda m: invent(m.group()), v)

    out = []
    for x in with_names[:n]:
        text, spans = _rewritten(x, lambda gap: _CAP_WORD.sub(abbreviate, gap), value)
        out.append(LabelledText(text, spans, corpus, f"{x.doc_id}-invented"))
    return out


def _rewritten(
    x: LabelledText, gap: Callable[[str], str], value: Callable[[str, str], str]
) -> tuple[str, list[tuple[int, int, str]]]:
    """``x``'s text with each stretch between its spans passed through ``gap`` and each span's
    value through ``value(value, type)``, in reading order, and the spans moved to match."""
    text, spans, pos = "", [], 0
    for a, b, t in [*sorted(x.spans), (len(x.text), len(x.text), "")]:
        if a < pos:
            continue
        text += gap(x.text[pos:a])
        if not t:
            break
        v = value(x.text[a:b], t)
        spans.append((len(text), len(text) + len(v), t))
        text += v
        pos = b
    return text, spans


#: A capitalised word of four letters or more (``invented_names`` abbreviates some).
_CAP_WORD = re.compile(r"(?<![\w.@#/-])[A-Z][a-z]{3,}(?![\w@])")


def upper_case_texts(
    items: Sequence, corpus: str, person_types: frozenset[str], n: int = 150, seed: int = 22
) -> list:
    """Texts of ``items`` written all in capitals, their labels kept (bank statement lines,
    shouted chat and legacy systems write names in capitals: "TRANSFER TO <NAME>")."""
    rng = random.Random(seed)
    with_names = [x for x in items if any(t in person_types for _, _, t in x.spans)]
    rng.shuffle(with_names)
    out = []
    for x in with_names[:n]:
        text = x.text.upper()
        if len(text) == len(x.text):  # same length: the spans stay ("ß" -> "SS" does not)
            out.append(LabelledText(text, list(x.spans), corpus, f"{x.doc_id}-upper"))
    return out


#: Languages whose frequent words ``foreign_words`` writes around the names: the main European
#: languages but English (``vocabulary.OTHER_LANGUAGES``, whose frequencies are the model's
#: ``zfo`` features: Portuguese and the Nordic languages too since names-f27-6f5dfb81d3).
_FOREIGN = OTHER_LANGUAGES


def _foreign_vocabulary(lang: str, n: int = 8000) -> list[str]:
    """Frequent words of ``lang`` (``wordfreq``) of three letters or more that English hardly
    uses and no name list has."""
    from wordfreq import top_n_list

    from agentic_pipeline.masking.names.lexicon import listed_name
    from agentic_pipeline.masking.vocabulary import zipf

    return [
        w
        for w in top_n_list(lang, n)
        if len(w) >= 3 and w.isalpha() and zipf(w, ("en",)) < 2.5 and not listed_name(w)
    ]


def foreign_words(
    items: Sequence, corpus: str, person_types: frozenset[str], n: int = 200, seed: int = 23
) -> list:
    """Texts of ``items`` with every word outside the labelled spans replaced by a frequent word
    of another main European language in the same letter case (capitalised as German nouns and
    sentence starts are), the labelled spans kept: a capitalised word English has never seen is
    no name when it is another language's vocabulary ("Adresse", "Numéro"), while the names
    among them still are."""
    rng = random.Random(seed)
    vocab = {lang: _foreign_vocabulary(lang) for lang in _FOREIGN}
    pool = [x for x in items if any(t in person_types for _, _, t in x.spans)]
    rng.shuffle(pool)
    out = []
    for k, x in enumerate(pool[:n]):
        words = vocab[_FOREIGN[k % len(_FOREIGN)]]

        def swap(m: re.Match, words: list[str] = words) -> str:
            return _like(rng.choice(words), m.group())

        text, spans = _rewritten(x, lambda gap: _WORD.sub(swap, gap), lambda v, _t: v)
        out.append(LabelledText(text, spans, corpus, f"{x.doc_id}-foreign"))
    return out


#: A word of letters outside e-mail addresses, URLs and handles (``foreign_words`` replaces it).
_WORD = re.compile(r"(?<![\w.@#/-])[^\W\d_]{2,}(?![\w@])")
