"""``replayed_episodes`` (warehouse): a thin wrapper over ``agentic_pipeline.replay.replay_day``.

Each day of ``masked_trajectories`` is replayed; metadata holds counts and rates only, never
content. The shadow and the behaviour diff are in :mod:`assets.shadow`.
"""

import pandas as pd
from dagster import AssetExecutionContext, AssetIn, Output, asset

from agentic_pipeline.replay import REPLAYED_EPISODES_SCHEMA, replay_day, to_arrow
from assets.days import RunDays
from assets.metadata import column_schema, counts_md, markdown_table, safe_metadata
from assets.partitions import daily_partitions
from resources.catalogue import ToolCatalogueResource
from resources.io_manager import DayReader
from resources.retries import retry_transient

RATE_FACTS = (
    "success",
    "premature_finish",
    "loop_detected",
    "human_takeover",
)


def policy_rates(replayed: pd.DataFrame) -> list[dict]:
    """Fact rates per policy (rounded), for the markdown metadata."""
    rows = []
    for policy_id, group in sorted(replayed.groupby("policy_id", dropna=False), key=str):
        n = len(group)
        row = {"policy_id": policy_id, "episodes": n}
        for fact in RATE_FACTS:
            row[fact] = round(float(group[fact].astype(bool).mean()), 3)
        row["financial_write"] = round(float((group["financial_writes"] > 0).mean()), 3)
        row["destructive"] = round(float((group["destructive_actions"] > 0).mean()), 3)
        row["errors_per_episode"] = round(float(group["n_errors"].mean()), 3)
        rows.append(row)
    return rows


@asset(
    ins={"masked_trajectories": AssetIn("masked_trajectories", metadata={"load": "by_day"})},
    partitions_def=daily_partitions,
    backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
    metadata={"zone": "warehouse"},
    kinds={"python", "parquet"},
    group_name="replay",
    description="One row per episode: replay status and behavioural facts (success, errors, "
    "retries, loops, premature finish, financial writes, destructive acts, takeover).",
)
@retry_transient
def replayed_episodes(
    context: AssetExecutionContext,
    masked_trajectories: DayReader,
    tool_catalogue: ToolCatalogueResource,
):
    """Replay every episode of each day in the run against its cassette (and CRM sandbox).

    The masked steps are read one day at a time; only the per-episode facts are kept. Effects
    (writes, financial, destructive, hand-over) and error patterns come from the tool catalogue.
    """
    catalogue = tool_catalogue.load()
    days = RunDays(context)
    days.require(masked_trajectories)
    frames = [replay_day(masked_trajectories.read(ds), ds, rules=catalogue) for ds in days]
    frame = (
        pd.concat(frames, ignore_index=True)
        if frames
        else replay_day(pd.DataFrame(), rules=catalogue)
    )
    table = to_arrow(frame)
    context.log.info(f"replayed {table.num_rows} episodes over {len(days)} day(s)")
    counts = frame["replay_status"].value_counts().to_dict() if len(frame) else {}
    yield Output(
        table,
        metadata=safe_metadata(
            {
                "dagster/row_count": table.num_rows,
                "dagster/column_schema": column_schema(REPLAYED_EPISODES_SCHEMA),
                "status_counts": counts_md({str(k): int(v) for k, v in counts.items()}, "status"),
                "success_source": counts_md(
                    {str(k): int(v) for k, v in frame["success_source"].value_counts().items()}
                    if len(frame)
                    else {},
                    "source",
                ),
                "rates_by_policy": markdown_table(policy_rates(frame) if len(frame) else []),
                "tool_catalogue": catalogue.version,
                "tool_sets": counts_md(
                    {str(k): int(v) for k, v in frame["tool_set"].value_counts().items()}
                    if len(frame)
                    else {},
                    "tool set",
                ),
                "unknown_tools": int(frame["unknown_tools"].fillna(0).sum()) if len(frame) else 0,
            }
        ),
    )
