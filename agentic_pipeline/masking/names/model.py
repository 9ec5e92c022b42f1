"""The name model: a logistic regression over the token features of ``features.py``, stored as a
small JSON file of weights (``data/name_model.json``, rebuilt by ``python -m
agentic_pipeline.masking.names.build``), and the person spans it finds in a spaCy document.

Scoring is a sum of the weights of a token's features (no scikit-learn at masking time), run only
on the candidate tokens. Adjacent name tokens on one line make one span; a span's score is its
best token's probability, mapped so that the masking's fixed score bars mean the model's own
bars: ``threshold`` (masked where it stands) maps to 0.4, ``propagate`` (an episode-wide value)
to 0.6.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from spacy.tokens import Doc

from agentic_pipeline.masking.names.features import FEATURE_VERSION, TextFeatures

MODEL_PATH = Path(__file__).parent / "data" / "name_model.json"
#: Masking score bars the model's thresholds are mapped to (``Masker.min_score`` and
#: ``Masker.propagate_min_score``).
MASK_SCORE = 0.4
PROPAGATE_SCORE = 0.6
#: Between two name tokens of one span: nothing, one space, or a joining mark ("Anne-Marie").
_JOINS = frozenset({"", " ", "-", "'", "’"})


@dataclass
class NameModel:
    """Feature weights, intercept and the two probability bars, with a version string."""

    weights: dict[str, float]
    intercept: float
    weights2: dict[str, float] = field(default_factory=dict)
    intercept2: float = 0.0
    threshold: float = 0.5
    propagate: float = 0.9
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
        """Person spans ``(start, end, probability)`` of ``text`` (``doc`` is its spaCy doc)."""
        tf = TextFeatures(text, doc)
        probs = self.unit_probabilities(tf)
        out: list[tuple[int, int, float]] = []
        cur: list | None = None  # [start, end, best probability]
        for i in sorted(probs):
            p = probs[i]
            if p < self.threshold:
                continue
            s, e = tf.starts[i], tf.ends[i]
            if cur is not None and text[cur[1] : s] in _JOINS:
                cur[1] = e
                cur[2] = max(cur[2], p)
                continue
            if cur is not None:
                out.append((cur[0], cur[1], cur[2]))
            cur = [s, e, p]
        if cur is not None:
            out.append((cur[0], cur[1], cur[2]))
        # "Ann." at a sentence end: the name without its period
        return [(s, e - 1 if text[e - 1] == "." else e, p) for s, e, p in out]

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "feature_version": self.feature_version,
            "threshold": self.threshold,
            "propagate": self.propagate,
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
            version=str(data["version"]),
            feature_version=str(data["feature_version"]),
            meta=dict(data.get("meta") or {}),
        )


def neighbour_features(prev: float | None, nxt: float | None) -> list[str]:
    """Stage-2 features: the stage-1 probabilities (in fifths) of the candidate units right
    before and after a unit on its line (``None``: no candidate there)."""
    a = "-" if prev is None else str(min(4, int(prev * 5)))
    b = "-" if nxt is None else str(min(4, int(nxt * 5)))
    return [f"nbp={a}", f"nbn={b}", f"nbp={a}|nbn={b}"]


def load_model(path: str | Path = MODEL_PATH) -> NameModel:
    """Read a model file."""
    return NameModel.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def default_model() -> NameModel:
    """The shipped model (``data/name_model.json``), loaded once per process."""
    return load_model(MODEL_PATH)
