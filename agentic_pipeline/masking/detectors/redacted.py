"""Identifiers already partly hidden, and payment addresses that are no e-mail addresses.

* A partly redacted id still shows its last digits, which are personal data (the last four of
  an SSN or a card, as "ending in 4471" is): "XXX-XX-1234", "***-**-1234", "************4471",
  "4532 **** **** 4471". The digits and the mask characters around them are masked as one span,
  typed by the shape (SSN groups 3-2-4, card length 13-19).
* A value that stands where a personal value was removed or never given ("[email protected]",
  "N/A", "***": ``placeholders`` of ``redacted.yaml``) identifies nobody: under a personal key
  it stays as it is (``placeholder_value``).
* A UPI payment address (India's Unified Payments Interface, "name@oksbi") has the shape of an
  e-mail address without a domain: it is found by the payment service's handle after the "@"
  (``upi_handles`` of ``redacted.yaml``) and masked as the bank account it aliases.
"""

from __future__ import annotations

import re
from functools import lru_cache

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.data_files import data_file

#: Characters that stand for a hidden digit.
_HID = r"[Xx*•#]"
#: The ones that are no letter: kept inside the masked span of a partly redacted id.
HIDDEN_DIGITS = "*•#"
REDACTED_DETECTOR = "RedactedIdRecognizer"
#: An SSN with its area and group hidden: "XXX-XX-1234", "*** ** 1234".
_SSN = re.compile(rf"(?<![\w*•#-]){_HID}{{3}}[- ]?{_HID}{{2}}[- ]?(\d{{4}})(?![\w-])")
#: A card number with its middle hidden: "************4471", "4532 **** **** 4471",
#: "XXXX-XXXX-XXXX-4471" (13 to 24 characters of digits and mask characters).
_CARD = re.compile(
    rf"(?<![\w*•#-])(?:\d{{4,6}}[- ]?)?(?:{_HID}{{4}}[- ]?){{1,3}}{_HID}{{0,4}}[- ]?\d{{4}}"
    r"(?![\w-])"
    rf"|(?<![\w*•#-])\d{{0,6}}{_HID}{{6,18}}\d{{2,4}}(?![\w-])"
)
#: Longest masked card display: 19 digits, and a few mask characters more (a display does not
#: always keep the number's length: "5210************3318" hides 12 for 8).
_CARD_DISPLAY_MAX = 24
#: Score of a partly redacted id: the shape says what it is (above "card 4929" read as the
#: last four digits, and above an id label's value, "5210" of "card number 5210****…3318": the
#: whole display is one token).
REDACTED_SCORE = 0.88
#: Score of a UPI address: above spaCy, below checksummed patterns.
UPI_SCORE = 0.8


@lru_cache(maxsize=1)
def upi_re() -> re.Pattern[str]:
    """A UPI address: a local part, "@" and a payment service's handle, no domain after it."""
    handles = sorted(data_file("redacted.yaml")["upi_handles"], key=len, reverse=True)
    alternation = "|".join(re.escape(h) for h in handles)
    return re.compile(rf"(?i)(?<![\w.@+-])[a-z0-9][\w.\-]{{1,63}}@(?:{alternation})(?![\w@]|\.\w)")


#: A value made of mask characters and separators alone ("***", "XXXX-XXXX", "•••• ••••").
_MASK_ONLY = re.compile(rf"(?:{_HID}|[-\s./])*{_HID}(?:{_HID}|[-\s./])*")


@lru_cache(maxsize=1)
def _placeholders() -> frozenset[str]:
    return frozenset(
        " ".join(p.lower().split()) for p in data_file("redacted.yaml")["placeholders"]
    )


def placeholder_value(value: object) -> bool:
    """``value`` stands where a personal value was removed or never given: a listed placeholder
    ("[email protected]", "N/A"; ``redacted.yaml``) or mask characters alone ("***")."""
    if not isinstance(value, str):
        return False
    folded = " ".join(value.lower().split())
    return folded in _placeholders() or _MASK_ONLY.fullmatch(folded) is not None


def _digits(span: str) -> int:
    return sum(c.isdigit() for c in span)


def redacted_matches(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, type)`` of the partly redacted SSNs and cards and the UPI addresses."""
    out = [(m.start(), m.end(), "US_SSN") for m in _SSN.finditer(text)]
    for m in _CARD.finditer(text):
        compact = re.sub(r"[- ]", "", m.group())
        if 13 <= len(compact) <= _CARD_DISPLAY_MAX and _digits(compact) <= 10:
            out.append((m.start(), m.end(), "CREDIT_CARD"))
    out += [(m.start(), m.end(), "BANK_ACCOUNT") for m in upi_re().finditer(text)]
    return out


class RedactedIdRecognizer(LocalRecognizer):
    """Partly redacted SSNs and card numbers, and UPI payment addresses (module doc)."""

    ENTITIES = ("US_SSN", "CREDIT_CARD", "BANK_ACCOUNT")

    def __init__(self) -> None:
        super().__init__(supported_entities=list(self.ENTITIES), name=REDACTED_DETECTOR)

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Each match of a requested type (``redacted_matches``)."""
        wanted = set(entities) if entities else set(self.ENTITIES)
        return [
            RecognizerResult(et, s, e, UPI_SCORE if et == "BANK_ACCOUNT" else REDACTED_SCORE)
            for s, e, et in redacted_matches(text)
            if et in wanted
        ]
