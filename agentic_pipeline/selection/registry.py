"""The policy registry on disk: one folder a decided day under
``<data root>/warehouse/policy_registry/``::

    ds=YYYY-MM-DD/registry.json   per task type: selected policy, estimate, interval, reason,
                                  window, reward version, Dagster run id
    ds=YYYY-MM-DD/report.md       the markdown report (also in the materialization metadata)
    ds=YYYY-MM-DD/chart.png       mean reward and interval per policy
    latest.json                   the registry of the newest decided day

Every file is written atomically (``DataRoot.atomic_write``). ``latest.json`` is only replaced
by a day at least as new as every stored registry, so backfilling old days leaves it alone.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, date, datetime, timedelta
from typing import Any

from upath import UPath

from agentic_pipeline.jsonutil import strict_json_dumps_counted
from agentic_pipeline.selection.decide import SelectionConfig, SelectionResult, json_value
from agentic_pipeline.selection.ope import ESTIMATORS
from agentic_pipeline.selection.report import render_chart
from agentic_pipeline.storage import DataRoot

REGISTRY_ASSET = "policy_registry"
REGISTRY_FILE = "registry.json"
REPORT_FILE = "report.md"
CHART_FILE = "chart.png"
LATEST_FILE = "latest.json"


def registry_dir(root: DataRoot, ds: str | None = None) -> UPath:
    """``warehouse/policy_registry`` (or its ``ds=`` folder)."""
    if ds is None:
        return root.asset_dir("warehouse", REGISTRY_ASSET)
    return root.partition_dir("warehouse", REGISTRY_ASSET, ds)


def registry_days(root: DataRoot) -> list[str]:
    """The days that have a stored registry, sorted."""
    base = registry_dir(root)
    if not base.exists():
        return []
    days = [p.name[3:] for p in base.iterdir() if p.name.startswith("ds=")]
    return sorted(ds for ds in days if (registry_dir(root, ds) / REGISTRY_FILE).exists())


def read_registry(root: DataRoot, ds: str | None = None) -> dict[str, Any] | None:
    """The registry decided on ``ds`` (``latest.json`` if ``ds`` is None), or None."""
    folder = registry_dir(root, ds)
    path = folder / (LATEST_FILE if ds is None else REGISTRY_FILE)
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def registry_document(
    ds: str,
    result: SelectionResult,
    config: SelectionConfig,
    run_id: str,
    previous: dict[str, Any] | None,
) -> dict[str, Any]:
    """The JSON registry of one day's decision."""
    entries = {task: {**entry, "run_id": run_id} for task, entry in result.registry.items()}
    first = next(iter(entries.values()), {})
    data_days = sorted(
        {d for e in entries.values() for d in (e.get("window_first_data_day"),) if d}
    )
    start = (date.fromisoformat(ds) - timedelta(days=config.window_days - 1)).isoformat()
    return {
        "ds": ds,
        "run_id": run_id,
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "window_start": start,
        "window_end": ds,
        "window_days": config.window_days,
        "window_data_days": first.get("window_data_days", 0),
        "window_first_data_day": data_days[0] if data_days else None,
        "reward_version": first.get("reward_version"),
        "previous_registry_ds": (previous or {}).get("ds"),
        "config": asdict(config),
        "task_types": entries,
        "target_policies": target_records(result),
    }


#: what the registry keeps of each target policy's off-policy estimate
TARGET_FIELDS = (
    "target",
    "task_type",
    "n_episodes",
    "ope_estimator",
    "ope_estimate",
    "ope_ci_low",
    "ope_ci_high",
    "ope_ess",
    "ope_max_weight",
    "ope_warning",
    "ope_identified",
    "ope_reason",
    *(f"ope_{e}{s}" for e in ESTIMATORS for s in ("", "_low", "_high")),
)


def target_records(result: SelectionResult) -> list[dict[str, Any]]:
    """The configured target policies' estimates per task type, as JSON-able records."""
    if result.targets is None or result.targets.empty:
        return []
    rows = result.targets.reindex(columns=TARGET_FIELDS)
    return [{k: json_value(v) for k, v in row.items()} for row in rows.to_dict("records")]


def write_decision(
    root: DataRoot, ds: str, document: dict[str, Any], result: SelectionResult
) -> tuple[dict[str, UPath], int]:
    """Store the registry, report and chart of ``ds``; refresh ``latest.json`` if newest.

    Returns the paths and the number of non-finite numbers the registry JSON holds as null
    (strict JSON)."""
    folder = registry_dir(root, ds)
    paths = {
        "registry": folder / REGISTRY_FILE,
        "report": folder / REPORT_FILE,
        "chart": folder / CHART_FILE,
    }
    text, nonfinite = strict_json_dumps_counted(document, indent=2, sort_keys=True)
    payload = text.encode()
    with root.atomic_path("warehouse", paths["chart"]) as chart_path:
        render_chart(result.table, chart_path)
    root.atomic_write("warehouse", paths["report"], result.report_md.encode())
    root.atomic_write("warehouse", paths["registry"], payload)
    if all(day <= ds for day in registry_days(root)):
        root.atomic_write("warehouse", registry_dir(root) / LATEST_FILE, payload)
        paths["latest"] = registry_dir(root) / LATEST_FILE
    return paths, nonfinite


def window_text(document: dict[str, Any]) -> str:
    """The window actually used: the days that had rewards, out of the configured length."""
    n, first = document.get("window_data_days"), document.get("window_first_data_day")
    if not first:
        return f"no rewards in {document['window_start']} .. {document['window_end']}"
    return (
        f"{first} .. {document['window_end']}: {n} day(s) with rewards "
        f"(window of {document['window_days']} days from {document['window_start']})"
    )
