"""Bounded masking time for huge dense records (issue #11, point 5, per-string NER limit).

A 16 KiB string dense with personal data took 60 s and a 1 MiB one hours: Presidio's context
enhancer, the span-overlap resolution and the known-entity bookkeeping were quadratic in the
number of detections of one string, and NER read every character. Now those are linear and NER
reads a bounded start of each string (the rest goes to the pattern recognizers, with a guard
record in the audit).
"""

import random
import time

import pyarrow as pa
import pytest
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking import Masker, mask_steps
from agentic_pipeline.masking.apply import uncovered
from agentic_pipeline.masking.engine import (
    LANGUAGE,
    AnalyzerConfig,
    LinearContextEnhancer,
    TextAnalyzer,
)

KEY = "test-key-limits"
FIRST = ["Ann", "Bob", "Carla", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas"]
LAST = ["Lee", "Okafor", "Schmidt", "Nakamura", "Rossi", "Haddad", "Novak", "Silva", "Berg"]


def dense_text(n_chars: int, seed: int = 1) -> str:
    """Records packed with names, emails and phone numbers, ``n_chars`` long."""
    rng = random.Random(seed)
    parts, size = [], 0
    while size < n_chars:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        number = f"+1 212 555 {rng.randrange(1000, 9999)}"
        part = (
            f"Customer {first} {last} ({first.lower()}.{last.lower()}{rng.randrange(99)}"
            f"@example.com, phone {number}) asked about order {rng.randrange(10**6)}. "
        )
        parts.append(part)
        size += len(part)
    return "".join(parts)[:n_chars]


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer()


def _old_uncovered(text, start, end, taken):
    """The previous implementation (every taken interval checked for every span)."""
    pieces = [(start, end)]
    for s, e in taken:
        nxt = []
        for a, b in pieces:
            if e <= a or b <= s:
                nxt.append((a, b))
                continue
            if a < s:
                nxt.append((a, s))
            if e < b:
                nxt.append((e, b))
        pieces = nxt
    out = []
    for a, b in pieces:
        while a < b and not text[a].isalnum():
            a += 1
        while b > a and not text[b - 1].isalnum():
            b -= 1
        if b - a >= 2:
            out.append((a, b))
    return out


def test_uncovered_matches_the_previous_overlap_resolution():
    rng = random.Random(3)
    text = "".join(rng.choice("ab c-d1") for _ in range(400))
    for _ in range(300):
        taken: list[tuple[int, int]] = []
        for _ in range(rng.randrange(0, 30)):  # disjoint intervals, as mask_text keeps them
            a = rng.randrange(0, 398)
            b = a + rng.randrange(1, 12)
            if all(b <= s or e <= a for s, e in taken):
                taken.append((a, b))
        taken.sort()
        a = rng.randrange(0, 390)
        b = min(400, a + rng.randrange(1, 60))
        assert uncovered(text, a, b, taken) == _old_uncovered(text, a, b, taken)


def test_uncovered_keeps_a_words_last_vowel_sign():
    """Indic words end with a combining vowel sign ("रानी", "குமாரி"): a span keeps it, where
    ``isalnum`` would leave it in clear beside the token."""
    for name in ("सीता रानी", "ராஜேஷ் குமாரி", "వెంకట రావు"):
        text = f"Patient: {name}."
        a = text.index(name)
        assert uncovered(text, a, a + len(name), []) == [(a, a + len(name))]


def test_linear_context_enhancer_gives_presidios_scores(analyzer):
    """Same context words and scores as Presidio's enhancer, with real keywords."""
    texts = [
        "Please call my phone 212-555-0187 or my cell 415 555 0199 tomorrow.",
        "Routing number 021000021 and account number 12345678 for the transfer.",
        "My passport number is 912803456 and my driver license D1234567.",
        dense_text(3000),
    ]
    engine = analyzer.nlp_engine
    recognizers = analyzer.analyzer.registry.get_recognizers(LANGUAGE, all_fields=True)
    for text in texts:
        doc = analyzer.nlp(text)
        art = engine._doc_to_nlp_artifact(doc, LANGUAGE)
        art.keywords = NlpArtifacts.set_keywords(engine, art.lemmas, LANGUAGE)
        raw = []
        for rec in recognizers:
            raw.extend(rec.analyze(text, rec.supported_entities, art) or [])
        assert raw
        expected = LemmaContextAwareEnhancer().enhance_using_context(text, raw, art, recognizers)
        got = LinearContextEnhancer().enhance_using_context(text, raw, art, recognizers)
        assert [(r.start, r.end, r.entity_type, r.score) for r in got] == [
            (r.start, r.end, r.entity_type, r.score) for r in expected
        ]


def test_ner_reads_a_bounded_start_and_patterns_read_everything():
    filler = "The flight was delayed and the agent rebooked the passenger. " * 60
    # one first name, decided by the name model, which reads spaCy's labels
    text = filler + "Please write to Margaret at margaret.thornton@example.com today."
    limited = TextAnalyzer(AnalyzerConfig(max_ner_chars=2000))
    spans = limited.analyze([text], use_ner=True)[0]
    found = {(text[s:e], et, det) for s, e, et, _, det in spans}
    assert ("margaret.thornton@example.com", "EMAIL_ADDRESS") in {f[:2] for f in found}
    # NER did not read that far, and the name model reads NER labels
    assert not any(et == "PERSON" for _, et, _ in found)
    full = TextAnalyzer(AnalyzerConfig()).analyze([text], use_ner=True)[0]
    assert any(et == "PERSON" and det == "NameModelRecognizer" for _, _, et, _, det in full)


def test_a_string_longer_than_the_ner_limit_gets_a_guard_record():
    text = dense_text(6000)
    table = pa.table({"episode_id": ["e1", "e1"], "step": [0, 1], "content": [text, "Hi Ann"]})
    with Masker(key=KEY, n_workers=1, max_ner_chars=2000) as masker:
        result = mask_steps(table, masker)
    audit = result.audit.to_pylist()
    guards = [r for r in audit if r["entity_type"] == "NER_LIMITED"]
    assert [(g["row"], g["field"], g["detector"]) for g in guards] == [(0, "content", "guard")]
    assert "@example.com" not in result.masked.column("content")[0].as_py()


@pytest.mark.slow
def test_masking_time_of_a_dense_record_grows_linearly(analyzer):
    """64 KiB of dense personal data in one string: seconds (it took about 16 minutes; the
    time grew with the square of the length)."""
    text = dense_text(64 * 1024)
    table = pa.table({"episode_id": ["e1"], "step": [0], "content": [text]})
    with Masker(key=KEY, n_workers=1) as masker:
        mask_steps(pa.table({"episode_id": ["e0"], "step": [0], "content": ["Hi Ann Lee"]}), masker)
        t0 = time.perf_counter()
        result = mask_steps(table, masker, scan=False)
        elapsed = time.perf_counter() - t0
    assert result.audit.num_rows > 1000
    assert elapsed < 60, f"{elapsed:.0f} s for 64 KiB"
