"""Masking recall on labeled corpora (simulated logs + tau-bench with airline-users.json as truth).

Targets: zero leaks of emails, phones, card numbers, SSNs, IBANs, user ids, dates of birth;
>= 98% of person names and street addresses masked. Exit status 1 when a target is missed.
Also printed: the share of dates that are not dates of birth (flights, reservations) kept in clear.

    python -m benchmarks.masking_eval.demo_recall --sim 200 --tau 200 --workers 2
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import sys
import time

from agentic_pipeline.demo import generate_episodes  # the demo data generator
from agentic_pipeline.masking import Masker, mask_steps

from .corpora import external_root
from .evaluation import (
    HIGH_RECALL,
    ZERO_LEAK,
    LabeledCorpus,
    episodes_corpus,
    format_recall,
    measure_kept,
    measure_recall,
    other_dates,
    tau_bench_corpus,
)

DAY = dt.date(2026, 11, 28)
TAU = external_root() / "tau-bench"


def evaluate(name: str, corpus: LabeledCorpus, masker: Masker) -> bool:
    """Mask, print the figures, return whether the targets are met."""
    t = time.perf_counter()
    res = mask_steps(corpus.table, masker)
    secs = time.perf_counter() - t
    fig = measure_recall(corpus.table, res.masked, corpus.planted)
    print(
        f"\n== {name}: {corpus.n_episodes} episodes, {corpus.table.num_rows} rows, {secs:.1f}s, "
        f"scan leaks {res.stats['leaks']}"
    )
    print(format_recall(fig))
    kept = measure_kept(corpus.table, res.masked, other_dates(corpus.table, corpus.planted))
    if "OTHER_DATE" in kept:
        d = kept["OTHER_DATE"]
        print(f"other dates stay (not birth dates): {d['share']:.2%} of {int(d['raw'])}")
    ok = all(fig.get(et, {"leaked": 0})["leaked"] == 0 for et in ZERO_LEAK)
    ok &= all(fig[et]["recall"] >= 0.98 for et in HIGH_RECALL if et in fig)
    print("targets met" if ok else "TARGETS MISSED")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", type=int, default=100, help="simulated episodes")
    ap.add_argument("--tau", type=int, default=200, help="tau-bench episodes (0: none)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    ok = True
    with Masker(n_workers=args.workers) as masker:
        sim = episodes_corpus(generate_episodes(DAY, args.sim, args.seed), DAY)
        ok &= evaluate("simulated", sim, masker)
        if args.tau and (TAU / "gpt-4o-airline.json").exists():
            tau = tau_bench_corpus(
                TAU / "gpt-4o-airline.json", TAU / "airline-users.json", limit=args.tau
            )
            ok &= evaluate("tau-bench airline", tau, masker)
        elif args.tau:
            print(f"tau-bench data not found at {TAU}: skipped")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
