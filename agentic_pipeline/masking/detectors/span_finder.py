"""A Presidio recognizer made of a function that finds spans: the detectors that read a format
or a checksum (HL7 fields, SWIFT parties, checked national ids) report what it finds, each
span at the detector's one score."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

#: A function that finds (start, end, entity type) spans in a text.
SpanFinder = Callable[[str], Iterable[tuple[int, int, str]]]


class SpanFinderRecognizer(LocalRecognizer):
    """Reports the spans ``find`` returns for a text, of the asked types, at ``score``."""

    def __init__(self, find: SpanFinder, entities: Iterable[str], name: str, score: float):
        self.find, self.score = find, score
        super().__init__(supported_entities=sorted(set(entities)), name=name)

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report each span found, as its type."""
        return [
            RecognizerResult(et, start, end, self.score)
            for start, end, et in self.find(text)
            if not entities or et in entities
        ]
