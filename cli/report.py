"""``agentic-pipeline report --date D``: a day's stored policy decision in the terminal."""

import json
from datetime import UTC, date, datetime, timedelta

import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

from agentic_pipeline.selection.registry import CHART_FILE, read_registry, registry_dir
from agentic_pipeline.selection.report import (
    LEGEND,
    decision_sentence,
    window_sentence,
)
from agentic_pipeline.storage import DataRoot
from cli.common import EXIT_NO_DATA

#: the terminal table: (header, how a row's cell is written)
HEADERS = ("policy", "n", "mean", "interval", "P(best)", "linear", "OPE", "risk", "eligible")
#: the legend's entries that the terminal table shows
TERMINAL_LEGEND = ("n", "mean", "P(best)", "linear", "OPE", "risk", "eligible")


def eligibility(row: dict, config: dict) -> str:
    """Why a policy is or is not eligible, short and in plain words (report.md has the long
    form)."""
    need, budget = config.get("min_samples"), config.get("risk_budget")
    if need is not None and row["n_episodes"] < need:
        return f"no: {row['n_episodes']} episodes, needs {need}"
    if budget is not None and row["risk_upper"] > budget:
        return f"no: too risky (up to {row['risk_upper']:.2f}, budget {budget})"
    return "yes"


def _cells(row: dict, config: dict) -> list[str]:
    interval = f"{_cell(row['ci_low'])}..{_cell(row['ci_high'])}"
    values = ("n_episodes", "mean_reward")
    estimates = ("prob_best", "linear_estimate", "ope_estimate", "risk_rate")
    return [
        str(row["policy_id"]),
        *(_cell(row[c]) for c in values),
        interval,
        *(_cell(row[c]) for c in estimates),
        eligibility(row, config),
    ]


def _cell(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def report_json(data_dir: str, day: str) -> tuple[str, int]:
    """The decision of ``day`` as strict JSON text (rows of ``policy_selection`` and the registry),
    with the exit code: 0, or 3 (nothing to read) when no decision is stored."""
    root = DataRoot(data_dir)
    if not root.has_partition("warehouse", "policy_selection", day):
        return json.dumps({"date": day, "error": "no policy decision stored"}), EXIT_NO_DATA
    table = root.read_partition("warehouse", "policy_selection", day).to_pandas()
    rows = json.loads(table.to_json(orient="records", date_format="iso"))
    payload = {"date": day, "registry": read_registry(root, day), "rows": rows}
    return json.dumps(payload, indent=2, sort_keys=True, allow_nan=False, default=str), 0


def _how_to_decide(day: str) -> str:
    """What to do to get a decision for ``day``: materialize it, or wait until it has ended."""
    today = datetime.now(UTC).date()
    if date.fromisoformat(day) >= today:
        latest = (today - timedelta(days=1)).isoformat()
        return f"the day has not ended yet (UTC); the latest day with a decision is {latest}"
    return f"materialize it first (agentic-pipeline materialize --start {day})"


def print_report(data_dir: str, day: str, console: Console) -> int:
    """Print the ``policy_selection`` decision of ``day`` and its registry; 3 if none stored."""
    root = DataRoot(data_dir)
    registry = read_registry(root, day)
    if not root.has_partition("warehouse", "policy_selection", day):
        console.print(
            f"[red]error:[/red] no policy decision stored for {day}: {_how_to_decide(day)}"
        )
        return EXIT_NO_DATA
    table = root.read_partition("warehouse", "policy_selection", day).to_pandas()
    entries = (registry or {}).get("task_types", {})
    config = (registry or {}).get("config") or {}
    if registry is None:
        console.print(f"[yellow]warning:[/yellow] no registry.json for {day}; showing the table")
    else:
        console.print(
            f"[bold]Policy decision of {day}[/bold] over {window_sentence(table, entries)}, "
            f"reward version {registry['reward_version']}, run {registry['run_id']}"
        )
    for task in sorted(set(table["task_type"].astype(str)) | set(entries)):
        sub = table[table["task_type"].astype(str) == task]
        entry = entries.get(task, {})
        chosen = entry.get("selected_policy")
        if not entry and sub["selected"].any():
            chosen = sub.loc[sub["selected"], "policy_id"].iloc[0]
        title = f"{task}: selected [bold green]{chosen or 'none'}[/bold green]"
        if entry:
            title += f", {decision_sentence(entry)}"
        out = Table(
            title=title,
            title_justify="left",
            caption=f"why: {entry['reason']}" if entry.get("reason") else None,
            caption_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            padding=(0, 1),
        )
        for header in HEADERS:
            out.add_column(header, justify="left" if header in ("policy", "eligible") else "right")
        for row in sub.sort_values("policy_id").to_dict("records"):
            style = "green" if row["selected"] else None if row["eligible"] else "dim"
            out.add_row(*_cells(row, config), style=style)
        console.print(out)
        notes = sub.loc[sub["ope_identified"].ne(True), "ope_reason"].dropna().unique()
        for note in notes:
            console.print(f"  off-policy estimate: {note}")
    legend = "; ".join(f"{name}: {LEGEND[name]}" for name in TERMINAL_LEGEND)
    console.print(f"[dim]legend: {legend}[/dim]")
    chart = registry_dir(root, day) / CHART_FILE
    if chart.exists():
        console.print(f"chart: {chart}")
    print_shifts(root, day, console)
    return 0


def print_shifts(root: DataRoot, day: str, console: Console, n: int = 3) -> None:
    """The day's largest flagged behaviour shifts (``behaviour_diff``) and the shadow's headline
    figures (``shadow_steps``/``shadow_episodes``), in plain words."""
    from agentic_pipeline.shadow import describe_shift, headline, largest_shifts

    if root.has_partition("warehouse", "behaviour_diff", day):
        diff = root.read_partition("warehouse", "behaviour_diff", day).to_pandas()
        shifts = largest_shifts(diff, n)
        console.print(f"[bold]Largest behaviour shifts of {day}[/bold] (behaviour_diff):")
        for _, row in shifts.iterrows():
            console.print(f"  - {describe_shift(row)}", soft_wrap=True)
        if shifts.empty:
            console.print("  none flagged: no interval excludes no change")
    if root.has_partition("warehouse", "shadow_steps", day) and root.has_partition(
        "warehouse", "shadow_episodes", day
    ):
        steps = root.read_partition("warehouse", "shadow_steps", day)
        if steps.num_rows:
            figures = headline(steps, root.read_partition("warehouse", "shadow_episodes", day))
            candidate = steps.column("candidate_id")[0].as_py()
            f = {k: _cell(v) for k, v in figures.items()}
            console.print(
                f"[bold]Shadow of {candidate}[/bold]: {f['proposals']} proposals at "
                f"{f['decision_points']} logged decision points of {f['episodes_shadowed']} "
                f"episodes; agrees with the log {f['agreement_rate']} of the time, same kind of "
                f"action {f['kind_agreement']}; {f['off_log_calls']} of {f['proposed_calls']} "
                f"proposed calls off-log; {f['dangerous_proposals']} dangerous proposals; flap "
                f"rate {f['flap_rate']}",
                soft_wrap=True,
            )
