"""``replayed_episodes`` and the shadow pair ``shadow_episodes`` + ``behaviour_diff`` (warehouse).

Thin wrappers: :func:`agentic_pipeline.replay.replay_day` replays each day of
``masked_trajectories``; :mod:`agentic_pipeline.shadow` runs the configured candidate
on the day's recorded CRM tasks (answered by the demo's simulated user, :data:`DEMO_USER`) and
compares it with the logged behaviour. Metadata holds counts
and rates only, never content.
"""

import pandas as pd
import pyarrow as pa
from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetOut,
    Failure,
    Output,
    asset,
    multi_asset,
)

from agentic_pipeline.demo import HUMAN_MARKER, SimulatedUser
from agentic_pipeline.replay import REPLAYED_EPISODES_SCHEMA, replay_day, to_arrow
from agentic_pipeline.shadow import (
    DIFF_SCHEMA,
    SHADOW_EPISODES_SCHEMA,
    ShadowQuotaExceeded,
    ShadowRunner,
    UserModel,
    behaviour_diff,
    recorded_tasks,
    shadow_table,
)
from assets.days import RunDays
from assets.metadata import column_schema, counts_md, markdown_table, safe_metadata
from assets.partitions import daily_partitions
from resources.catalogue import ToolCatalogueResource
from resources.io_manager import DayReader
from resources.retries import retry_transient
from resources.shadow import ShadowResource

#: The user who answers shadow candidates: the demo's simulated customer (wiring, not library).
DEMO_USER = UserModel(SimulatedUser, HUMAN_MARKER)

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


@multi_asset(
    outs={
        "shadow_episodes": AssetOut(
            description="The shadow candidate's episodes on the day's recorded CRM tasks: replay "
            "facts, dangerous attempts and the (masked-input) trajectory, beside the logged ones.",
            metadata={"zone": "warehouse"},
            kinds={"python", "parquet"},
        ),
        "behaviour_diff": AssetOut(
            description="Logged policy vs shadow candidate per task type: action distribution, "
            "tool use, steps to completion, error rate, success and risk.",
            metadata={"zone": "warehouse"},
            kinds={"python", "parquet"},
        ),
    },
    ins={
        "masked_trajectories": AssetIn("masked_trajectories"),
        "replayed_episodes": AssetIn("replayed_episodes"),
    },
    partitions_def=daily_partitions,
    backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
    # subsettable: Dagster 1.13 refuses a UI backfill of a non-subsettable multi-asset whose two
    # outputs get equal partition subsets built in a different order (hash-seed dependent)
    can_subset=True,
    group_name="replay",
)
@retry_transient
def shadow_assets(
    context: AssetExecutionContext,
    masked_trajectories: pd.DataFrame,
    replayed_episodes: pd.DataFrame,
    shadow: ShadowResource,
):
    """Run the candidate in shadow (sandbox only, quota and kill switch) and diff behaviours."""
    skip_reasons: dict[str, int] = {}
    tasks, skipped = recorded_tasks(masked_trajectories.to_dict("records"), skip_reasons)
    over_quota = max(0, len(tasks) - shadow.max_episodes)
    tasks = tasks[: shadow.max_episodes]
    runner = ShadowRunner(
        shadow.build_policy(),
        shadow.quota,
        max_steps=shadow.max_steps,
        seed=shadow.seed,
        user_model=DEMO_USER,
    )
    kill_reason = None
    try:
        runner.run(tasks)
    except ShadowQuotaExceeded as exc:
        kill_reason = str(exc)
        context.log.warning(kill_reason)
        if shadow.fail_on_kill:
            raise Failure(kill_reason) from exc
    episodes = shadow_table(runner.episodes, runner.candidate_id)
    candidate = episodes.to_pandas()
    shadowed = set(candidate["logged_episode_id"]) if len(candidate) else set()
    logged = replayed_episodes[replayed_episodes["episode_id"].isin(shadowed)]
    diff = pa.Table.from_pandas(
        behaviour_diff(logged, candidate), schema=DIFF_SCHEMA, preserve_index=False
    )
    context.log.info(
        f"shadow {runner.candidate_id}: {episodes.num_rows} episodes, "
        f"{runner.dangerous_actions} dangerous actions, {skipped} tasks not eligible"
    )
    headline = diff.to_pandas()
    headline = headline[~headline["metric"].str.startswith("tool_per_episode:")]
    selected = context.op_execution_context.selected_output_names
    if "shadow_episodes" in selected:
        yield Output(
            episodes,
            output_name="shadow_episodes",
            metadata=safe_metadata(
                {
                    "dagster/row_count": episodes.num_rows,
                    "dagster/column_schema": column_schema(SHADOW_EPISODES_SCHEMA),
                    "candidate_id": runner.candidate_id,
                    "tasks_not_eligible": skipped,
                    "tasks_skipped": counts_md({**skip_reasons, **runner.failed}, "reason"),
                    "tasks_over_episode_quota": over_quota,
                    "dangerous_actions": runner.dangerous_actions,
                    "kill_switch": kill_reason or "not tripped",
                    "json_nonfinite_to_null": runner.nonfinite_to_null,
                }
            ),
        )
    if "behaviour_diff" in selected:
        yield Output(
            diff,
            output_name="behaviour_diff",
            metadata=safe_metadata(
                {
                    "dagster/row_count": diff.num_rows,
                    "dagster/column_schema": column_schema(DIFF_SCHEMA),
                    "diff": markdown_table(
                        [
                            {
                                "task_type": r.task_type,
                                "metric": r.metric,
                                "logged": _fmt(r.logged),
                                "candidate": _fmt(r.candidate),
                                "delta": _fmt(r.delta),
                            }
                            for r in headline.itertuples()
                        ],
                        max_rows=200,
                    ),
                }
            ),
        )


def _fmt(value) -> str:
    return "" if value is None or value != value else f"{value:.3f}"
