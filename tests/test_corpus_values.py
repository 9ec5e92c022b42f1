"""Issue #21: no value or template sentence of the development corpora in a detector module or a
test file. The masking is developed on ``../shared/external`` (pii-dev, the tau files, the
presidio-evaluator templates when its wheel is found); a rule or a test that quotes their values
measures memory, not generalisation. Values and the search: ``benchmarks/masking_eval/values.py``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from benchmarks.masking_eval import corpora
from benchmarks.masking_eval.values import DATA_SUFFIXES, Finder, Needle, needles, search, words

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not corpora.available(),
    reason=f"development corpora absent ({corpora.external_root()}): nothing to compare with",
)


def _files(folder: Path) -> list[Path]:
    return [
        p
        for p in folder.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and (p.suffix == ".py" or (p.suffix in DATA_SUFFIXES and "model" not in p.name))
    ]


def _report(hits) -> str:
    by_file: dict[str, list[str]] = defaultdict(list)
    for h in hits:
        by_file[h.path].append(
            f"  line {h.line}: {h.needle.kind} of {h.needle.corpus}: {h.needle.text!r}"
        )
    return "\n".join(f"{f} ({len(v)})\n" + "\n".join(v) for f, v in sorted(by_file.items()))


def test_detector_modules_hold_no_corpus_value():
    hits = search(_files(REPO / "agentic_pipeline" / "masking"), REPO)
    assert not hits, f"{len(hits)} corpus values or sentences in detector modules:\n{_report(hits)}"


def test_test_files_hold_no_corpus_value():
    files = [p for p in _files(REPO / "tests") if p.name != Path(__file__).name]
    hits = search(files, REPO)
    assert not hits, f"{len(hits)} corpus values or sentences in tests:\n{_report(hits)}"


def test_the_search_finds_values_and_sentences_however_they_are_written():
    """The search itself, on needles written here (not corpus values)."""
    finder = Finder(
        [
            Needle(words("Quillon Varbeck"), "PERSON", "x"),
            Needle(words("88 Orrowmere Lane"), "STREET_ADDRESS", "x"),
            Needle(words("the parcel went to the wrong depot twice"), "SENTENCE", "x"),
        ]
    )
    assert [n.kind for n in finder.find("Write to QUILLON  varbeck today")] == ["PERSON"]
    assert [n.kind for n in finder.find("# 88 Orrowmere Lane, Springfield")] == ["STREET_ADDRESS"]
    text = "He said: The parcel went to the wrong depot twice, again."
    assert [n.kind for n in finder.find(text)] == ["SENTENCE"]
    assert finder.find("Quillon alone, and 88 Orrowmere") == []


def test_the_corpora_give_values_of_every_kind():
    """A search with nothing to look for would pass on anything."""
    found = needles()
    kinds = {n.kind for n in found}
    assert {"PERSON", "EMAIL_ADDRESS", "ADDRESS", "COMPANY", "SENTENCE"} <= kinds, kinds
    assert any(k.startswith("ID:") for k in kinds)
    assert len(found) > 5000
