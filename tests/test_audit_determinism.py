"""Issue #11: ``pii_audit`` is reproducible: tied detections resolve by a total order."""

import itertools

import pytest

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.apply import Partition
from agentic_pipeline.masking.engine import MASK_ENTITIES
from agentic_pipeline.masking.episode import Episode

KEY = "audit-determinism-test-key"
TEXT = "reach me at 415-555-0134 please"
# the same span found with the same score by two detectors and as two entity types
TIED = [
    (12, 24, "PHONE_NUMBER", 0.9, "StrictPatternRecognizer"),
    (12, 24, "PHONE_NUMBER", 0.9, "PhoneContextRecognizer"),
    (12, 24, "US_BANK_NUMBER", 0.9, "UsBankRecognizer"),
]


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def _audit(masker: Masker, spans: list) -> tuple[str, list]:
    part = Partition(masker)
    part.analysis[TEXT] = list(spans)
    out = part.mask_text(TEXT, Episode(), 0, "content")
    return out, [(r.entity_type, r.detector, r.score, r.pseudonym) for r in part.records]


def test_tied_spans_give_the_same_audit_in_any_order(masker):
    results = {str(_audit(masker, order)) for order in itertools.permutations(TIED)}
    assert len(results) == 1
    out, records = _audit(masker, TIED)
    # the total order: score, then entity type, then detector name
    token = masker.token("415-555-0134", "PHONE_NUMBER")
    assert records == [("PHONE_NUMBER", "PhoneContextRecognizer", 0.9, token)]
    assert "415-555-0134" not in out


def test_recognizers_run_in_name_order(masker):
    """Presidio returns the recognizers from a set (object-address order) and, for two results
    with the same span, type and score, keeps the first one's name: the order must not depend
    on memory addresses."""
    registry = masker.pool.local.analyzer.registry
    for entities in (list(MASK_ENTITIES), ["PHONE_NUMBER", "EMAIL_ADDRESS"]):
        names = [(r.name, type(r).__name__) for r in registry.get_recognizers("en", entities)]
        assert names == sorted(names)
