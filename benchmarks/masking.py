"""Masking throughput and recall: our ``mask_steps`` vs plain Presidio on every string field.

Baseline = ``AnalyzerEngine.analyze`` + ``AnonymizerEngine.anonymize`` on every non-empty string
cell of the masked columns, row by row (same offline spaCy model, full pipeline, default
recognizers).
Both run in this process on the same corpus: simulated CRM episodes plus tau-bench airline episodes.

    python benchmarks/masking.py --sim 40 --tau 20 --workers 2
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import sys
import time
from pathlib import Path

import pyarrow as pa
from presidio_anonymizer import AnonymizerEngine

from agentic_pipeline.demo import generate_episodes
from agentic_pipeline.masking import MASK_COLUMNS, Masker, mask_steps
from agentic_pipeline.masking.engine import build_baseline_analyzer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: benchmarks.*
from benchmarks.masking_eval.evaluation import (  # noqa: E402
    episodes_corpus,
    format_recall,
    measure_recall,
    tau_bench_corpus,
)

TAU = Path(__file__).resolve().parents[1].parent / "shared" / "external" / "tau-bench"


def baseline_mask(table: pa.Table) -> pa.Table:
    """Plain Presidio over every string cell (the thing we compare against)."""
    analyzer = build_baseline_analyzer()
    anonymizer = AnonymizerEngine()
    for i, col in enumerate(table.column_names):
        if col not in MASK_COLUMNS:
            continue
        out = []
        for v in table.column(col).to_pylist():
            if not v:
                out.append(v)
                continue
            res = analyzer.analyze(v, language="en")
            out.append(anonymizer.anonymize(text=v, analyzer_results=res).text)
        table = table.set_column(i, table.schema.field(i), pa.array(out, pa.string()))
    return table


def n_strings(table: pa.Table) -> int:
    """Non-empty string cells in the masked columns."""
    return sum(
        sum(1 for v in table.column(c).to_pylist() if v)
        for c in MASK_COLUMNS
        if c in table.column_names
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", type=int, default=40, help="simulated episodes")
    ap.add_argument("--tau", type=int, default=20, help="tau-bench episodes (0: none)")
    ap.add_argument("--workers", type=int, default=2, help="NER worker processes (ours)")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)

    day = dt.date(2026, 11, 28)
    parts = [episodes_corpus(generate_episodes(day, args.sim, args.seed), day)]
    if args.tau and (TAU / "gpt-4o-airline.json").exists():
        parts.append(
            tau_bench_corpus(
                TAU / "gpt-4o-airline.json", TAU / "airline-users.json", limit=args.tau
            )
        )
    table = pa.concat_tables([p.table for p in parts])
    planted = {k: v for p in parts for k, v in p.planted.items()}
    n_eps, n_str = sum(p.n_episodes for p in parts), n_strings(table)
    print(f"corpus: {n_eps} episodes, {table.num_rows} rows, {n_str} string cells")

    t = time.perf_counter()
    with Masker(n_workers=args.workers) as masker:
        ours = mask_steps(table, masker)
    t_ours = time.perf_counter() - t
    print(f"ours ({args.workers} workers, incl. startup): {t_ours:.1f}s")
    print(f"  phases: {ours.stats['seconds']}")

    t = time.perf_counter()
    base = baseline_mask(table)
    t_base = time.perf_counter() - t
    print(f"baseline: {t_base:.1f}s")

    rec_ours = measure_recall(table, ours.masked, planted)
    rec_base = measure_recall(table, base, planted)
    print("\nthroughput          strings/s   episodes/s")
    print(f"ours            {n_str / t_ours:12.1f} {n_eps / t_ours:12.2f}")
    print(f"baseline        {n_str / t_base:12.1f} {n_eps / t_base:12.2f}")
    print(f"ratio (ours/baseline): {t_base / t_ours:.1f}x")
    print("\nrecall, ours\n" + format_recall(rec_ours))
    print("\nrecall, baseline\n" + format_recall(rec_base))


if __name__ == "__main__":
    main()
