"""``policy_selection``: the daily default policy per task type, and the policy registry on disk.

Each day D is decided from ``episode_rewards`` of the trailing window D-(window-1) .. D only (days
without rewards are skipped and the real window is recorded) with the previous day's decision as
the current default. The previous decision comes through Dagster lineage: ``policy_selection`` of
D depends on its own day D-1 (a self-dependency), so a backfill runs the days in order, one run at
a time, and a changed decision marks the following days and ``training_datasets`` stale. When D-1
has no decision (a day without data), the newest decision stored before D is used. Besides the
table, a run writes the day's registry, report and chart under
``<data root>/warehouse/policy_registry/`` (``agentic_pipeline.selection.registry``).
"""

import base64
from datetime import date, timedelta
from typing import Any

import pandas as pd
from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetKey,
    AssetsDefinition,
    Failure,
    MetadataValue,
    Output,
    TimeWindowPartitionMapping,
    asset,
)
from upath import UPath

from agentic_pipeline.rewards import RewardSpec
from agentic_pipeline.selection import (
    SELECTION_SCHEMA,
    decision_sentence,
    select_policies,
)
from agentic_pipeline.selection.registry import (
    registry_document,
    window_text,
    write_decision,
)
from agentic_pipeline.storage import DataRoot
from agentic_pipeline.tables import conform
from assets.automation import FOLLOWS_ITS_INPUTS
from assets.days import RunDays
from assets.metadata import column_schema, markdown_table, safe_metadata
from assets.partitions import daily_partitions
from resources.data_root import DataRootResource
from resources.io_manager import DayReader
from resources.retries import retry_transient
from resources.selection import DEFAULT_WINDOW_DAYS, SelectionResource

SELECTION_CODE_VERSION = "3"  # 2: fixed Arrow schema; 3: any-target OPE, SNDR headline
DECISION_COLUMNS = (
    "task_type",
    "selected_policy",
    "previous_default",
    "changed",
    "default_since",
    "n_episodes",
    "estimate",
    "ci_low",
    "ci_high",
    "prob_best",
    "ope_estimate",
    "reason",
)


# --- the asset --------------------------------------------------------------------------------


def _decisions_md(document: dict[str, Any]) -> MetadataValue:
    rows = []
    for entry in document["task_types"].values():
        row = {c: entry.get(c) for c in DECISION_COLUMNS}
        rows.append({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
    return markdown_table(rows, max_rows=200)


def _targets_md(document: dict[str, Any]) -> MetadataValue:
    cols = ("target", "task_type", "ope_estimator", "ope_estimate", "ope_ci_low", "ope_ci_high")
    cols += ("ope_ess", "ope_max_weight", "ope_warning")
    rows = [
        {c: round(v, 4) if isinstance(v, float) else v for c, v in r.items() if c in cols}
        for r in document.get("target_policies", [])
    ]
    return markdown_table(rows, max_rows=200) if rows else MetadataValue.md("none configured")


def selection_metadata(
    table: pd.DataFrame,
    document: dict[str, Any],
    paths: dict[str, UPath],
    chart: bytes,
    nonfinite: int = 0,
) -> dict[str, Any]:
    """Materialization metadata: the day's decisions, report, chart and registry location."""
    entries = document["task_types"].values()
    ope = table.loc[table["ds"] == document["ds"], ["task_type", "ope_identified"]]
    unidentified = sorted(ope.loc[ope["ope_identified"].ne(True), "task_type"].unique())
    image = base64.b64encode(chart).decode()
    return safe_metadata(
        {
            "dagster/row_count": len(table),
            "dagster/column_schema": column_schema(SELECTION_SCHEMA),
            "decision_day": document["ds"],
            "window": window_text(document),
            "reward_version": MetadataValue.text(str(document["reward_version"])),
            "task_types": len(document["task_types"]),
            "previous_decision_day": MetadataValue.text(str(document["previous_registry_ds"])),
            "changed_defaults": sum(bool(e.get("changed")) for e in entries),
            "what_changed": MetadataValue.md(
                "\n".join(f"- {e['task_type']}: {decision_sentence(e)}" for e in entries)
            ),
            "decisions": _decisions_md(document),
            "ope_unidentified_task_types": MetadataValue.text(", ".join(map(str, unidentified))),
            "ope_weak_estimates": int(table["ope_warning"].notna().sum()),
            "target_policies": _targets_md(document),
            "report": MetadataValue.md(paths["report"].read_text(encoding="utf-8")),
            "chart": MetadataValue.md(f"![policy selection](data:image/png;base64,{image})"),
            "chart_path": MetadataValue.path(str(paths["chart"])),
            "registry_path": MetadataValue.path(str(paths["registry"])),
            "json_nonfinite_to_null": nonfinite,
        }
    )


def selection_code_version(spec: RewardSpec, window_days: int) -> str:
    """``code_version``: asset code revision + reward spec version + window length."""
    return f"{SELECTION_CODE_VERSION}+reward-{spec.version}+window-{window_days}"


def previous_decision(table: pd.DataFrame | None, ds: str) -> dict[str, dict[str, Any]]:
    """Per task type, the selected policy of a stored ``policy_selection`` day and since when."""
    if table is None or table.empty:
        return {}
    chosen = table[table["selected"].astype(bool)]
    out: dict[str, dict[str, Any]] = {}
    for row in chosen.to_dict("records"):
        since = row.get("default_since")
        out[str(row["task_type"])] = {
            "selected_policy": str(row["policy_id"]),
            "default_since": None if since is None or pd.isna(since) else str(since),
            "decided_on": ds,
        }
    return out


def _stored_previous(
    root: DataRoot, lineage: DayReader, ds: str
) -> tuple[str | None, pd.DataFrame | None]:
    """The decision before ``ds``: the previous day through lineage (the self-dependency), else the
    newest decision stored before ``ds`` (a day without data has none), else nothing."""
    for day in reversed(lineage.days):
        return day, lineage.read(day)
    base = root.asset_dir("warehouse", "policy_selection")
    if not base.exists():
        return None, None
    earlier = sorted(
        p.name[3:] for p in base.iterdir() if p.name.startswith("ds=") and p.name[3:] < ds
    )
    for day in reversed(earlier):
        if root.has_partition("warehouse", "policy_selection", day):
            return day, root.read_partition("warehouse", "policy_selection", day).to_pandas()
    return None, None


def build_selection_assets(
    spec: RewardSpec, window_days: int = DEFAULT_WINDOW_DAYS
) -> list[AssetsDefinition]:
    """``policy_selection`` over a ``window_days`` trailing window of ``episode_rewards``.

    Lineage: day D depends on ``episode_rewards`` of D (identity) and on its own day D-1 (a
    self-dependency). The rest of the window (D-13 .. D-1 of ``episode_rewards``) is read from the
    data root: a window mapping would make every backfill of ``episode_rewards`` pull in the 13
    following decisions. The self-dependency orders the decisions (a backfill runs them one day at a
    time in day order) and, transitively, makes every earlier reward day an ancestor of D.
    """
    previous_day = TimeWindowPartitionMapping(
        start_offset=-1, end_offset=-1, allow_nonexistent_upstream_partitions=True
    )

    @asset(
        partitions_def=daily_partitions,
        ins={
            "episode_rewards": AssetIn(metadata={"load": "by_day"}),
            "previous_selection": AssetIn(
                key=AssetKey("policy_selection"),
                partition_mapping=previous_day,
                metadata={"load": "by_day"},
            ),
        },
        # no backfill policy: a run per day, tagged with its day; the self-dependency makes each
        # day wait for the day before, so a backfill decides the days in order, one at a time
        backfill_policy=None,
        code_version=selection_code_version(spec, window_days),
        metadata={"zone": "warehouse", "window_days": window_days},
        kinds={"scikitlearn", "parquet", "json"},
        automation_condition=FOLLOWS_ITS_INPUTS,  # the next days follow a changed day
        group_name="selection",
        description=f"Per task type and policy, the decision of day ds over the trailing "
        f"{window_days} days of episode_rewards, starting from the decision of the day before: "
        "bandit statistics, linear and off-policy estimates, risk guardrails and the selected "
        "default. Also writes the policy registry.",
    )
    @retry_transient
    def policy_selection(
        context: AssetExecutionContext,
        episode_rewards: DayReader,
        previous_selection: DayReader,
        selection: SelectionResource,
        data_root: DataRootResource,
    ):
        """Choose each task type's default policy (champion/challenger with guardrails)."""
        config = selection.config()
        if config.window_days > window_days:
            raise Failure(
                f"selection.window_days={config.window_days} exceeds the {window_days} days "
                "the asset loads; rebuild the definitions with a longer window"
            )
        root = data_root.root
        tables, last, nonfinite = [], None, 0
        run_days = RunDays(context)
        prev_ds, prev_table = _stored_previous(root, previous_selection, run_days.first)
        for ds in run_days:  # one day per run under the multi-run backfill
            start = date.fromisoformat(ds) - timedelta(days=config.window_days - 1)
            days = [(start + timedelta(days=i)).isoformat() for i in range(config.window_days)]
            window = DayReader(root, "warehouse", "episode_rewards", days)
            frames = [window.read(d) for d in window.days]
            rewards = (
                pd.concat(frames, ignore_index=True)
                if frames
                else pd.DataFrame(columns=["ds", "reward", "policy_id", "task_type"])
            )
            defaults = previous_decision(prev_table, prev_ds) if prev_ds else {}
            result = select_policies(rewards, ds, config, defaults, seed=selection.seed_for(ds))
            previous = {"ds": prev_ds} if prev_ds else None
            document = registry_document(ds, result, config, context.run.run_id, previous)
            paths, replaced = write_decision(root, ds, document, result)
            nonfinite += replaced
            run_days.log(
                ds,
                f"decided {len(document['task_types'])} task type(s) over "
                f"{document['window_start']} .. {ds} ({len(window.days)} day(s) with rewards); "
                f"previous decision {prev_ds}; wrote {paths['registry']}",
            )
            tables.append(result.table)
            last = (document, paths)
            prev_ds, prev_table = ds, result.table  # a multi-day run chains its own days
        table = pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]
        document, paths = last
        chart = paths["chart"].read_bytes()
        yield Output(
            conform(table, SELECTION_SCHEMA),  # fixed schema: types never depend on the day
            metadata=selection_metadata(table, document, paths, chart, nonfinite),
        )

    return [policy_selection]
