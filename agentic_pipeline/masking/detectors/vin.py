"""Vehicle identification numbers (VINs, ISO 3779) found by their check digit.

A VIN names its keeper (GDPR: personal data). North American and Chinese VINs carry a check digit
in position 9 (a transliteration of each character, weighted, modulo 11; 49 CFR 565.15): a 17-char
token of the VIN alphabet (no I, O, Q) with letters and digits whose check digit holds is masked
without a label, in prose, JSON values and CSV cells. Other countries' VINs have no check digit:
they are masked after their label ("VIN", "Fahrgestellnummer", ``labels.yaml``).

Our own code: python-stdnum (2.2) has no VIN module, and the check is a fixed public table.
"""

from __future__ import annotations

import re

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

ENTITY = "VEHICLE_ID"
#: A VIN's score: above spaCy's (0.85) and the labels' (0.87): a check digit is validation.
SCORE = 0.9
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


def is_vin(token: str) -> bool:
    """A VIN whose check digit holds: 17 characters of the VIN alphabet, letters and digits
    (a run of digits alone is no VIN), the last four digits (the serial)."""
    return (
        _CANDIDATE.fullmatch(token) is not None
        and any(c.isalpha() for c in token)
        and sum(c.isdigit() for c in token) >= 5
        and token[-4:].isdigit()
        and check_digit(token) == token[8]
    )


class VinRecognizer(LocalRecognizer):
    """VINs with a valid check digit, as ``VEHICLE_ID``."""

    def __init__(self) -> None:
        super().__init__(supported_entities=[ENTITY], name="VinRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report every checked VIN."""
        if entities and ENTITY not in entities:
            return []
        return [
            RecognizerResult(ENTITY, m.start(), m.end(), SCORE)
            for m in _CANDIDATE.finditer(text)
            if is_vin(m.group())
        ]
