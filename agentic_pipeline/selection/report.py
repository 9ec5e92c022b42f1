"""Human-readable output of a policy decision: a markdown report and a PNG chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


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


def render_report(
    table: pd.DataFrame,
    context_decisions: pd.DataFrame | None = None,
    registry: dict[str, dict[str, Any]] | None = None,
) -> str:
    """Markdown: per task type the decision, its reason and every policy's statistics."""
    if table.empty and not registry:
        return "# Policy selection\n\nNo episodes in the window.\n"
    first = table.iloc[0] if not table.empty else None
    lines = ["# Policy selection", ""]
    if first is not None:
        lines += [
            f"Decision of {first['ds']} over {first['window_start']} .. {first['window_end']}, "
            f"reward version `{first['reward_version']}`.",
            "",
        ]
    tasks = sorted(set(table["task_type"]) | set(registry or {}))
    cols = [
        "policy_id",
        "n_episodes",
        "mean_reward",
        "ci_low",
        "ci_high",
        "prob_best",
        "linear_estimate",
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
            lines.append(f"  \n**Reason:** {entry['reason']}")
        lines.append("")
        if not sub.empty:
            lines += [_md_table(sub[cols]), ""]
            notes = sub.loc[~sub["selected"], ["policy_id", "reason"]]
            lines += [f"- {p}: {r}" for p, r in notes.itertuples(index=False)]
            unidentified = sub.loc[sub["ope_identified"].eq(False), "ope_reason"].dropna().unique()
            lines += [f"- off-policy estimate: {r}" for r in unidentified]
            lines.append("")
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
    return "\n".join(lines).rstrip() + "\n"


def render_chart(table: pd.DataFrame, path: str | Path) -> Path:
    """PNG: per task type, each policy's mean reward with its interval (and the DR estimate)."""
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
            ax.scatter(ope, y + 0.2, marker="x", color="tab:orange", label="OPE (DR)")
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
