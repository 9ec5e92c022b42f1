"""Presidio pattern recognizers whose every pattern needs a digit skip texts without one
(``detectors/presidio_set.skip_digit_free_texts``): the analysis of a pattern and the shortcut give
the same results as Presidio's own ``analyze``."""

from __future__ import annotations

import random
import re
import string

import pytest
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    InPanRecognizer,
    IpRecognizer,
    ItFiscalCodeRecognizer,
    UsLicenseRecognizer,
    UsSsnRecognizer,
)

from agentic_pipeline.masking.detectors.presidio_set import needs_digit, skip_digit_free_texts

FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\b\d{3}-\d{2}\b", True),
        (r"[A-Z]{2}[0-9]{4,6}", True),
        (r"(?=.*?[0-9]{2})[a-z]{6}", True),  # a lookahead reads the text too
        (r"(?<=ref )[0-9a-f]{8}\d", True),
        (r"(?:q\d|\dq)z", True),  # every branch takes one
        (r"(?:k7|x[0-9])+", True),
        (r"\d*[A-Z]+", False),  # zero digits allowed
        (r"\d?[A-Z]", False),
        (r"[A-Z]{3}|\d{4}", False),  # a branch without
        (r"[^0-9]{4}", False),
        (r"[0-9a]{3}", False),
        (r"(?!\d)[A-Z]+", False),  # a negative lookahead needs nothing
        (r"colou?r", False),
        (r"[a-z]{e<=1}7", False),  # the regex module's fuzzy syntax: not analysed
        (r"\p{Nd}+", False),  # not re's syntax: not analysed
        (r"(unclosed\d", False),
    ],
)
def test_needs_digit(pattern, expected):
    assert needs_digit(pattern, FLAGS) is expected


def test_unknown_flags_are_not_analysed():
    assert needs_digit(r"\d{4}", FLAGS) is True
    assert needs_digit(r"\d{4}", FLAGS | 0x100000) is False


def _texts() -> list[str]:
    rng = random.Random(20261201)
    letters = string.ascii_letters + " -_/:.,;#@()+*'\"\n\t=?!%&$"
    texts = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 120))) for _ in range(400)]
    texts += [
        "Plain words only, ABCDE FGHIJ and KLMNO-PQRST.",
        "Permit BQZPK4821M was filed with ssn 372-41-8856 on card 4529 1378 0641 3377.",
        "licence W4829301 and host 10.20.30.40",
        "numbers in another script: ٤٨٢٩٣٠١ and full-width ４８２９３０１",
        "",
    ]
    return texts


@pytest.mark.parametrize(
    "make", [InPanRecognizer, UsSsnRecognizer, UsLicenseRecognizer, CreditCardRecognizer]
)
def test_shortcut_gives_presidios_results(make):
    plain, fast = make(), make()
    assert skip_digit_free_texts(fast) is True
    found = 0
    for text in _texts():
        want = [(r.entity_type, r.start, r.end, r.score) for r in plain.analyze(text, [])]
        got = [(r.entity_type, r.start, r.end, r.score) for r in fast.analyze(text, [])]
        assert got == want, text
        found += len(got)
    assert found  # the texts with digits are still searched


@pytest.mark.parametrize("make", [IpRecognizer, ItFiscalCodeRecognizer])
def test_recognizers_that_match_without_digits_keep_their_analyze(make):
    rec = make()
    assert skip_digit_free_texts(rec) is False
    assert rec.analyze.__func__ is type(rec).analyze
