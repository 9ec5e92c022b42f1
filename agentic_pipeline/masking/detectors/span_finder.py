"""A Presidio recognizer made of a function that finds spans: the detectors that read a format
or a checksum (HL7 fields, X12 elements, SWIFT parties, checked national ids) report what it
finds, each span at the detector's one score; and the splitting of a segment into its fields or
elements that the HL7 and X12 readers share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

#: A function that finds (start, end, entity type) spans in a text.
SpanFinder = Callable[[str], Iterable[tuple[int, int, str]]]


def separated_parts(text: str, start: int, end: int, sep: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each part of ``text[start:end]`` split at ``sep`` (a field, component or
    element separator of HL7 or X12)."""
    pos = start
    while True:
        cut = text.find(sep, pos, end)
        if cut < 0:
            yield pos, end
            return
        yield pos, cut
        pos = cut + 1


def first_to_last(parts: list[tuple[int, int]], wanted: range) -> tuple[int, int] | None:
    """From the first to the last non-empty part among the ``wanted`` indices (a name's or an
    address's components as one span)."""
    full = [parts[i] for i in wanted if i < len(parts) and parts[i][1] > parts[i][0]]
    return (full[0][0], full[-1][1]) if full else None


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
