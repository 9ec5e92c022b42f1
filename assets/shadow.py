"""``shadow_steps`` + ``shadow_episodes`` (the candidate in shadow) and ``behaviour_diff``.

Thin wrappers over :mod:`agentic_pipeline.shadow`. The shadow reads only the warehouse's masked
steps, one day at a time, and what the candidate wrote passes the warehouse leak scan before it is
stored. The diff reads ``replayed_episodes`` and the rewards of ``episode_rewards``. Metadata holds
counts, rates, policy ids and a chart, never content.
"""

import base64

import pandas as pd
import pyarrow as pa
from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetOut,
    Failure,
    MetadataValue,
    Output,
    asset,
    multi_asset,
)

from agentic_pipeline.shadow import (
    DIFF_SCHEMA,
    EPISODES_SCHEMA,
    STEPS_SCHEMA,
    StepAlignedShadow,
    agreement_by_tool,
    behaviour_diff,
    confusion,
    describe_shift,
    diff_chart,
    episodes_table,
    first_divergence_counts,
    headline,
    largest_shifts,
    redact_leaks,
    shadow_chart,
    steps_table,
)
from assets.days import RunDays
from assets.metadata import column_schema, counts_md, markdown_table, safe_metadata
from assets.partitions import daily_partitions
from resources.catalogue import ToolCatalogueResource
from resources.io_manager import DayReader
from resources.retries import retry_transient
from resources.shadow import BehaviourDiffResource, ShadowResource

NO_CANDIDATE = (
    "no candidate configured (ShadowResource.candidate, or AGENTIC_PIPELINE_SHADOW_CANDIDATE="
    "smollm2 or an endpoint URL)"
)


def _png_md(png: bytes, alt: str) -> MetadataValue:
    return MetadataValue.md(f"![{alt}](data:image/png;base64,{base64.b64encode(png).decode()})")


def _shadow_tables(context, masked: DayReader, shadow: ShadowResource, catalogue):
    """Run the candidate over the run's days; ``(steps, episodes, runner or None, leaks)``."""
    days = RunDays(context)
    days.require(masked)
    if masked.zone != "warehouse":  # the candidate reads masked data only
        raise Failure(f"shadow: input {masked.asset} is not in the warehouse zone")
    candidate = shadow.build_candidate()
    if candidate is None:
        context.log.info(f"shadow: {NO_CANDIDATE}")
        return steps_table([]), episodes_table([], steps_table([])), None, {}
    runner = StepAlignedShadow(candidate, shadow.settings, shadow.budget, catalogue)
    steps, episodes = [], []
    for ds in days:
        result = runner.run(masked.read_table(ds))
        steps += result.steps
        episodes += result.episodes
        days.log(ds, f"{len(result.steps)} step rows, {len(result.episodes)} episodes")
    steps_t, leaks = redact_leaks(steps_table(steps))
    episodes_t, more = redact_leaks(episodes_table(episodes, steps_t))
    return steps_t, episodes_t, runner, leaks + more


@multi_asset(
    outs={
        "shadow_steps": AssetOut(
            description="The shadow candidate at every logged decision point: the logged action, "
            "the proposal (or why there is none), agreement, hermetic answer (logged / off-log / "
            "blocked), tokens and time. Nothing it proposes is executed.",
            metadata={"zone": "warehouse"},
            kinds={"openai", "parquet"},
        ),
        "shadow_episodes": AssetOut(
            description="One row per episode of the day: shadowed or why not, agreement, first "
            "divergence, off-log calls, dangerous proposals, flap rate.",
            metadata={"zone": "warehouse"},
            kinds={"openai", "parquet"},
        ),
    },
    ins={"masked_trajectories": AssetIn("masked_trajectories", metadata={"load": "by_day"})},
    partitions_def=daily_partitions,
    backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
    can_subset=True,
    group_name="shadow",
)
@retry_transient
def shadow_assets(
    context: AssetExecutionContext,
    masked_trajectories: DayReader,
    shadow: ShadowResource,
    tool_catalogue: ToolCatalogueResource,
):
    """The step-aligned shadow of the configured candidate under its quota and kill switch."""
    steps, episodes, runner, leaks = _shadow_tables(
        context, masked_trajectories, shadow, tool_catalogue.load()
    )
    stop = runner.stop if runner is not None else None
    if stop is not None:  # the episode quota is a sampling bound; other limits are alarms
        (context.log.info if stop.limit == "max_episodes" else context.log.warning)(str(stop))
    figures = headline(steps, episodes)
    name = runner.candidate.name if runner else "none"
    common = {
        "candidate_id": name,
        "stop": str(stop) if stop else ("not stopped" if runner else NO_CANDIDATE),
        "leak_scan_redactions": sum(leaks.values()),
        "leak_scan_by_kind": counts_md(dict(leaks), "column:type", "cells"),
        **{k: v for k, v in figures.items() if v is not None},
    }
    selected = context.op_execution_context.selected_output_names
    if "shadow_steps" in selected:
        chart = shadow_chart(steps, episodes, f"shadow of {name}") if steps.num_rows else None
        yield Output(
            steps,
            output_name="shadow_steps",
            metadata=safe_metadata(
                {
                    "dagster/row_count": steps.num_rows,
                    "dagster/column_schema": column_schema(STEPS_SCHEMA),
                    **common,
                    "first_divergence": counts_md(
                        first_divergence_counts(episodes), "decision point", "episodes"
                    ),
                    "logged_vs_proposed": markdown_table(confusion(steps)),
                    "agreement_by_logged_action": markdown_table(agreement_by_tool(steps)),
                    **({"chart": _png_md(chart, "shadow agreement")} if chart else {}),
                }
            ),
        )
    if "shadow_episodes" in selected:
        status = episodes.column("status").to_pylist()
        by_status = pd.Series([s.split(":")[0] for s in status], dtype=str).value_counts()
        yield Output(
            episodes,
            output_name="shadow_episodes",
            metadata=safe_metadata(
                {
                    "dagster/row_count": episodes.num_rows,
                    "dagster/column_schema": column_schema(EPISODES_SCHEMA),
                    **common,
                    "episodes_by_status": counts_md(by_status.to_dict(), "status", "episodes"),
                }
            ),
        )
    if stop is not None and shadow.fail_on_stop:
        raise Failure(str(stop), allow_retries=False)


def _day_episodes(ds: str, replayed: DayReader, rewards: DayReader) -> pd.DataFrame:
    frame = replayed.read(ds)
    if ds in rewards.days and len(frame):
        reward = rewards.read(ds)[["episode_id", "reward"]].drop_duplicates("episode_id")
        frame = frame.merge(reward, on="episode_id", how="left")
    return frame


@asset(
    ins={
        "replayed_episodes": AssetIn(metadata={"load": "by_day"}),
        "episode_rewards": AssetIn(metadata={"load": "by_day"}),
    },
    partitions_def=daily_partitions,
    backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
    metadata={"zone": "warehouse"},
    kinds={"numpy", "parquet"},
    name="behaviour_diff",
    group_name="shadow",
    description="Behaviour diff between the day's policies per task type, from logs alone: "
    "action distribution and its divergence, tool use, steps, replies, errors, retries, loops, "
    "risky writes, success and reward, latency and cost, each with a bootstrap interval (paired "
    "by task where both ran the same tasks) and a flag where it excludes no change.",
)
@retry_transient
def behaviour_diff_asset(
    context: AssetExecutionContext,
    replayed_episodes: DayReader,
    episode_rewards: DayReader,
    diff_settings: BehaviourDiffResource,
):
    days = RunDays(context)
    days.require(replayed_episodes)
    settings = diff_settings.settings
    frames = []
    for ds in days:
        frame = behaviour_diff(_day_episodes(ds, replayed_episodes, episode_rewards), settings)
        days.log(ds, f"{len(frame)} figures, {int(frame['flagged'].sum())} flagged")
        frames.append(frame)
    diff = pd.concat(frames, ignore_index=True) if frames else behaviour_diff(pd.DataFrame())
    table = pa.Table.from_pandas(diff, schema=DIFF_SCHEMA, preserve_index=False)
    shifts = largest_shifts(diff, 10)
    pairs = diff.drop_duplicates(["ds", "task_type", "other_policy"])
    headline_rows = diff[
        diff["metric"].isin(("success_rate", "steps_per_episode", "error_rate",
                             "risky_writes_per_episode", "action_divergence_jsd"))
    ]  # fmt: skip
    chart = diff_chart(shifts, "largest flagged shifts vs baseline") if len(shifts) else None
    yield Output(
        table,
        metadata=safe_metadata(
            {
                "dagster/row_count": table.num_rows,
                "dagster/column_schema": column_schema(DIFF_SCHEMA),
                "comparisons": len(pairs),
                "flagged_figures": int(diff["flagged"].sum()) if len(diff) else 0,
                "paired_comparisons": int(pairs["paired"].sum()) if len(pairs) else 0,
                "baselines": markdown_table(
                    [
                        {
                            "ds": r.ds,
                            "task_type": r.task_type,
                            "baseline": r.baseline_policy,
                            "other": r.other_policy,
                            "paired on tasks": r.n_pairs,
                        }
                        for r in pairs.itertuples()
                    ],
                    max_rows=50,
                ),  # fmt: skip
                "largest_shifts": MetadataValue.md(
                    "\n".join(f"- {describe_shift(r)}" for _, r in shifts.iterrows())
                    or "_no flagged shift_"
                ),
                "headline": markdown_table(
                    [
                        {
                            "task_type": r.task_type,
                            "other": r.other_policy,
                            "metric": r.metric,
                            "baseline": _fmt(r.baseline),
                            "other value": _fmt(r.other),
                            "delta": _fmt(r.delta),
                            "interval": f"{_fmt(r.delta_low)}..{_fmt(r.delta_high)}",
                            "flagged": "yes" if r.flagged else "",
                        }
                        for r in headline_rows.itertuples()
                    ],
                    max_rows=100,
                ),  # fmt: skip
                **({"chart": _png_md(chart, "behaviour shifts")} if chart else {}),
            }
        ),
    )


def _fmt(value) -> str:
    return "" if value is None or value != value else f"{value:.3f}"
