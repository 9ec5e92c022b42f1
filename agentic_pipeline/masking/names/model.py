"""The name model: a logistic regression over the token features of ``features.py``, stored as a
small JSON file of weights (``data/name_model.json``, rebuilt by ``python -m
agentic_pipeline.masking.names.build``), and the person spans it finds in a spaCy document.

Scoring sums the weights of a candidate token's features (no scikit-learn at masking time).
Adjacent name tokens on one line make one span, scored by its best token's probability mapped
so that the masking's score bars mean the model's: ``threshold`` (masked where it stands) maps
to 0.4, ``propagate`` (an episode-wide value) to 0.6.

The floor: every PERSON entity of spaCy (what plain Presidio masks as a name) is a person span
too, unless vetoed: its best word's probability is below the model's ``veto`` bar *and* it
carries a non-person signal (``non_person_signal``: no word, an id or code, all capitals, only
vocabulary, an organisation word, a word spaCy calls an organisation, product or place
elsewhere). So the model adds names to plain Presidio's and only removes the ones both the
model and a signal reject.

The entity floor (``entity_floor``; off in the shipped model: leave-one-corpus-out it found one
person for two to three organisations or places it took, docs/names.md): a spaCy ORG, GPE,
NORP, LOC or FAC entity of one word, or of two that make a listed first and last name, is a
person span when the model gives it at least ``entity_floor`` and no non-person signal.

``$AGENTIC_PIPELINE_NAME_MODEL`` (``MODEL_ENV``) names another model file to use (the
leave-one-corpus-out benchmarks; read once per process).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from spacy.tokens import Doc

from agentic_pipeline.masking.names.features import FEATURE_VERSION, TextFeatures
from agentic_pipeline.masking.names.fields import (
    after_person_label,
    chat_header_names,
    field_last_first_values,
    label_before,
    last_first_value,
    last_first_values,
    person_field_key,
)
from agentic_pipeline.masking.names.floor import (
    SPAN_WORD,
    STRONG_SIGNALS,
    after_title,
    non_person_signal,
    organisation_word,
    person_extents,
    person_parts,
    vocabulary_word,
)
from agentic_pipeline.masking.names.joins import (
    given_after_surname,
    surname_before_given,
    with_hyphen_halves,
    with_name_parts,
    with_particles,
)
from agentic_pipeline.masking.names.layout import (
    greeted,
    phone_list_keys,
    placed_names,
    without_abbreviations,
)
from agentic_pipeline.masking.names.lexicon import (
    is_name_pair,
    listed_name,
    name_like_span,
    not_a_name_word,
)
from agentic_pipeline.masking.vocabulary import WORD_LANGUAGES

MODEL_PATH = Path(__file__).parent / "data" / "name_model.json"
#: Environment variable naming a model file used instead of ``MODEL_PATH`` (benchmarks).
MODEL_ENV = "AGENTIC_PIPELINE_NAME_MODEL"
#: Masking score bars the model's thresholds are mapped to (``Masker.min_score`` and
#: ``Masker.propagate_min_score``).
MASK_SCORE = 0.4
PROPAGATE_SCORE = 0.6
#: Between two name tokens of one span: nothing, one space, or a joining mark ("Anne-Marie").
_JOINS = frozenset({"", " ", "-", "'", "’"})
#: The parts of a spaCy entity between line breaks, tabs, column gaps of two spaces, table
#: bars, commas, semicolons and colons before a space (no name spans them: an entity running on
#: into the next line, cell or form field, "<name>,2024-02-11" in a CSV row or "<speaker>: Mine
#: is ..." in a chat line, is judged part by part; a link's "://" stays whole for
#: ``_without_codes``).
_PIECE_CHAR = r"(?:[^\s|,;:]|:(?=\S))"
_PIECE = re.compile(rf"{_PIECE_CHAR}(?:(?:[^\n\t|,;: ]| (?! )|:(?=\S))*{_PIECE_CHAR})?")
#: spaCy labels that plain Presidio masks as an organisation, a place or a group (the entity
#: floor reads them).
ENTITY_FLOOR_LABELS = frozenset({"ORG", "GPE", "NORP", "LOC", "FAC"})


@dataclass
class NameModel:
    """Feature weights, intercept and the two probability bars, with a version string."""

    weights: dict[str, float]
    intercept: float
    weights2: dict[str, float] = field(default_factory=dict)
    intercept2: float = 0.0
    threshold: float = 0.5
    propagate: float = 0.9
    #: spaCy PERSON entities are kept unless their best probability is below this and they carry
    #: a non-person signal (None: no floor, the model alone decides)
    veto: float | None = None
    #: ... or below this whatever the signal (None: never)
    veto_always: float | None = None
    #: ... or, in a text of another language than English (``TextFeatures.foreign``), below
    #: this whatever the signal: spaCy's English model reads its capitalised words as persons
    #: (None: never)
    veto_other_language: float | None = None
    #: spaCy ORG/GPE/NORP/LOC/FAC entities of at most two words are person spans when their
    #: best probability reaches this and they carry no non-person signal (None: never)
    entity_floor: float | None = None
    #: a unit from this probability is a name when joined to a name unit or the same word as one
    #: (``name_units``; None: never)
    extend: float | None = None
    version: str = "unversioned"
    feature_version: str = FEATURE_VERSION
    meta: dict = field(default_factory=dict)

    def probability(self, feats: list[str], stage2: bool = False) -> float:
        """P(person) of one unit by stage 1, or by stage 2 (``feats`` then include the
        ``neighbour_features``)."""
        w = self.weights2 if stage2 else self.weights
        z = (self.intercept2 if stage2 else self.intercept) + sum(w.get(f, 0.0) for f in feats)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def score(self, p: float) -> float:
        """The masking score of a span of probability ``p`` (see module doc)."""
        t, h = self.threshold, self.propagate
        if p < h:
            return MASK_SCORE + (PROPAGATE_SCORE - MASK_SCORE) * (p - t) / max(h - t, 1e-9)
        return PROPAGATE_SCORE + (1.0 - PROPAGATE_SCORE) * (p - h) / max(1.0 - h, 1e-9)

    def unit_probabilities(self, tf: TextFeatures) -> dict[int, float]:
        """P(person) of each candidate unit of a text (its index -> probability)."""
        feats = {i: tf.features(i) for i in tf.candidates()}
        p1 = {i: self.probability(f) for i, f in feats.items()}
        if not self.weights2:
            return p1
        out = {}
        for i, f in feats.items():
            p, n = tf.neighbours(i)
            out[i] = self.probability(f + neighbour_features(p1.get(p), p1.get(n)), True)
        return out

    def word_probabilities(self, text: str, doc: Doc) -> list[tuple[str, float]]:
        """(word, P(person)) of each candidate word of ``text``, in order (for inspection)."""
        tf = TextFeatures(text, doc)
        return [(tf.words[i], p) for i, p in sorted(self.unit_probabilities(tf).items())]

    def spans(self, text: str, doc: Doc) -> list[tuple[int, int, float]]:
        """Person spans ``(start, end, probability)`` of ``text`` (``doc`` is its spaCy doc):
        the model's, and spaCy's PERSON entities that are not vetoed (the floor, see the module
        doc). A floor span's probability is at least ``threshold`` (it is masked)."""
        tf = TextFeatures(text, doc)
        probs = self.unit_probabilities(tf)
        names = self.name_units(tf, probs)
        out: list[tuple[int, int, float]] = []
        cur: list | None = None  # [start, end, best probability]
        for i in sorted(names):
            p = max(probs[i], self.threshold)  # a unit joined from the ``extend`` bar is masked
            s, e = tf.starts[i], tf.ends[i]
            if cur is not None and (
                text[cur[1] : s] in _JOINS or _slash_halves(text, cur[0], cur[1], s, e)
            ):
                cur[1], cur[2] = e, max(cur[2], p)
                continue
            if cur is not None:
                out.append((cur[0], cur[1], cur[2]))
            cur = [s, e, p]
        out += [(cur[0], cur[1], cur[2])] if cur else []
        # "Ann." at a sentence end: the name without its period
        out = [(s, e - 1 if text[e - 1] == "." else e, p) for s, e, p in out]
        out = [sp for sp in person_extents(text, out) if not self.unlike_a_person(tf, *sp)]
        out = without_abbreviations(text, out)
        out = [sp for sp in out if sp[2] >= self.propagate or not _inside_a_place(tf, doc, *sp[:2])]
        floor = self.floor_spans(tf, doc, probs) + self.entity_floor_spans(tf, doc, probs)
        out = _union(out, floor) if floor else out
        # a person label's value written surname first ("Patient: <LAST>, <FIRST>") and a chat
        # export's header ("<Last>, <First>  3:14 PM") are names by their place, unless a word
        # of them says otherwise (an organisation word, a word that no name list has and a
        # language has: "Contact: Sales, Marketing", "Yesterday 11:51 PM")
        values = last_first_values(tf.text) + chat_header_names(tf.text)
        values += field_last_first_values(tf.text)
        named = [
            (a, b)
            for a, b in values
            if non_person_signal(tf, a, b) in (None, "upper", "elsewhere")
            and not any(
                organisation_word(w) or vocabulary_word(w) for w in SPAN_WORD.findall(tf.text[a:b])
            )
        ]
        # a span inside a value that its words say is none ("Contact: Sales, Marketing") goes,
        # unless the model is sure of it and it holds an initial or a name ("Payee: Quill, J.")
        unnamed = [v for v in values if v not in named]
        out = [
            sp
            for sp in out
            if not any(a <= sp[0] and sp[1] <= b for a, b in unnamed)
            or (sp[2] >= self.propagate and name_like_span(tf.text[sp[0] : sp[1]]))
        ]
        by_label = [(a, b, self.threshold) for a, b in named + placed_names(tf.text)]
        spans = _union([_whole_last_first(sp, values) for sp in out], by_label)
        return with_hyphen_halves(text, with_particles(text, spans))

    def name_units(self, tf: TextFeatures, probs: dict[int, float]) -> set[int]:
        """The candidate units that are names: those at ``threshold`` or above, and, from the
        lower ``extend`` bar, those joined to one of them ("Orla" before a surname above the bar)
        or the same word as one of them elsewhere in the text (the second "Orla" of "Orla told
        Orla's brother"), so that no half of a name or second mention stays in clear. A word of
        the vocabulary, a stop, place or calendar word never joins ("Producer Orla Brown"), but
        a listed surname right after a masked first name does (``joins.with_name_parts``: "Orla
        Brown")."""
        names = {i for i, p in probs.items() if p >= self.threshold}
        if self.extend is None or not names:
            return with_name_parts(tf, probs, names)
        maybe = sorted(
            i
            for i, p in probs.items()
            if self.extend <= p < self.threshold
            and not not_a_name_word(tf.words[i], WORD_LANGUAGES)
        )
        grown = True
        while grown and maybe:
            grown = False
            words = {tf.words[i] for i in names}
            for i in maybe:
                if i in names:
                    continue
                if tf.words[i] in words or any(
                    j in names and self._joined(tf, min(i, j), max(i, j)) for j in (i - 1, i + 1)
                ):
                    names.add(i)
                    grown = True
        return with_name_parts(tf, probs, names)

    @staticmethod
    def _joined(tf: TextFeatures, a: int, b: int) -> bool:
        """Units ``a`` < ``b`` touch on one line: nothing, a space or a joining mark between."""
        return tf.text[tf.ends[a] : tf.starts[b]] in _JOINS

    def unlike_a_person(self, tf: TextFeatures, start: int, end: int, p: float) -> bool:
        """A span below the propagation bar with a strong non-person signal (an organisation
        word, all capitals, a digit or underscore, no name-like word, a city, an id label:
        "Brindlewood Ltd"), or, however confident, a span all in capitals of which no word is a
        listed name (a booking code listed alone, "2. ZKPLMA"), a country or nationality that no
        name list has ("Uruguay"), a span that ends with an organisation word ("Globex
        Logistics") or a person label before its colon ("Payer:"): no person, whoever proposed
        it. Lower-case words that no name list has ("pls chek") or that are all vocabulary ("dos")
        below the propagation bar are a person only after a person label or a title ("auntie")."""
        signal = non_person_signal(tf, start, end)
        if signal == "upper":
            if last_first_value(tf.text, start) is not None:
                return False  # "Patient name: <LAST>, <FIRST>": a name in capitals, by its label
            label = label_before(tf.text, start)
            if label is not None and person_field_key(label):
                return False  # "Nom : <SURNAME>": capitals under a label only a person fills
            if surname_before_given(tf.text, start, end) or given_after_surname(tf.text, start):
                return False  # "Bed 3  <SURNAME>, <GIVEN>": a list's name, surname first
            if "/" in tf.text[start:end]:
                return False  # "<SURNAME>/<GIVEN>": an airline's passenger, by its form
            words = re.split(r"[\s-]+", tf.text[start:end])  # "<SURNAME>-<SURNAME>" by parts
            if not any(listed_name(w) for w in words if w):
                return True
        if signal in ("place", "company", "label", "street"):  # "Uruguay"; "Globex Logistics"
            return True
        if signal == "form-key" and p < self.propagate:  # "- Outbound: <flight>" among fields
            return not any(listed_name(w) for w in re.split(r"[\s-]+", tf.text[start:end]) if w)
        lower = signal == "lower" or signal == "vocabulary" and tf.text[start:end].islower()
        if lower and p < self.propagate:
            # lower-case words no name list has ("pls chek"): a person only by a label's say
            return not after_person_label(tf.text, start) and not after_title(tf.text, start)
        return p < self.propagate and signal in STRONG_SIGNALS

    def floor_spans(
        self, tf: TextFeatures, doc: Doc, probs: dict[int, float]
    ) -> list[tuple[int, int, float]]:
        """spaCy's PERSON entities that no veto removes, with the best probability of their
        words (at least ``threshold``)."""
        if self.veto is None and self.veto_always is None:
            return []
        out = []
        pieces = [
            part
            for ent in doc.ents
            if ent.label_ == "PERSON"
            for m in _PIECE.finditer(ent.text)
            for part in person_parts(
                tf,
                probs,
                *_without_codes(tf.text, ent.start_char + m.start(), ent.start_char + m.end()),
                self.threshold,
            )
        ]
        phone_keys = phone_list_keys(tf.text)  # people when one key is a person, else a form's
        people = any(
            p >= self.threshold and s <= tf.starts[i] and tf.ends[i] <= e
            for s, e in phone_keys
            for i, p in probs.items()
        )
        for s, e, _ in person_extents(tf.text, [(s, e, 0.0) for s, e in pieces if s < e]):
            ps = [p for i, p in probs.items() if tf.starts[i] < e and s < tf.ends[i]]
            best = max(ps, default=0.0)
            keyed = people and (s, e) in phone_keys  # "<name>: <phone>" among people
            # "Patient: <LAST>, <FIRST>", "Ciao <name>,": a name by its place
            by_label = (
                keyed
                or last_first_value(tf.text, s) is not None
                or greeted(tf.text, s, e) is not None
            )
            if self.veto_always is not None and best < self.veto_always and not by_label:
                continue
            other = tf.foreign and self.veto_other_language is not None
            if other and best < self.veto_other_language and not by_label:
                continue
            if (
                self.veto is not None
                and best < self.veto
                and not by_label
                and non_person_signal(tf, s, e)
            ):
                continue
            if not keyed and self.unlike_a_person(tf, s, e, best):
                continue
            out.append((s, e, max(best, self.threshold)))
        return out

    def entity_floor_spans(
        self, tf: TextFeatures, doc: Doc, probs: dict[int, float]
    ) -> list[tuple[int, int, float]]:
        """spaCy's organisation, place and group entities of one word, or of two that make a
        listed first and last name, whose best probability reaches ``entity_floor`` and that
        carry no non-person signal, with that probability (at least ``threshold``)."""
        if self.entity_floor is None:
            return []
        out = []
        for ent in doc.ents:
            if ent.label_ not in ENTITY_FLOOR_LABELS:
                continue
            for m in _PIECE.finditer(ent.text):
                s, e = ent.start_char + m.start(), ent.start_char + m.end()
                words = SPAN_WORD.findall(tf.text[s:e])
                if not (len(words) == 1 or len(words) == 2 and is_name_pair(*words)):
                    continue
                ps = [p for i, p in probs.items() if tf.starts[i] < e and s < tf.ends[i]]
                best = max(ps, default=0.0)
                if best < self.entity_floor or non_person_signal(tf, s, e):
                    continue
                out.append((s, e, max(best, self.threshold)))
        return out

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "feature_version": self.feature_version,
            "threshold": self.threshold,
            "propagate": self.propagate,
            "veto": self.veto,
            "veto_always": self.veto_always,
            "veto_other_language": self.veto_other_language,
            "entity_floor": self.entity_floor,
            "extend": self.extend,
            "intercept": round(self.intercept, 5),
            "intercept2": round(self.intercept2, 5),
            "weights2": {k: round(v, 5) for k, v in sorted(self.weights2.items())},
            "meta": self.meta,
            "weights": {k: round(v, 5) for k, v in sorted(self.weights.items())},
        }

    def save(self, path: str | Path = MODEL_PATH) -> None:
        """Write the model as JSON (sorted keys: the same model gives the same bytes)."""
        Path(path).write_text(
            json.dumps(self.to_json(), ensure_ascii=False, indent=0, sort_keys=True) + "\n",
            encoding="utf-8",
        )

    @classmethod
    def from_json(cls, data: dict) -> NameModel:
        if data.get("feature_version") != FEATURE_VERSION:
            raise ValueError(
                f"name model built on features {data.get('feature_version')!r}, the code computes "
                f"{FEATURE_VERSION!r}: rebuild it (python -m agentic_pipeline.masking.names.build)"
            )
        return cls(
            weights=dict(data["weights"]),
            intercept=float(data["intercept"]),
            weights2=dict(data.get("weights2") or {}),
            intercept2=float(data.get("intercept2") or 0.0),
            threshold=float(data["threshold"]),
            propagate=float(data["propagate"]),
            veto=_bar(data.get("veto")),
            veto_always=_bar(data.get("veto_always")),
            veto_other_language=_bar(data.get("veto_other_language")),
            entity_floor=_bar(data.get("entity_floor")),
            extend=_bar(data.get("extend")),
            version=str(data["version"]),
            feature_version=str(data["feature_version"]),
            meta=dict(data.get("meta") or {}),
        )


def _whole_last_first(
    span: tuple[int, int, float], values: list[tuple[int, int]]
) -> tuple[int, int, float]:
    """``span`` widened to the name written surname first among ``values`` (``last_first_values``
    of the text) that holds it ("From: <Last>, <First>"): a surname before a comma is no word of
    its own."""
    s, e, p = span
    return next(((a, b, p) for a, b in values if a <= s and e <= b), span)


def _inside_a_place(tf: TextFeatures, doc: Doc, start: int, end: int) -> bool:
    """The span is part of a longer spaCy entity that names a city or a country ("Alegre" of
    "Porto Alegre", when the model put "Porto" below its bar as Portuguese vocabulary)."""
    return any(
        ent.start_char <= start
        and end <= ent.end_char
        and end - start < len(ent.text)
        and non_person_signal(tf, ent.start_char, ent.end_char) in ("city", "place")
        for ent in doc.ents
    )


#: A space-separated token that is no part of a name: a URL, an e-mail address, a handle or a
#: date written with digits ("2015-06-30", "(30.06.2015)").
_CODE_TOKEN = re.compile(r"\S*(?:://|@|www\.)\S*|[(\[]?\d{1,4}([-/.])\d{1,2}\1\d{1,4}[)\],.;]?")


def _slash_halves(text: str, a: int, b: int, c: int, d: int) -> bool:
    """``text[a:b]`` and ``text[c:d]`` are the halves of an airline's ``SURNAME/GIVEN``: one
    person's name, one span."""
    return text[b:c] == "/" and text[a:b].isupper() and text[c:d].isupper()


def _without_codes(text: str, start: int, end: int) -> tuple[int, int]:
    """``start:end`` without the URLs, e-mail addresses, handles and dates at its ends (spaCy
    runs a name on into a link or a date: "... Lee http://t.co/x1"): the name is judged alone.
    A number stays ("Harlowe 7731" is a code)."""
    tokens = [(m.start() + start, m.end() + start) for m in re.finditer(r"\S+", text[start:end])]
    while tokens and _CODE_TOKEN.fullmatch(text[tokens[0][0] : tokens[0][1]]):
        tokens.pop(0)
    while tokens and _CODE_TOKEN.fullmatch(text[tokens[-1][0] : tokens[-1][1]]):
        tokens.pop()
    return (tokens[0][0], tokens[-1][1]) if tokens else (start, start)


def _bar(v) -> float | None:
    return None if v is None else float(v)


def _union(a: list[tuple[int, int, float]], b: list[tuple[int, int, float]]):
    """Overlapping spans of ``a`` and ``b`` merged (their best probability kept), sorted."""
    out: list[list] = []
    for s, e, p in sorted(a + b):
        if out and s < out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
            out[-1][2] = max(out[-1][2], p)
        else:
            out.append([s, e, p])
    return [(s, e, p) for s, e, p in out]


def neighbour_features(prev: float | None, nxt: float | None) -> list[str]:
    """Stage-2 features: the stage-1 probabilities (in fifths) of the candidate units right
    before and after a unit on its line (``None``: no candidate there)."""
    a = "-" if prev is None else str(min(4, int(prev * 5)))
    b = "-" if nxt is None else str(min(4, int(nxt * 5)))
    return [f"nbp={a}", f"nbn={b}", f"nbp={a}|nbn={b}"]


def load_model(path: str | Path = MODEL_PATH) -> NameModel:
    """Read a model file."""
    return NameModel.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


def model_path() -> Path:
    """The model file the masking uses: ``$AGENTIC_PIPELINE_NAME_MODEL`` when set, else the
    shipped one."""
    chosen = os.environ.get(MODEL_ENV, "").strip()
    return Path(chosen) if chosen else MODEL_PATH


@lru_cache(maxsize=1)
def default_model() -> NameModel:
    """The model of ``model_path()`` (the shipped ``data/name_model.json`` unless
    ``$AGENTIC_PIPELINE_NAME_MODEL`` names another), loaded once per process."""
    return load_model(model_path())
