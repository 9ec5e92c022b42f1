"""Evaluation of the daily policy decision against the simulator's known truth (issue 6).

For each seed, 14 days of agent logs are simulated into a temporary landing folder (both landing
formats), and each day goes through the library path of the pipeline: ``ingest_day`` ->
``replay_day`` -> ``score_episodes`` (default reward spec). ``select_policies`` then decides on the
last day over the whole window, once with the logged propensities and once with them stripped.
Masking (Presidio) is skipped: the replay stage's tests show that masked and raw step rows give
identical replayed facts, so it cannot change a reward or a decision, and it would dominate the
runtime.

The *true value* of each (policy, task type) is a large Monte Carlo sample through the same
simulate -> ingest -> replay -> score path, with its own seed (never an evaluation seed) and
uniform logging weights, cached in ``benchmarks/results/true_values.json`` keyed by the reward spec
version, the sample size and a fingerprint of the policy behaviour table. A policy is truly
eligible where its true risk rate (share of episodes with a financial write or a destructive act)
is within the risk budget.

Figures: selection accuracy (selected == truly best eligible) per task type and overall (target
>= 95%), risky-variant selections (target 0), coverage of the headline off-policy interval
``ope_ci_low .. ope_ci_high`` vs its nominal level (and every estimator's coverage and RMSE),
and the propensity-stripped run (every OPE estimate must be flagged unidentified). Exit status 1
when a target is missed.

    python benchmarks/selection_eval.py --seeds 20 --days 14 --episodes-per-day 400 --workers 2
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import multiprocessing as mp
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from agentic_pipeline.demo import POLICIES, write_landing
from agentic_pipeline.ingest import ingest_day
from agentic_pipeline.replay import replay_day
from agentic_pipeline.rewards import RewardSpec, load_reward_spec, score_episodes
from agentic_pipeline.selection import SelectionConfig, select_policies
from agentic_pipeline.selection.ope import ESTIMATORS

RESULTS_DIR = Path(__file__).resolve().parent / "results"
START = dt.date(2026, 3, 1)
#: Seed of the true-value sample; evaluation seeds are 0 .. seeds-1, far below it.
TRUTH_SEED = 900_001
TRUTH_EPISODES = 100_000
TRUTH_CHUNK = 5_000
RISKY_POLICY = "crm-risky-v1"
ACCURACY_TARGET = 0.95

T = TypeVar("T")
R = TypeVar("R")


# -- the pipeline path ---------------------------------------------------------------------------


def simulate_rewards(
    seed: int,
    days: int,
    episodes_per_day: int,
    spec: RewardSpec,
    start: dt.date = START,
    policy_weights: dict[str, float] | None = None,
) -> pd.DataFrame:
    """``episode_rewards`` of simulated days: write_landing -> ingest -> replay -> score."""
    frames = []
    with tempfile.TemporaryDirectory(prefix="selection-eval-") as tmp:
        write_landing(Path(tmp), start, days, episodes_per_day, seed, policy_weights=policy_weights)
        for d in range(days):
            ds = (start + dt.timedelta(days=d)).isoformat()
            ingested = ingest_day(Path(tmp) / "landing" / ds, ds)
            if ingested.stats.records_quarantined:
                raise RuntimeError(f"seed {seed} {ds}: {ingested.stats.quarantine_reasons}")
            frames.append(score_episodes(replay_day(ingested.steps, ds), spec))
    return pd.concat(frames, ignore_index=True)


def _pmap(fn: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with mp.get_context("fork").Pool(min(workers, len(items))) as pool:
        return pool.map(fn, items, chunksize=1)


# -- true values ---------------------------------------------------------------------------------


def policies_fingerprint() -> str:
    """Short hash of the scripted policies' behaviour table (changes invalidate the truth)."""
    text = repr(sorted((pid, repr(p)) for pid, p in POLICIES.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def truth_key(spec: RewardSpec, n_episodes: int) -> str:
    """Cache key of a true-value sample."""
    return f"{spec.version}|n={n_episodes}|policies={policies_fingerprint()}"


def _truth_chunk(job: tuple[int, int, str]) -> pd.DataFrame:
    day_index, n, spec_path = job
    spec = load_reward_spec(spec_path or None)
    uniform = dict.fromkeys(POLICIES, 1.0)
    start = START + dt.timedelta(days=day_index)
    out = simulate_rewards(TRUTH_SEED, 1, n, spec, start, policy_weights=uniform)
    return out[["task_type", "policy_id", "reward", "risky"]]


def compute_true_values(
    spec: RewardSpec,
    n_episodes: int = TRUTH_EPISODES,
    workers: int = 2,
    spec_path: str | None = None,
) -> dict[str, dict[str, dict[str, float]]]:
    """``{task: {policy: {value, se, risk_rate, n}}}`` by Monte Carlo (uniform logging)."""
    sizes = [TRUTH_CHUNK] * (n_episodes // TRUTH_CHUNK)
    if n_episodes % TRUTH_CHUNK:
        sizes.append(n_episodes % TRUTH_CHUNK)
    jobs = [(i, n, spec_path or "") for i, n in enumerate(sizes)]
    df = pd.concat(_pmap(_truth_chunk, jobs, workers), ignore_index=True)
    g = df.groupby(["task_type", "policy_id"])
    stats = g.agg(
        value=("reward", "mean"),
        sd=("reward", "std"),
        risk_rate=("risky", "mean"),
        n=("reward", "size"),
    )
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (task, pid), row in stats.iterrows():
        out.setdefault(str(task), {})[str(pid)] = {
            "value": float(row["value"]),
            "se": float(row["sd"] / np.sqrt(row["n"])),
            "risk_rate": float(row["risk_rate"]),
            "n": int(row["n"]),
        }
    return out


def load_true_values(
    spec: RewardSpec,
    n_episodes: int = TRUTH_EPISODES,
    workers: int = 2,
    cache: Path = RESULTS_DIR / "true_values.json",
    spec_path: str | None = None,
) -> dict[str, dict[str, dict[str, float]]]:
    """True values from the cache, computing and storing them when the key is missing."""
    key = truth_key(spec, n_episodes)
    stored: dict[str, Any] = json.loads(cache.read_text()) if cache.exists() else {}
    if key not in stored:
        t = time.perf_counter()
        stored[key] = {
            "seed": TRUTH_SEED,
            "n_episodes": n_episodes,
            "reward_version": spec.version,
            "policy_weights": "uniform",
            "values": compute_true_values(spec, n_episodes, workers, spec_path),
            "seconds": round(time.perf_counter() - t, 1),
        }
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")
        tmp.replace(cache)
    return stored[key]["values"]


def best_eligible(
    truth: dict[str, dict[str, dict[str, float]]], risk_budget: float
) -> dict[str, dict[str, Any]]:
    """Per task type: the truly best eligible policy, the runner-up and the margin between them."""
    out: dict[str, dict[str, Any]] = {}
    for task, per_policy in sorted(truth.items()):
        elig = sorted(
            (p for p, v in per_policy.items() if v["risk_rate"] <= risk_budget),
            key=lambda p: per_policy[p]["value"],
            reverse=True,
        )
        out[task] = {
            "best": elig[0] if elig else None,
            "runner_up": elig[1] if len(elig) > 1 else None,
            "margin": (
                per_policy[elig[0]]["value"] - per_policy[elig[1]]["value"]
                if len(elig) > 1
                else None
            ),
            "eligible": elig,
        }
    return out


# -- one seed ------------------------------------------------------------------------------------


def evaluate_seed(job: tuple[int, int, int, str, dict[str, Any]]) -> dict[str, Any]:
    """Simulate one seed, decide on its last day with and without propensities."""
    seed, days, n, spec_path, config_dict = job
    spec = load_reward_spec(spec_path or None)
    config = SelectionConfig.from_dict(config_dict)
    t = time.perf_counter()
    rewards = simulate_rewards(seed, days, n, spec)
    day = (START + dt.timedelta(days=days - 1)).isoformat()
    runs: dict[str, Any] = {}
    for name, frame in (("logged", rewards), ("stripped", rewards.assign(propensity=np.nan))):
        res = select_policies(frame, day, config, current_defaults=None, seed=seed)
        cols = [
            "task_type", "policy_id", "n_episodes", "mean_reward", "ci_low", "ci_high",
            "prob_best", "ope_estimate", "ope_ci_low", "ope_ci_high", "ope_identified",
            "risk_rate", "risk_upper", "eligible", "selected", "ope_estimator", "ope_ess",
            "ope_max_weight", "ope_warning",
            *(f"ope_{e}{s}" for e in ESTIMATORS for s in ("", "_low", "_high")),
        ]  # fmt: skip
        rows = res.table[cols].astype(object).where(res.table[cols].notna(), None)
        runs[name] = {
            "selected": {t: e["selected_policy"] for t, e in res.registry.items()},
            "reasons": {t: e["reason"] for t, e in res.registry.items()},
            "rows": rows.to_dict("records"),
        }
    return {"seed": seed, "episodes": len(rewards), "seconds": time.perf_counter() - t, **runs}


# -- figures -------------------------------------------------------------------------------------


def _share(flags: Iterable[bool]) -> float | None:
    flags = list(flags)
    return sum(flags) / len(flags) if flags else None


def summarise(
    results: list[dict[str, Any]],
    truth: dict[str, dict[str, dict[str, float]]],
    config: SelectionConfig,
) -> dict[str, Any]:
    """Accuracy, risky selections, OPE coverage and the stripped run, as a JSON-able dict."""
    best = best_eligible(truth, config.risk_budget)
    tasks = sorted(truth)
    per_task: dict[str, Any] = {}
    cases, cover, risky_sel = [], [], 0
    stripped_cases, stripped_unidentified, stripped_rows = [], [], 0
    stripped_complete = True
    for task in tasks:
        hits = [r["logged"]["selected"].get(task) == best[task]["best"] for r in results]
        chosen: dict[str, int] = {}
        for r in results:
            key = str(r["logged"]["selected"].get(task))
            chosen[key] = chosen.get(key, 0) + 1
        task_cover = [
            row["ope_ci_low"] is not None
            and row["ope_ci_low"] <= truth[task][row["policy_id"]]["value"] <= row["ope_ci_high"]
            for r in results
            for row in r["logged"]["rows"]
            if row["task_type"] == task
        ]
        risky = sum(r["logged"]["selected"].get(task) == RISKY_POLICY for r in results)
        per_task[task] = {
            "truly_best_eligible": best[task]["best"],
            "runner_up": best[task]["runner_up"],
            "true_margin": best[task]["margin"],
            "accuracy": _share(hits),
            "selected_counts": dict(sorted(chosen.items())),
            "risky_selected": risky,
            "ope_coverage": _share(task_cover),
            "stripped_accuracy": _share(
                r["stripped"]["selected"].get(task) == best[task]["best"] for r in results
            ),
        }
        cases += hits
        cover += task_cover
        risky_sel += risky
    for r in results:
        stripped_cases += [r["stripped"]["selected"].get(t) == best[t]["best"] for t in tasks]
        stripped_complete &= all(r["stripped"]["selected"].get(t) for t in tasks)
        stripped_unidentified += [row["ope_identified"] is False for row in r["stripped"]["rows"]]
        stripped_rows += len(r["stripped"]["rows"])
    by_policy: dict[str, Any] = {}
    for pid in sorted({p for t in tasks for p in truth[t]}):
        errs = [
            (row["ope_estimate"] - truth[row["task_type"]][pid]["value"], row)
            for r in results
            for row in r["logged"]["rows"]
            if row["policy_id"] == pid and row["ope_estimate"] is not None
        ]
        by_policy[pid] = {
            "ope_coverage": _share(
                row["ope_ci_low"] <= row["ope_estimate"] - e <= row["ope_ci_high"]
                for e, row in errs
            ),
            "ope_mean_error": float(np.mean([e for e, _ in errs])) if errs else None,
        }
    by_estimator: dict[str, Any] = {}
    for name in ESTIMATORS:
        pairs = [
            (row[f"ope_{name}"] - truth[row["task_type"]][row["policy_id"]]["value"], row)
            for r in results
            for row in r["logged"]["rows"]
            if row.get(f"ope_{name}") is not None
        ]
        by_estimator[name] = {
            "coverage": _share(
                row[f"ope_{name}_low"] <= row[f"ope_{name}"] - e <= row[f"ope_{name}_high"]
                for e, row in pairs
            ),
            "rmse": float(np.sqrt(np.mean([e * e for e, _ in pairs]))) if pairs else None,
            "mean_error": float(np.mean([e for e, _ in pairs])) if pairs else None,
            "cases": len(pairs),
        }
    stripped_risky = sum(
        r["stripped"]["selected"].get(t) == RISKY_POLICY for r in results for t in tasks
    )
    return {
        "seeds": len(results),
        "episodes": sum(r["episodes"] for r in results),
        "truth": {
            t: {p: {k: round(v, 4) for k, v in s.items()} for p, s in truth[t].items()}
            for t in tasks
        },
        "per_task": per_task,
        "overall": {
            "accuracy": _share(cases),
            "accuracy_target": ACCURACY_TARGET,
            "risky_selected": risky_sel,
            "ope_coverage": _share(cover),
            "ope_nominal": config.confidence,
            "ope_cases": len(cover),
            "ope_by_policy": by_policy,
            "ope_headline": results[0]["logged"]["rows"][0].get("ope_estimator")
            if results
            else None,
            "ope_by_estimator": by_estimator,
        },
        "stripped": {
            "selection_ran": stripped_complete,
            "accuracy": _share(stripped_cases),
            "risky_selected": stripped_risky,
            "rows": stripped_rows,
            "all_unidentified": bool(stripped_unidentified) and all(stripped_unidentified),
        },
    }


def targets_met(summary: dict[str, Any]) -> bool:
    """Whether the evaluation meets the issue's targets."""
    o, s = summary["overall"], summary["stripped"]
    return bool(
        o["accuracy"] is not None
        and o["accuracy"] >= ACCURACY_TARGET
        and o["risky_selected"] == 0
        and s["selection_ran"]
        and s["all_unidentified"]
        and s["risky_selected"] == 0
    )


def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


def format_summary(summary: dict[str, Any]) -> str:
    """Plain-text table of the figures."""
    lines = [
        f"{'task type':16} {'truly best eligible':20} {'margin':>7} {'accuracy':>9} "
        f"{'risky sel':>9} {'OPE cover':>9}  selected"
    ]
    for task, t in summary["per_task"].items():
        margin = "n/a" if t["true_margin"] is None else f"{t['true_margin']:.3f}"
        lines.append(
            f"{task:16} {t['truly_best_eligible'] or '-':20} {margin:>7} {_pct(t['accuracy']):>9} "
            f"{t['risky_selected']:>9} {_pct(t['ope_coverage']):>9}  {t['selected_counts']}"
        )
    o, s = summary["overall"], summary["stripped"]
    lines += [
        f"{'overall':16} {'':20} {'':>7} {_pct(o['accuracy']):>9} {o['risky_selected']:>9} "
        f"{_pct(o['ope_coverage']):>9}  (OPE nominal {o['ope_nominal']:.0%}, "
        f"{o['ope_cases']} intervals)",
        f"propensities stripped: selection ran for every task type: {s['selection_ran']}, "
        f"accuracy {_pct(s['accuracy']).strip()}, risky selected {s['risky_selected']}, "
        f"all {s['rows']} OPE rows unidentified: {s['all_unidentified']}",
        f"off-policy estimators (headline {o.get('ope_headline')}), nominal "
        f"{o['ope_nominal']:.0%}: "
        + ", ".join(
            f"{name} coverage {_pct(e['coverage']).strip()} rmse {e['rmse']:.4f}"
            for name, e in o.get("ope_by_estimator", {}).items()
            if e["rmse"] is not None
        ),
    ]
    return "\n".join(lines)


def run(
    seeds: int,
    days: int,
    episodes_per_day: int,
    workers: int,
    truth_episodes: int = TRUTH_EPISODES,
    truth_cache: Path = RESULTS_DIR / "true_values.json",
    config: SelectionConfig | None = None,
    spec_path: str | None = None,
) -> dict[str, Any]:
    """The whole evaluation; returns the JSON summary (also timing and settings)."""
    spec = load_reward_spec(spec_path)
    config = config or SelectionConfig(window_days=days)
    t0 = time.perf_counter()
    truth = load_true_values(spec, truth_episodes, workers, truth_cache, spec_path)
    t1 = time.perf_counter()
    config_dict = {k: list(v) if isinstance(v, tuple) else v for k, v in config.__dict__.items()}
    jobs = [(s, days, episodes_per_day, spec_path or "", config_dict) for s in range(seeds)]
    results = _pmap(evaluate_seed, jobs, workers)
    summary = summarise(results, truth, config)
    summary["settings"] = {
        "seeds": seeds,
        "days": days,
        "episodes_per_day": episodes_per_day,
        "workers": workers,
        "reward_version": spec.version,
        "truth_key": truth_key(spec, truth_episodes),
        "truth_seed": TRUTH_SEED,
        "selection_config": config_dict,
    }
    summary["seconds"] = {
        "truth": round(t1 - t0, 1),
        "evaluation": round(time.perf_counter() - t1, 1),
    }
    summary["misses"] = [
        {"seed": r["seed"], "task_type": t, "selected": r["logged"]["selected"].get(t),
         "reason": r["logged"]["reasons"].get(t)}
        for r in results
        for t in summary["per_task"]
        if r["logged"]["selected"].get(t) != summary["per_task"][t]["truly_best_eligible"]
    ]  # fmt: skip
    summary["targets_met"] = targets_met(summary)
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--days", type=int, default=14)
    ap.add_argument("--episodes-per-day", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--truth-episodes", type=int, default=TRUTH_EPISODES)
    ap.add_argument("--reward-spec", default=None, help="reward spec YAML (default: packaged)")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR / "selection_eval.json")
    ap.add_argument("--truth-cache", type=Path, default=RESULTS_DIR / "true_values.json")
    args = ap.parse_args(argv)
    summary = run(
        args.seeds,
        args.days,
        args.episodes_per_day,
        args.workers,
        args.truth_episodes,
        args.truth_cache,
        spec_path=args.reward_spec,
    )
    print(
        f"{args.seeds} seeds x {args.days} days x {args.episodes_per_day} episodes/day "
        f"({summary['episodes']} episodes), reward {summary['settings']['reward_version']}, "
        f"truth {args.truth_episodes} episodes ({summary['seconds']['truth']}s), "
        f"evaluation {summary['seconds']['evaluation']}s on {args.workers} workers"
    )
    print(format_summary(summary))
    print("targets met" if summary["targets_met"] else "TARGETS MISSED")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2, default=str) + "\n")
    return 0 if summary["targets_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
