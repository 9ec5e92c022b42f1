"""Vehicle identification numbers (VINs, ISO 3779) found by their check digit.

A VIN names its keeper (GDPR: personal data). North American and Chinese VINs carry a check digit
in position 9 (a transliteration of each character, weighted, modulo 11; 49 CFR 565.15): a 17-char
token of the VIN alphabet (no I, O, Q) with letters and digits whose check digit holds is masked
without a label, in prose, JSON values and CSV cells. Other countries' VINs have no check digit:
a token of the same structure (letters among the first eleven characters, a numeric serial at the
end) is masked where it stands at a lower score, and after its label ("VIN", "Fahrgestellnummer",
``labels.yaml``) whatever its shape.

Our own code: python-stdnum (2.2) has no VIN module, and the check is a fixed public table.
"""

from __future__ import annotations

import re

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

ENTITY = "VEHICLE_ID"
#: A VIN's score: above spaCy's (0.85) and the labels' (0.87): a check digit is validation.
SCORE = 0.9
#: A VIN's structure without a valid check digit (Europe, Japan...): masked where it stands,
#: never propagated through the episode.
SHAPE_SCORE = 0.5
_VALUES = {
    **{str(d): d for d in range(10)},
    **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
    **dict(zip("JKLMN", range(1, 6), strict=True)),
    "P": 7,
    "R": 9,
    **dict(zip("STUVWXYZ", range(2, 10), strict=True)),
}
_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
#: A 17-character token of the VIN alphabet (upper case, as VINs are written).
_CANDIDATE = re.compile(r"(?<![\w-])[A-HJ-NPR-Z0-9]{17}(?![\w-])")


def check_digit(vin: str) -> str:
    """The check digit (``0``-``9`` or ``X``) of a 17-character VIN."""
    total = sum(_VALUES[c] * w for c, w in zip(vin, _WEIGHTS, strict=True)) % 11
    return "X" if total == 10 else str(total)


def vin_shape(token: str) -> bool:
    """A VIN's structure: 17 characters of the VIN alphabet, two letters or more among the
    first eleven (a maker's code, a model; a run of digits is no VIN), five digits or more, the
    last four digits (the serial)."""
    return (
        _CANDIDATE.fullmatch(token) is not None
        and sum(c.isalpha() for c in token[:11]) >= 2
        and sum(c.isdigit() for c in token) >= 5
        and token[-4:].isdigit()
    )


def is_vin(token: str) -> bool:
    """A VIN of that structure whose check digit holds."""
    return vin_shape(token) and check_digit(token) == token[8]


class VinRecognizer(LocalRecognizer):
    """VINs as ``VEHICLE_ID``: with a valid check digit (``SCORE``), or of a VIN's structure
    only (``SHAPE_SCORE``)."""

    def __init__(self) -> None:
        super().__init__(supported_entities=[ENTITY], name="VinRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report every VIN-shaped token, checked ones at the higher score."""
        if entities and ENTITY not in entities:
            return []
        return [
            RecognizerResult(ENTITY, m.start(), m.end(), SCORE if is_vin(v) else SHAPE_SCORE)
            for m in _CANDIDATE.finditer(text)
            if vin_shape(v := m.group())
        ]
