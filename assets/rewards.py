"""``episode_rewards`` and ``step_rewards``: the versioned long-horizon reward (warehouse zone).

Built by :func:`build_reward_assets` from the spec loaded at definition time: the spec's version
(label + content hash) is part of each asset's ``code_version``, so editing ``reward_spec.yaml``
marks the rewards (and ``policy_selection``) stale. At run time the ``reward_spec`` resource must
still hold the same spec; a run refuses to write rewards under a version it was not defined with.
"""

import numpy as np
import pandas as pd
import pyarrow as pa
from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetChecksDefinition,
    AssetExecutionContext,
    AssetIn,
    AssetsDefinition,
    Failure,
    MetadataValue,
    Output,
    asset,
    asset_check,
)

from agentic_pipeline.rewards import (
    COMPONENTS,
    EPISODE_REWARDS_SCHEMA,
    RewardSpec,
    episode_rewards_table,
    reward_bounds,
    reward_hacking_signals,
    score_episodes,
    step_rewards_table,
)
from agentic_pipeline.rewards import step_rewards as compute_step_rewards
from assets.days import RunDays
from assets.metadata import column_schema, markdown_table, safe_metadata
from assets.partitions import daily_partitions
from resources.io_manager import DayReader
from resources.retries import retry_transient
from resources.reward_spec import RewardSpecResource

#: Bump when the asset code changes in a way that changes its output.
REWARD_CODE_VERSION = "2"  # 2: fixed Arrow schemas (first_message_chars int64)
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
BOUNDS_TOLERANCE = 1e-9


def reward_code_version(spec: RewardSpec) -> str:
    """``code_version`` of the reward assets: asset code revision + reward spec version."""
    return f"{REWARD_CODE_VERSION}+reward-{spec.version}"


def _runtime_spec(resource: RewardSpecResource, defined: RewardSpec) -> RewardSpec:
    spec = resource.load()
    if spec.version != defined.version:
        raise Failure(
            f"reward spec {resource.resolved_path()} has version {spec.version}, but the assets "
            f"were defined with {defined.version}: reload the code location (or restart the CLI)"
        )
    return spec


def _round(value: object, digits: int = 3) -> object:
    if isinstance(value, float | np.floating):
        return None if not np.isfinite(value) else round(float(value), digits)
    return value


def reward_metadata(rewards: pd.DataFrame, replayed: pd.DataFrame, spec: RewardSpec) -> dict:
    """Materialization metadata of ``episode_rewards`` (aggregates only, no content)."""
    meta: dict[str, object] = {
        "dagster/row_count": len(rewards),
        "dagster/column_schema": column_schema(EPISODE_REWARDS_SCHEMA),
        "reward_version": spec.version,
        "days": MetadataValue.text(", ".join(sorted(rewards["ds"].astype(str).unique()))),
    }
    reward = pd.to_numeric(rewards["reward"], errors="coerce")
    if reward.notna().any():
        meta["reward_mean"] = float(reward.mean())
        for q, value in reward.quantile(list(QUANTILES)).items():
            meta[f"reward_p{round(q * 100):02d}"] = float(value)
        for comp in COMPONENTS:
            meta[f"mean_{comp}"] = float(rewards[comp].mean())
        meta["success_rate"] = float(rewards["success"].mean())
        meta["risky_episodes"] = int(rewards["risky"].sum())
        signals = reward_hacking_signals(replayed, rewards)
        rows = [{k: _round(v) for k, v in row.items()} for row in signals.to_dict("records")]
        meta["reward_hacking_signals"] = markdown_table(rows, max_rows=200)
        flagged = signals.loc[signals["flags"].astype(bool), ["policy_id", "task_type", "flags"]]
        meta["reward_hacking_flags"] = len(flagged)
    return safe_metadata(meta)


def build_reward_assets(spec: RewardSpec) -> list[AssetsDefinition]:
    """``episode_rewards`` and ``step_rewards`` whose ``code_version`` carries ``spec.version``."""
    code_version = reward_code_version(spec)
    low, high = reward_bounds(spec)

    @asset(
        partitions_def=daily_partitions,
        backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
        code_version=code_version,
        metadata={"zone": "warehouse", "reward_version": spec.version},
        kinds={"pandas", "parquet"},
        group_name="rewards",
        description=f"One row per episode: long-horizon reward {spec.version} and its "
        f"components {', '.join(COMPONENTS)} (bounds [{low:g}, {high:g}]).",
    )
    @retry_transient
    def episode_rewards(
        context: AssetExecutionContext,
        replayed_episodes: pd.DataFrame,
        reward_spec: RewardSpecResource,
    ):
        """Score every replayed episode with the reward spec (see ``reward_spec.yaml``)."""
        run_spec = _runtime_spec(reward_spec, spec)
        rewards = score_episodes(replayed_episodes, run_spec)
        context.log.info(
            f"scored {len(rewards)} episodes over {len(RunDays(context))} day(s) "
            f"with reward {run_spec.version}"
        )
        yield Output(
            episode_rewards_table(rewards),  # fixed schema: types never depend on the day
            metadata=reward_metadata(rewards, replayed_episodes, run_spec),
        )

    @asset(
        ins={
            "masked_trajectories": AssetIn(metadata={"load": "by_day"}),
            "episode_rewards": AssetIn(),
        },
        partitions_def=daily_partitions,
        backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
        code_version=code_version,
        metadata={"zone": "warehouse", "reward_version": spec.version},
        kinds={"pandas", "parquet"},
        group_name="rewards",
        description="One row per step: the episode reward spread over the agent's steps (cost "
        f"shared, outcome on the last step) and the return-to-go (gamma {spec.gamma:g}).",
    )
    @retry_transient
    def step_rewards(
        context: AssetExecutionContext,
        masked_trajectories: DayReader,
        episode_rewards: pd.DataFrame,
        reward_spec: RewardSpecResource,
    ):
        """Per-step rewards that sum, per episode, to the episode reward (one day at a time)."""
        run_spec = _runtime_spec(reward_spec, spec)
        totals = {"rows": 0, "episodes": 0, "reward_sum": 0.0, "start_sum": 0.0}
        schema: list = []

        days = RunDays(context)

        def day(ds: str) -> pa.Table:
            days.require(masked_trajectories, ds)
            day_rewards = episode_rewards[episode_rewards["ds"].astype(str) == ds]
            steps = compute_step_rewards(masked_trajectories.read(ds), day_rewards, run_spec)
            totals["rows"] += len(steps)
            totals["episodes"] += int(steps["episode_id"].nunique())
            if len(steps):
                totals["reward_sum"] += float(steps["step_reward"].sum())
                first = steps.groupby("episode_id")["return_to_go"].first()
                totals["start_sum"] += float(first.sum())
            table = step_rewards_table(steps)
            schema[:] = [table.schema]
            return table

        def metadata() -> dict:
            meta: dict[str, object] = {
                "dagster/row_count": totals["rows"],
                "reward_version": run_spec.version,
                "episodes": totals["episodes"],
            }
            if schema:
                meta["dagster/column_schema"] = column_schema(schema[0])
            if totals["rows"]:
                meta["mean_step_reward"] = totals["reward_sum"] / totals["rows"]
                meta["mean_return_to_go_at_start"] = totals["start_sum"] / totals["episodes"]
            context.log.info(f"{totals['rows']} step rewards for {totals['episodes']} episodes")
            return meta  # scanned by days.tables

        yield Output(days.tables(day, metadata))

    return [episode_rewards, step_rewards]


def build_reward_checks(spec: RewardSpec) -> list[AssetChecksDefinition]:
    """Per-partition data-quality checks of ``episode_rewards`` under ``spec``."""
    low, high = reward_bounds(spec)

    @asset_check(
        asset="episode_rewards",
        partitions_def=daily_partitions,
        description=f"Every reward lies within the spec's bounds [{low:g}, {high:g}].",
    )
    def rewards_within_bounds(
        context: AssetCheckExecutionContext, episode_rewards: pd.DataFrame
    ) -> AssetCheckResult:
        reward = pd.to_numeric(episode_rewards["reward"], errors="coerce")
        outside = episode_rewards[
            (reward < low - BOUNDS_TOLERANCE) | (reward > high + BOUNDS_TOLERANCE)
        ]
        return AssetCheckResult(
            passed=outside.empty,
            metadata=safe_metadata(
                {
                    "low": low,
                    "high": high,
                    "min_reward": float(reward.min()) if reward.notna().any() else None,
                    "max_reward": float(reward.max()) if reward.notna().any() else None,
                    "n_outside": len(outside),
                    "examples": MetadataValue.text(
                        ", ".join(outside["episode_id"].astype(str)[:5])
                    ),
                }
            ),
        )

    @asset_check(
        asset="episode_rewards",
        partitions_def=daily_partitions,
        description="No reward or reward component is missing, and the components sum to it.",
    )
    def reward_components_complete(
        context: AssetCheckExecutionContext, episode_rewards: pd.DataFrame
    ) -> AssetCheckResult:
        cols = ["reward", "reward_version", *COMPONENTS]
        absent = [c for c in cols if c not in episode_rewards]
        present = [c for c in cols if c in episode_rewards]
        nulls = {c: int(n) for c, n in episode_rewards[present].isna().sum().items() if n}
        mismatch = 0
        if not absent and len(episode_rewards):
            total = episode_rewards[list(COMPONENTS)].sum(axis=1)
            mismatch = int((~np.isclose(total, episode_rewards["reward"], atol=1e-9)).sum())
        return AssetCheckResult(
            passed=not absent and not nulls and not mismatch,
            metadata=safe_metadata(
                {
                    "absent_columns": MetadataValue.text(", ".join(absent)),
                    "null_counts": MetadataValue.json(nulls),
                    "sum_mismatches": mismatch,
                }
            ),
        )

    @asset_check(
        asset="episode_rewards",
        partitions_def=daily_partitions,
        description="Each day's rewards were computed with exactly one reward version.",
    )
    def single_reward_version(
        context: AssetCheckExecutionContext, episode_rewards: pd.DataFrame
    ) -> AssetCheckResult:
        versions = (
            episode_rewards.groupby("ds")["reward_version"]
            .agg(lambda s: sorted(s.dropna().astype(str).unique()))
            .to_dict()
        )
        mixed = {ds: v for ds, v in versions.items() if len(v) != 1}
        found = sorted({v for vs in versions.values() for v in vs})
        return AssetCheckResult(
            passed=not mixed,
            metadata=safe_metadata(
                {
                    "versions": MetadataValue.json({str(k): v for k, v in versions.items()}),
                    "mixed_days": MetadataValue.json({str(k): v for k, v in mixed.items()}),
                    "current_spec_version": spec.version,
                    "is_current": found == [spec.version],
                }
            ),
        )

    return [rewards_within_bounds, reward_components_complete, single_reward_version]
