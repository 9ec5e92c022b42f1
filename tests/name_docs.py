"""Helpers of the name-model tests: spaCy documents with hand-set PERSON entities, so each case
tests the mechanism whatever the small model happens to label, and the spans a model finds."""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc

from agentic_pipeline.masking.names.model import NameModel

#: A model that finds no name by itself: every probability is about 0.
BLIND = NameModel(weights={}, intercept=-12.0, threshold=0.3, propagate=0.85, veto=0.3)


def person_doc(nlp: Language, text: str, *persons: str) -> Doc:
    """``text``'s document with exactly the PERSON entities ``persons`` (by their text)."""
    doc = nlp.make_doc(text)
    ents = []
    for p in persons:
        start = text.index(p)
        span = doc.char_span(start, start + len(p), label="PERSON")
        assert span is not None, p
        ents.append(span)
    doc.ents = ents
    return doc


def spans_found(model: NameModel, text: str, doc: Doc) -> list[str]:
    """The texts of the person spans ``model`` finds in ``text``."""
    return [text[s:e] for s, e, _ in model.spans(text, doc)]
