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
    threshold: float = 0.5
    propagate: float = 0.9
    version: str = "unversioned"
    feature_version: str = FEATURE_VERSION
    meta: dict = field(default_factory=dict)

    def probability(self, feats: list[str]) -> float:
        """P(person) of one token."""
        w = self.weights
        z = self.intercept + sum(w.get(f, 0.0) for f in feats)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def score(self, p: float) -> float:
        """The masking score of a span of probability ``p`` (see module doc)."""
        t, h = self.threshold, self.propagate
        if p < h:
            return MASK_SCORE + (PROPAGATE_SCORE - MASK_SCORE) * (p - t) / max(h - t, 1e-9)
        return PROPAGATE_SCORE + (1.0 - PROPAGATE_SCORE) * (p - h) / max(1.0 - h, 1e-9)

    def token_probabilities(self, text: str, doc: Doc) -> dict[int, float]:
        """P(person) of each candidate token of ``doc`` (its index -> probability)."""
        tf = TextFeatures(text, doc)
        return {i: self.probability(tf.features(i)) for i in tf.candidates()}

    def spans(self, text: str, doc: Doc) -> list[tuple[int, int, float]]:
        """Person spans ``(start, end, probability)`` of ``text`` (``doc`` is its spaCy doc)."""
        probs = self.token_probabilities(text, doc)
        out: list[tuple[int, int, float]] = []
        cur: list[int] | None = None  # [start, end, best prob x 1e6]
        for i in sorted(probs):
            p = probs[i]
            if p < self.threshold:
                continue
            t = doc[i]
            s, e = t.idx, t.idx + len(t.text)
            if cur is not None and text[cur[1] : s] in _JOINS:
                cur[1] = e
                cur[2] = max(cur[2], p)
                continue
            if cur is not None:
                out.append((cur[0], cur[1], cur[2]))
            cur = [s, e, p]
        if cur is not None:
            out.append((cur[0], cur[1], cur[2]))
        return out

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "feature_version": self.feature_version,
            "threshold": self.threshold,
            "propagate": self.propagate,
            "intercept": round(self.intercept, 5),
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
            threshold=float(data["threshold"]),
            propagate=float(data["propagate"]),
            version=str(data["version"]),
            feature_version=str(data["feature_version"]),
            meta=dict(data.get("meta") or {}),
        )


def load_model(path: str | Path = MODEL_PATH) -> NameModel:
    """Read a model file."""
    return NameModel.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def default_model() -> NameModel:
    """The shipped model (``data/name_model.json``), loaded once per process."""
    return load_model(MODEL_PATH)
