"""Off-policy estimates on real logged bandit data: the Open Bandit Dataset sample (issue 26).

The sample (ZOZOTOWN fashion recommendations, CC BY 4.0, Saito et al. 2021) ships inside the
``obp`` wheel under ``obp/dataset/obd/{random,bts}/{all,men,women}/``: for each of three
campaigns, 10,000 impressions logged by a uniform-random policy and 10,000 by Bernoulli Thompson
sampling (bts), each row with the shown item, its position (1-3), the click and the logging
propensity. The wheel is read as a zip file; ``obp`` is never installed or imported (its pins
are old). Mapping: item = policy variant, position = task type, click = reward,
``propensity_score`` = propensity, the four user features = the context.

Two directions per campaign, each over 12 cells (campaign x position 1, 2, 3 and all positions):

- **uniform from bts**: the uniform-random policy's click rate (probability 1/K for each of the
  campaign's K items) estimated from the Thompson log; truth: the random log's mean click;
- **bts from uniform**: the Thompson policy's click rate estimated from the random log; truth:
  the Thompson log's mean click. The log only has the propensity of the item shown, so the
  target's probability of every item per context is the Thompson policy's observed share of
  that item at that position in its own log (``--bts-probs week``: over the week, the
  time-averaged policy whose value the log's mean measures; ``day``: per logged day, following
  the policy's daily updates). The mean ``propensity_score`` of the rows that showed an item is
  not used: it over-counts items the policy favoured on the days it showed them.

Every estimator of ``agentic_pipeline.selection.ope`` (IPS, SNIPS, DM, DR, SNDR with the pooled,
clipped reward model and the bootstrap/Wilson intervals) stands beside textbook IPS and SNIPS
(the same weights with normal-approximation intervals). Figures per direction and estimator:
estimates outside [0, 1], median relative error against the truth, and cells whose truth lies in
the 95% interval. Exit status 1 when the headline estimator misses one of the issue's targets
on the issue's 12 cells (uniform from bts); the reverse direction and both together are
reported beside them.

    python benchmarks/obd_eval.py --wheel /work/shared/obd/obp-0.4.1-py3-none-any.whl
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from agentic_pipeline.selection.linear import ContextFeaturizer
from agentic_pipeline.selection.ope import ESTIMATORS, HEADLINE, LoggedData, OPEConfig

RESULTS_DIR = Path(__file__).resolve().parent / "results"
DEFAULT_WHEEL = Path("/work/shared/obd/obp-0.4.1-py3-none-any.whl")
CAMPAIGNS = ("all", "men", "women")
USER_FEATURES = tuple(f"user_feature_{i}" for i in range(4))
ALL_POSITIONS = "all positions"
TEXTBOOK = ("textbook_ips", "textbook_snips")
#: the issue's 12 cells first (uniform policy from the Thompson log), then the reverse direction
DIRECTIONS = ("uniform from bts", "bts from uniform")
BOTH = "both directions"
CONFIDENCE = 0.95
MIN_COVERED = 11  # of 12 cells per direction


def read_log(wheel: Path, policy: str, campaign: str) -> pd.DataFrame:
    """One logged campaign of the sample, mapped onto ``episode_rewards`` columns."""
    with zipfile.ZipFile(wheel) as z:
        raw = pd.read_csv(io.BytesIO(z.read(f"obp/dataset/obd/{policy}/{campaign}/{campaign}.csv")))
    context = raw[list(USER_FEATURES)].astype(str).apply(lambda r: json.dumps(r.to_dict()), axis=1)
    return pd.DataFrame(
        {
            "day": pd.to_datetime(raw["timestamp"]).dt.date.astype(str),
            "policy_id": "item-" + raw["item_id"].astype(str),
            "task_type": "position-" + raw["position"].astype(str),
            "reward": raw["click"].astype(float),
            "propensity": raw["propensity_score"].astype(float),
            "context": context,
        }
    )


def n_items(wheel: Path, campaign: str) -> int:
    """The campaign's number of items (rows of its ``item_context.csv``)."""
    with zipfile.ZipFile(wheel) as z:
        path = f"obp/dataset/obd/random/{campaign}/item_context.csv"
        return len(pd.read_csv(io.BytesIO(z.read(path))))


def bts_shares(bts: pd.DataFrame, actions: list[str], keys: list[str]) -> pd.DataFrame:
    """The Thompson policy's share of each item per ``keys`` group (columns: ``actions``)."""
    counts = bts.groupby([*keys, "policy_id"]).size().unstack(fill_value=0)
    counts = counts.reindex(columns=actions, fill_value=0)
    return counts.div(counts.sum(axis=1), axis=0)


def textbook(rewards: np.ndarray, weights: np.ndarray, confidence: float) -> dict[str, float]:
    """Textbook IPS and SNIPS with normal-approximation (delta-method) intervals."""
    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    n = len(rewards)
    ips = float(np.mean(weights * rewards))
    se_ips = float(np.std(weights * rewards, ddof=1) / np.sqrt(n))
    snips = float(np.sum(weights * rewards) / np.sum(weights))
    se_snips = float(np.std(weights * (rewards - snips), ddof=1) / np.sqrt(n) / np.mean(weights))
    return {
        "textbook_ips": ips,
        "textbook_ips_low": ips - z * se_ips,
        "textbook_ips_high": ips + z * se_ips,
        "textbook_snips": snips,
        "textbook_snips_low": snips - z * se_snips,
        "textbook_snips_high": snips + z * se_snips,
    }


def evaluate_direction(
    log: pd.DataFrame,
    truth_log: pd.DataFrame,
    probs: np.ndarray,
    actions: list[str],
    config: OPEConfig,
    seed: int,
) -> list[dict[str, Any]]:
    """Every estimator per cell (position 1-3 and all positions) against the truth log's mean."""
    rng = np.random.default_rng(seed)
    featurizer = ContextFeaturizer(categorical=USER_FEATURES, cyclic={}, numeric=())
    data = LoggedData.prepare(log, config, featurizer, rng, actions)
    cells = {t: idx for t, idx in log.groupby("task_type", sort=True).indices.items()}
    cells[ALL_POSITIONS] = np.arange(len(log))
    rows = []
    for cell, idx in cells.items():
        est = data.evaluate(probs[idx], idx, config, rng)
        weights = probs[idx, data.action_index[idx]] / data.propensity[idx]
        est.update(textbook(data.rewards[idx], weights, config.confidence))
        truth_rows = (
            truth_log if cell == ALL_POSITIONS else truth_log[truth_log["task_type"] == cell]
        )
        rows.append(
            {
                "cell": cell,
                "n": len(idx),
                "clicks": int(data.rewards[idx].sum()),
                "truth": float(truth_rows["reward"].mean()),
                "truth_n": len(truth_rows),
                **est,
            }
        )
    return rows


def summarise(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Per direction (and both together) and estimator: out-of-range estimates, median relative
    error, coverage."""
    out: dict[str, Any] = {}
    groups = {d: [c for c in cells if c["direction"] == d] for d in DIRECTIONS}
    groups[BOTH] = cells
    for direction, sub in groups.items():
        per: dict[str, Any] = {}
        for name in (*ESTIMATORS, *TEXTBOOK):
            est = np.array([c[name] for c in sub], float)
            truth = np.array([c["truth"] for c in sub], float)
            low = np.array([c[f"{name}_low"] for c in sub], float)
            high = np.array([c[f"{name}_high"] for c in sub], float)
            per[name] = {
                "cells": len(sub),
                "outside_reward_range": int(((est < 0) | (est > 1)).sum()),
                "median_relative_error": float(np.median(np.abs(est - truth) / truth)),
                "covered": int(((low <= truth) & (truth <= high)).sum()),
                "zero_width": int((high - low <= 0).sum()),
                "median_width": float(np.median(high - low)),
            }
        out[direction] = per
    return out


def targets_met(summary: dict[str, Any], headline: str) -> dict[str, bool]:
    """The issue's targets for the headline estimator, per direction (the issue's cells are
    ``uniform from bts``) and over both directions' cells (coverage scaled: 22 of 24)."""
    met = {}
    for direction, per in summary.items():
        h = per[headline]
        met[direction] = bool(
            all(p["outside_reward_range"] == 0 for k, p in per.items() if k in ESTIMATORS)
            and h["median_relative_error"] <= per["ips"]["median_relative_error"]
            and h["covered"] >= MIN_COVERED * h["cells"] / 12
        )
    return met


def run(wheel: Path, bts_probs: str = "week", seed: int = 0, n_bootstrap: int = 1000) -> dict:
    """The whole evaluation as a JSON-able dict."""
    config = OPEConfig(confidence=CONFIDENCE, reward_range=(0.0, 1.0), n_bootstrap=n_bootstrap)
    cells: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for campaign in CAMPAIGNS:
        random_log = read_log(wheel, "random", campaign)
        bts_log = read_log(wheel, "bts", campaign)
        actions = [f"item-{i}" for i in range(n_items(wheel, campaign))]
        uniform = np.full((len(bts_log), len(actions)), 1.0 / len(actions))
        keys = ["task_type"] if bts_probs == "week" else ["task_type", "day"]
        shares = bts_shares(bts_log, actions, keys)
        target = shares.reindex(pd.MultiIndex.from_frame(random_log[keys]) if len(keys) > 1 else
                                random_log["task_type"]).to_numpy()  # fmt: skip
        if np.isnan(target).any():
            raise ValueError(f"{campaign}: a random-log context has no Thompson share")
        jobs = (
            ("uniform from bts", bts_log, random_log, uniform),
            ("bts from uniform", random_log, bts_log, target),
        )
        for direction, log, truth_log, probs in jobs:
            for row in evaluate_direction(log, truth_log, probs, actions, config, seed):
                cells.append({"direction": direction, "campaign": campaign, **row})
    summary = summarise(cells)
    return {
        "data": f"Open Bandit Dataset sample in {wheel.name} (CC BY 4.0)",
        "settings": {
            "bts_probs": bts_probs,
            "seed": seed,
            "n_bootstrap": n_bootstrap,
            "confidence": CONFIDENCE,
            "headline": HEADLINE,
        },
        "summary": summary,
        "targets_met": targets_met(summary, HEADLINE),
        "cells": cells,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def format_result(result: dict[str, Any]) -> str:
    """Plain-text tables: the summary per direction, then every cell."""
    lines = [f"{result['data']}; headline estimator: {result['settings']['headline']}", ""]
    for direction, per in result["summary"].items():
        cells = next(iter(per.values()))["cells"]
        lines.append(f"{direction} ({cells} cells, 95% intervals)")
        lines.append(
            f"  {'estimator':16} {'outside [0,1]':>13} {'median rel err':>14} "
            f"{'truth covered':>13} {'zero-width':>10} {'median width':>12}"
        )
        for name, p in per.items():
            lines.append(
                f"  {name:16} {p['outside_reward_range']:>13} "
                f"{100 * p['median_relative_error']:>13.1f}% "
                f"{p['covered']:>9} / {p['cells']:<2} {p['zero_width']:>10} "
                f"{1000 * p['median_width']:>9.2f}e-3"
            )
        lines.append("")
    lines.append("clicks per 1,000 impressions: truth | headline [interval] | IPS | SNIPS | DR")
    head = result["settings"]["headline"]
    for c in result["cells"]:
        lines.append(
            f"  {c['direction']:16} {c['campaign']:5} {c['cell']:13} "
            f"{1000 * c['truth']:6.2f} | {1000 * c[head]:6.2f} "
            f"[{1000 * c[head + '_low']:5.2f}, {1000 * c[head + '_high']:5.2f}] | "
            f"{1000 * c['ips']:6.2f} | {1000 * c['snips']:6.2f} | {1000 * c['dr']:6.2f}"
            f"  (ESS {c['ess']:.0f}, max weight {c['max_weight']:.1f})"
        )
    met = result["targets_met"]
    lines.append("")
    lines.append(
        "targets met: " + ", ".join(f"{d}: {'yes' if ok else 'NO'}" for d, ok in met.items())
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=Path, default=DEFAULT_WHEEL, help="path of the obp wheel")
    ap.add_argument("--bts-probs", choices=("week", "day"), default="week")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-bootstrap", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=RESULTS_DIR / "obd_eval.json")
    args = ap.parse_args(argv)
    if not args.wheel.exists():
        ap.error(f"{args.wheel} not found: pip download --no-deps obp -d DIR, then --wheel")
    result = run(args.wheel, args.bts_probs, args.seed, args.n_bootstrap)
    text = format_result(result)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".txt").write_text(text + "\n")
    return 0 if result["targets_met"][DIRECTIONS[0]] else 1


if __name__ == "__main__":
    sys.exit(main())
