"""Human-readable output of a policy decision: a markdown report and a PNG chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None or value is pd.NA:
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return "–" if not np.isfinite(value) else f"{value:.{digits}f}"
    return str(value)


def _md_table(df: pd.DataFrame) -> str:
    header = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, sep, *body])


#: Each arm's summary columns, as the decision table and the report show them.
ARM_SUMMARY_COLUMNS = (
    "policy_id",
    "n_episodes",
    "mean_reward",
    "ci_low",
    "ci_high",
    "prob_best",
    "linear_estimate",
)
#: table column -> the short header the reports show
COLUMN_LABELS = {
    "policy_id": "policy",
    "n_episodes": "n",
    "mean_reward": "mean",
    "ci_low": "ci low",
    "ci_high": "ci high",
    "prob_best": "P(best)",
    "linear_estimate": "linear",
    "ope_estimate": "OPE",
    "risk_rate": "risk",
    "risk_upper": "risk upper",
    "eligible": "eligible",
    "selected": "selected",
}

#: what the report's columns mean, in plain words (the terminal report prints the same legend)
LEGEND = {
    "n": "episodes in the window",
    "mean": "mean reward (interval: its confidence interval, ci low .. ci high)",
    "P(best)": "probability of having the highest mean (Thompson sampling)",
    "linear": "reward predicted from the episode context by a ridge model",
    "OPE": "off-policy estimate had every episode used the policy (the headline estimator, "
    "self-normalised doubly robust unless configured)",
    "ESS": "effective sample size of the off-policy estimate, (sum w)^2 / sum w^2",
    "max w": "largest importance weight (target probability / logged propensity)",
    "risk": "share of episodes with a financial write or destructive act",
    "risk upper": "upper confidence bound of that share; above the risk budget: not eligible",
    "eligible": "enough episodes and risk within the budget",
}


def decision_sentence(entry: dict[str, Any]) -> str:
    """The previous choice and whether it changed, e.g. ``kept a (default since 2026-11-20)``."""
    chosen, previous = entry.get("selected_policy"), entry.get("previous_default")
    since = entry.get("default_since")
    if previous is None:
        return "no previous default"
    if not entry.get("changed"):
        return f"kept {chosen}, the default since {since}"
    before = entry.get("previous_default_since")
    was = f"{previous} (default since {before})" if before else previous
    return f"changed from {was} to {chosen or 'none'}"


def window_sentence(table: pd.DataFrame, registry: dict[str, dict[str, Any]] | None) -> str:
    """The window actually used: the days that had rewards, out of the configured window."""
    first = table.iloc[0] if not table.empty else None
    entry = next(iter((registry or {}).values()), {})
    start = entry.get("window_start", None if first is None else first["window_start"])
    end = entry.get("window_end", None if first is None else first["window_end"])
    n, data_start = entry.get("window_data_days"), entry.get("window_first_data_day")
    if n is None or data_start is None:
        return f"window {start} .. {end}"
    return f"{n} day(s) with rewards, {data_start} .. {end} (window {start} .. {end})"


#: off-policy estimators as the report names them (columns ``ope_<name>``, ``..._low/_high``)
OPE_LABELS = {"ips": "IPS", "snips": "SNIPS", "dm": "DM", "dr": "DR", "sndr": "SNDR"}


def _interval(row: Any, name: str) -> str:
    est, lo, hi = (row.get(f"ope_{name}{s}") for s in ("", "_low", "_high"))
    if est is None or not np.isfinite(est):
        return "–"
    if lo is None or not np.isfinite(lo):
        return _fmt(est)
    return f"{_fmt(est)} [{_fmt(lo)}, {_fmt(hi)}]"


def estimator_table(rows: pd.DataFrame, key: str = "policy_id") -> str:
    """Markdown: each off-policy estimator with its interval, the ESS and the largest weight."""
    out = []
    for _, row in rows.iterrows():
        r = row.to_dict()
        entry = {COLUMN_LABELS.get(key, key): r[key]}
        entry.update({label: _interval(r, name) for name, label in OPE_LABELS.items()})
        warning = r.get("ope_warning")
        entry.update(
            {
                "ESS": _fmt(r.get("ope_ess"), 1),
                "max w": _fmt(r.get("ope_max_weight"), 1),
                "guard": "–" if warning is None or pd.isna(warning) else f"weak: {warning}",
            }
        )
        out.append(entry)
    return _md_table(pd.DataFrame(out))


def targets_section(targets: pd.DataFrame) -> list[str]:
    """Markdown lines: the configured target policies' off-policy estimates per task type."""
    if targets is None or targets.empty:
        return []
    lines = ["## Target policies (off-policy)", ""]
    for name, sub in targets.groupby("target", sort=True):
        head = sub["ope_estimator"].iloc[0]
        lines += [f"### {name} (headline: {OPE_LABELS.get(head, head)})", ""]
        lines += [estimator_table(sub, "task_type"), ""]
        lines += [
            f"- {t}: {r}" for t, r in sub.loc[~sub["ope_identified"], ["task_type", "ope_reason"]]
            .itertuples(index=False)
        ]  # fmt: skip
    return [*lines, ""]


def render_report(
    table: pd.DataFrame,
    context_decisions: pd.DataFrame | None = None,
    registry: dict[str, dict[str, Any]] | None = None,
    targets: pd.DataFrame | None = None,
) -> str:
    """Markdown: per task type the decision, its reason and every policy's statistics."""
    if table.empty and not registry:
        return "# Policy selection\n\nNo episodes in the window.\n"
    first = table.iloc[0] if not table.empty else None
    lines = ["# Policy selection", ""]
    if first is not None:
        lines += [
            f"Decision of {first['ds']} over {window_sentence(table, registry)}, "
            f"reward version `{first['reward_version']}`.",
            "",
        ]
    tasks = sorted(set(table["task_type"]) | set(registry or {}))
    cols = [
        *ARM_SUMMARY_COLUMNS,
        "ope_estimate",
        "risk_rate",
        "risk_upper",
        "eligible",
        "selected",
    ]
    for task in tasks:
        sub = table[table["task_type"] == task]
        lines.append(f"## {task}")
        lines.append("")
        entry = (registry or {}).get(str(task))
        chosen = sub.loc[sub["selected"], "policy_id"]
        selected = entry["selected_policy"] if entry else (chosen.iloc[0] if len(chosen) else None)
        lines.append(f"**Selected:** {selected or 'none'}")
        if entry:
            lines.append(f"  \n**Previous default:** {decision_sentence(entry)}")
            lines.append(f"  \n**Reason:** {entry['reason']}")
        lines.append("")
        if not sub.empty:
            lines += [_md_table(sub[cols].rename(columns=COLUMN_LABELS)), ""]
            notes = sub[["policy_id", "reason"]]
            lines += [f"- {p}: {r}" for p, r in notes.itertuples(index=False)]
            unidentified = sub.loc[sub["ope_identified"].eq(False), "ope_reason"].dropna().unique()
            lines += [f"- off-policy estimate: {r}" for r in unidentified]
            if "ope_warning" in sub:
                weak = sub.loc[sub["ope_warning"].notna(), ["policy_id", "ope_warning"]]
                on_ope = bool(entry) and entry.get("decided_on_estimate") == "ope"
                use = (
                    "no default changes on it"
                    if on_ope
                    else "the decision compares on-policy means, not this estimate"
                )
                lines += [
                    f"- off-policy estimate of {p} is weak ({w}): {use}"
                    for p, w in weak.itertuples(index=False)
                ]
            lines.append("")
            if sub["ope_identified"].eq(True).any():
                lines += ["Off-policy estimators (interval in brackets):", ""]
                lines += [estimator_table(sub), ""]
        if context_decisions is not None and not context_decisions.empty:
            diff = context_decisions[
                (context_decisions["task_type"] == task) & context_decisions["differs"]
            ]
            if not diff.empty:
                lines.append("Linear model would choose differently for these contexts:")
                lines.append("")
                lines.append(
                    _md_table(
                        diff[["segment", "value", "n_contexts", "best_policy", "best_estimate"]]
                    )
                )
                lines.append("")
    lines += targets_section(targets)
    lines += ["## Legend", ""]
    lines += [f"- **{name}**: {text}" for name, text in LEGEND.items()]
    return "\n".join(lines).rstrip() + "\n"


def render_chart(table: pd.DataFrame, path: str | Path) -> Path:
    """PNG: per task type, each policy's mean reward with its interval (and the DR estimate)."""
    # imported here: matplotlib costs ~0.5 s of every CLI start, most of which draw nothing
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tasks = sorted(table["task_type"].unique()) if not table.empty else []
    fig, axes = plt.subplots(
        max(len(tasks), 1), 1, figsize=(8, 1.2 + 0.6 * max(len(table), 1)), squeeze=False
    )
    for ax, task in zip(axes[: len(tasks), 0], tasks, strict=True):
        sub = table[table["task_type"] == task].reset_index(drop=True)
        y = np.arange(len(sub))
        mean = sub["mean_reward"].to_numpy(float)
        low, high = sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float)
        err = np.vstack([mean - low, high - mean])
        colors = np.where(
            sub["selected"], "tab:green", np.where(sub["eligible"], "tab:blue", "tab:gray")
        )
        for i in range(len(sub)):
            ax.errorbar(mean[i], y[i], xerr=err[:, [i]], fmt="o", color=colors[i], capsize=3)
        ope = pd.to_numeric(sub["ope_estimate"], errors="coerce").to_numpy(float)
        if np.isfinite(ope).any():
            ax.scatter(ope, y + 0.2, marker="x", color="tab:orange", label="OPE")
            ax.legend(loc="best", fontsize=7)
        ax.set_yticks(y, sub["policy_id"])
        ax.set_title(f"{task} (green: selected, gray: not eligible)", fontsize=9)
        ax.set_xlabel("reward")
    if not tasks:
        axes[0, 0].text(0.5, 0.5, "no episodes in window", ha="center")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
