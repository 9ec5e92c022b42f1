"""The shadow's tables and headline figures, the leak scan of what a candidate wrote, the chart.

- ``shadow_steps``: one row per logged decision point, sample and proposal (:data:`STEPS_SCHEMA`);
- ``shadow_episodes``: one row per episode of the day, shadowed or not, with why
  (:data:`EPISODES_SCHEMA`): agreement, first divergence, off-log calls, flap rate, tokens, time.

A candidate writes free text (replies, arguments): both tables pass the warehouse leak scan
(:func:`agentic_pipeline.masking.scan.scan_for_leaks`, every string column) before they are
stored, and a cell it flags is replaced by :data:`REDACTED` and counted.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import pyarrow as pa

__all__ = [
    "EPISODES_SCHEMA",
    "REDACTED",
    "STEPS_SCHEMA",
    "agreement_by_tool",
    "confusion",
    "diff_chart",
    "episodes_table",
    "first_divergence_counts",
    "headline",
    "redact_leaks",
    "shadow_chart",
    "steps_table",
]

REDACTED = "<redacted>"
_KEY = ("ds", "episode_id", "policy_id", "task_type", "task_id", "tool_set", "candidate_id")

STEPS_SCHEMA = pa.schema(
    [(k, pa.string()) for k in _KEY]
    + [
        ("decision", pa.int64()),
        ("step", pa.int64()),
        ("sample", pa.int64()),
        ("proposal", pa.int64()),
        ("status", pa.string()),
        ("logged_kind", pa.string()),
        ("logged_tool", pa.string()),
        ("logged_arguments", pa.string()),
        ("proposed_kind", pa.string()),
        ("proposed_tool", pa.string()),
        ("proposed_arguments", pa.string()),
        ("proposed_reply", pa.string()),
        ("same_kind", pa.bool_()),
        ("same_tool", pa.bool_()),
        ("same_arguments", pa.bool_()),
        ("agrees", pa.bool_()),
        ("answer", pa.string()),
        ("matched_step", pa.int64()),
        ("dangerous", pa.bool_()),
        ("candidate_prompt_tokens", pa.int64()),
        ("candidate_completion_tokens", pa.int64()),
        ("candidate_seconds", pa.float64()),
    ]
)
EPISODES_SCHEMA = pa.schema(
    [(k, pa.string()) for k in _KEY]
    + [
        ("status", pa.string()),
        ("decision_points", pa.int64()),
        ("proposals", pa.int64()),
        ("agreement_rate", pa.float64()),
        ("kind_agreement", pa.float64()),
        ("tool_agreement", pa.float64()),
        ("arguments_agreement", pa.float64()),
        ("first_divergence", pa.int64()),
        ("first_divergence_step", pa.int64()),
        ("off_log_calls", pa.int64()),
        ("dangerous_proposals", pa.int64()),
        ("flap_points", pa.int64()),
        ("flap_rate", pa.float64()),
        ("candidate_prompt_tokens", pa.int64()),
        ("candidate_completion_tokens", pa.int64()),
        ("candidate_seconds", pa.float64()),
    ]
)


def steps_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """``shadow_steps`` from the runner's step rows (missing cells are null)."""
    names = STEPS_SCHEMA.names
    data = [{n: r.get(n) for n in names} for r in rows]
    for r in data:
        r["proposal"] = r["proposal"] if r["proposal"] is not None else 0
    return pa.Table.from_pylist(data, schema=STEPS_SCHEMA)


def _mean(values: list[Any]) -> float | None:
    known = [bool(v) for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _identity(row: Mapping[str, Any]) -> tuple:
    return (row["proposed_kind"], row["proposed_tool"], _normal(row["proposed_arguments"]))


def _normal(text: str | None) -> str | None:
    from agentic_pipeline.environments.cassette import parse_arguments
    from agentic_pipeline.environments.hermetic import arguments_key

    return arguments_key(parse_arguments(text)) if text is not None else None


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    aligned = [r for r in rows if r["proposal"] == 0 and r["status"] == "proposed"]
    first = [r for r in aligned if r["sample"] == 0 and r["agrees"] is False]
    points = {r["decision"] for r in rows}
    samples: dict[int, set] = {}
    for r in aligned:
        samples.setdefault(r["decision"], set()).add(_identity(r))
    counted = [d for d in samples if sum(1 for r in aligned if r["decision"] == d) >= 2]
    flaps = sum(1 for d in counted if len(samples[d]) > 1)
    first_row = min(first, key=lambda r: r["decision"]) if first else None
    calls = [r for r in rows if r["status"] == "proposed" and r["proposed_kind"] == "tool"]
    return {
        "decision_points": len(points),
        "proposals": len(aligned),
        "agreement_rate": _mean([r["agrees"] for r in aligned]),
        "kind_agreement": _mean([r["same_kind"] for r in aligned]),
        "tool_agreement": _mean([r["same_tool"] for r in aligned if r["logged_kind"] == "tool"]),
        "arguments_agreement": _mean([r["same_arguments"] for r in aligned if r["same_tool"]]),
        "first_divergence": first_row["decision"] if first_row else None,
        "first_divergence_step": first_row["step"] if first_row else None,
        "off_log_calls": sum(1 for r in calls if r["answer"] == "off_log"),
        "dangerous_proposals": sum(1 for r in calls if r["dangerous"]),
        "flap_points": flaps,
        "flap_rate": flaps / len(counted) if counted else None,
        "candidate_prompt_tokens": sum(r["candidate_prompt_tokens"] or 0 for r in rows),
        "candidate_completion_tokens": sum(r["candidate_completion_tokens"] or 0 for r in rows),
        "candidate_seconds": round(sum(r["candidate_seconds"] or 0.0 for r in rows), 3),
    }


def episodes_table(episodes: Iterable[Mapping[str, Any]], steps: pa.Table) -> pa.Table:
    """``shadow_episodes``: each episode's row of the runner with the summary of its steps."""
    by_episode: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in steps.to_pylist():
        by_episode.setdefault((row["ds"], row["episode_id"]), []).append(row)
    out = []
    for ep in episodes:
        rows = by_episode.get((ep["ds"], ep["episode_id"]))
        out.append({**dict(ep), **(_summary(rows) if rows else {})})
    names = EPISODES_SCHEMA.names
    data = [{n: r.get(n) for n in names} for r in out]
    return pa.Table.from_pylist(data, schema=EPISODES_SCHEMA).sort_by(
        [("ds", "ascending"), ("episode_id", "ascending")]
    )


def redact_leaks(table: pa.Table) -> tuple[pa.Table, Counter]:
    """``table`` with every string cell the warehouse leak scan flags replaced by
    :data:`REDACTED`; the count per ``column:entity type``."""
    from agentic_pipeline.masking.scan import scan_for_leaks  # heavy import (Presidio): lazy

    leaks = scan_for_leaks(table)
    found: Counter = Counter(f"{leak.column}:{leak.entity_type}" for leak in leaks)
    cells: dict[str, set[int]] = {}
    for leak in leaks:
        cells.setdefault(leak.column, set()).add(leak.row)
    for column, rows in cells.items():
        values = table.column(column).to_pylist()
        for i in rows:
            values[i] = REDACTED
        index = table.schema.get_field_index(column)
        table = table.set_column(index, table.schema.field(index), pa.array(values, pa.string()))
    return table, found


# -- headline figures for the UI and the report --------------------------------------------------


def _aligned(steps: pd.DataFrame) -> pd.DataFrame:
    return steps[(steps["proposal"] == 0) & (steps["status"] == "proposed")]


def _rate(series: pd.Series) -> float | None:
    known = series.dropna()
    return round(float(known.astype(bool).mean()), 4) if len(known) else None


def headline(steps: pa.Table, episodes: pa.Table) -> dict[str, Any]:
    """The figures a reader looks at first (numbers only, never content)."""
    s, e = steps.to_pandas(), episodes.to_pandas()
    aligned = _aligned(s) if len(s) else s
    calls = s[(s["status"] == "proposed") & (s["proposed_kind"] == "tool")] if len(s) else s
    seconds = s["candidate_seconds"].dropna() if len(s) else pd.Series(dtype=float)
    counted = e["flap_rate"].notna() if len(e) else pd.Series(dtype=bool)
    return {
        "episodes_shadowed": int(e["proposals"].fillna(0).gt(0).sum()) if len(e) else 0,
        "decision_points": int(e["decision_points"].fillna(0).sum()) if len(e) else 0,
        "proposals": int(len(aligned)),
        "agreement_rate": _rate(aligned["agrees"]) if len(aligned) else None,
        "kind_agreement": _rate(aligned["same_kind"]) if len(aligned) else None,
        "tool_agreement": _rate(aligned["same_tool"]) if len(aligned) else None,
        "off_log_calls": int((calls["answer"] == "off_log").sum()) if len(calls) else 0,
        "proposed_calls": int(len(calls)),
        "dangerous_proposals": int(calls["dangerous"].fillna(False).sum()) if len(calls) else 0,
        "flap_rate": round(float(e.loc[counted, "flap_points"].sum() / max(1, _flap_base(s))), 4)
        if counted.any()
        else None,
        "seconds_per_step": round(float(seconds.mean()), 3) if len(seconds) else None,
        "tokens": _tokens(s),
    }


def _tokens(steps: pd.DataFrame) -> int:
    if not len(steps):
        return 0
    columns = ["candidate_prompt_tokens", "candidate_completion_tokens"]
    return int(steps[columns].fillna(0).to_numpy().sum())


def _flap_base(steps: pd.DataFrame) -> int:
    aligned = _aligned(steps)
    per_point = aligned.groupby(["ds", "episode_id", "decision"]).size()
    return int((per_point >= 2).sum())


def first_divergence_counts(episodes: pa.Table) -> dict[str, int]:
    """Shadowed episodes by the decision point where the candidate first departed
    (``never`` when it agreed everywhere it proposed)."""
    e = episodes.to_pandas()
    e = e[e["proposals"].fillna(0) > 0]
    out: Counter = Counter()
    for value in e["first_divergence"]:
        if value is None or value != value:
            out["never"] += 1
        else:
            out[str(int(value)) if value < 5 else "5-9" if value < 10 else "10+"] += 1
    order = ["0", "1", "2", "3", "4", "5-9", "10+", "never"]
    return {k: out[k] for k in order if out[k]}


def _label(kind: Any, tool: Any) -> str:
    return str(tool) if kind == "tool" else str(kind)


def confusion(steps: pa.Table, top: int = 12) -> list[dict[str, Any]]:
    """Logged action against proposed action (aligned proposals), most frequent pairs first."""
    s = steps.to_pandas()
    if not len(s):
        return []
    aligned = _aligned(s)
    pairs = Counter(
        (_label(r.logged_kind, r.logged_tool), _label(r.proposed_kind, r.proposed_tool))
        for r in aligned.itertuples()
    )
    return [
        {"logged": a, "proposed": b, "count": n}
        for (a, b), n in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    ]


def agreement_by_tool(steps: pa.Table) -> list[dict[str, Any]]:
    """Per logged action: proposals, and how often the candidate chose the same tool and the
    same call."""
    s = steps.to_pandas()
    if not len(s):
        return []
    aligned = _aligned(s).assign(
        label=lambda f: [
            _label(k, t) for k, t in zip(f["logged_kind"], f["logged_tool"], strict=True)
        ]
    )
    out = []
    for label, group in sorted(aligned.groupby("label"), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append(
            {
                "logged": label,
                "proposals": len(group),
                "same_kind": _rate(group["same_kind"]),
                "same_tool": _rate(group["same_tool"]),
                "agrees": _rate(group["agrees"]),
            }
        )
    return out


def diff_chart(shifts: pd.DataFrame, title: str) -> bytes:
    """PNG: the given shifts (rows of the behaviour diff) as changes with their intervals, in
    points for rates and shares and relative to the baseline for other figures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from agentic_pipeline.shadow.diff import DIVERGENCE, bounded

    rows = list(shifts.itertuples()) if len(shifts) else []
    fig, ax = plt.subplots(figsize=(8, 0.45 * max(len(rows), 2) + 1.2), dpi=90)
    for i, r in enumerate(reversed(rows)):
        scale = 1.0
        if r.metric != DIVERGENCE and not bounded(r.metric):
            scale = max(abs(r.baseline), abs(r.other), 1e-9)
        low = (r.delta_low if r.delta_low == r.delta_low else r.delta) / scale
        high = (r.delta_high if r.delta_high == r.delta_high else r.delta) / scale
        value = r.delta / scale
        color = "#c0392b" if r.flagged else "#7f8c8d"
        ax.plot([low, high], [i, i], color=color, linewidth=2)
        ax.plot([value], [i], "o", color=color)
        ax.text(high, i, f"  {value:+.2f}", va="center", fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(
        [f"{r.task_type} · {r.other_policy[:28]} · {r.words[:40]}" for r in reversed(rows)],
        fontsize=8,
    )
    ax.set_xlabel("change vs baseline (rates and shares: points/100; others: relative)")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def shadow_chart(steps: pa.Table, episodes: pa.Table, title: str) -> bytes:
    """PNG: where shadowed episodes first diverge, and agreement per logged action."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    divergence = first_divergence_counts(episodes)
    by_tool = agreement_by_tool(steps)[:10]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), dpi=90)
    left.bar(list(divergence), list(divergence.values()), color="#2c7fb8")
    left.set_xlabel("first decision point where the candidate departs from the log")
    left.set_ylabel("episodes")
    labels = [str(r["logged"])[:24] for r in by_tool]
    right.barh(labels[::-1], [r["same_kind"] or 0 for r in by_tool][::-1], color="#bdd7e7",
               label="same kind")  # fmt: skip
    right.barh(labels[::-1], [r["agrees"] or 0 for r in by_tool][::-1], color="#2c7fb8",
               label="same action")  # fmt: skip
    right.set_xlim(0, 1)
    right.set_xlabel("share of proposals, per logged action")
    right.legend(fontsize=8, loc="lower right")
    right.tick_params(axis="y", labelsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()
