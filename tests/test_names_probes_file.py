"""The person-name probes (``tests/data/names_probes.json``, read by
``benchmarks/names_vs_presidio.py``): well-formed, and written fresh (no value of the development
or held-out corpora: the search of ``benchmarks/masking_eval/values.py``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.masking_eval import corpora
from benchmarks.masking_eval.values import search

REPO = Path(__file__).resolve().parents[1]
PROBES = REPO / "tests" / "data" / "names_probes.json"
KINDS = {"PERSON", "OTHER:KEEP"}


def _records() -> list[dict]:
    return json.loads(PROBES.read_text(encoding="utf-8"))


def test_every_label_is_an_exact_substring_of_its_text():
    for rec in _records():
        assert set(rec) == {"id", "text", "labels"}, rec.get("id")
        assert rec["labels"], f"{rec['id']}: no label"
        for kind, value in rec["labels"]:
            assert kind in KINDS, f"{rec['id']}: label type {kind!r}"
            assert value.strip() and value in rec["text"], f"{rec['id']}: {value!r} not in text"


def test_ids_are_unique():
    dup = [i for i, n in Counter(r["id"] for r in _records()).items() if n > 1]
    assert not dup, dup


def test_enough_names_and_look_alikes():
    kinds = Counter(kind for rec in _records() for kind, _ in rec["labels"])
    assert kinds["PERSON"] >= 100, kinds
    assert kinds["OTHER:KEEP"] >= 50, kinds


def test_the_benchmark_reads_every_label():
    from benchmarks.names_vs_presidio import load_probes

    docs = load_probes(PROBES)
    assert len(docs) == len(_records())
    labelled = sum(len(rec["labels"]) for rec in _records())
    assert sum(len(d.spans) for d in docs) >= labelled  # a repeated value labels each occurrence


@pytest.mark.skipif(
    not corpora.available(),
    reason=f"development corpora absent ({corpora.external_root()}): nothing to compare with",
)
def test_the_probes_hold_no_corpus_value():
    hits = search([PROBES], REPO)
    found = [f"line {h.line}: {h.needle.kind} of {h.needle.corpus}" for h in hits]
    assert not hits, f"{len(hits)} corpus values in the probes (values not printed):\n" + "\n".join(
        found
    )
