"""``training_datasets``: per-day SFT, preference-pair and offline-RL files (warehouse zone).

A thin wrapper over :mod:`agentic_pipeline.training`. Each format is one table in its own folder
(``warehouse/training_sft/ds=YYYY-MM-DD/sft.jsonl``, ``training_dpo_trl``, ``training_dpo_openai``,
``training_rl``), and the asset's own folder ``warehouse/training_datasets/ds=YYYY-MM-DD/`` holds
the per-day summary ``part-0.parquet`` (the partitioned IO manager's layout), written last. The
asset writes the folders itself, one atomic swap each, and returns a ``MaterializeResult``.

``policy_selection`` and ``step_rewards`` are read from the data root when stored (a day without a
decision uses every policy; without step rewards they are computed from the reward components).
Inputs are read one day at a time (``{"load": "by_day"}``), so a long single-run backfill holds one
day in memory. Each day is leak-scanned before its folder is written; metadata holds counts, reward
statistics and one truncated example per format, built from masked data only.
"""

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa
from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetKey,
    Config,
    Failure,
    MaterializeResult,
    MetadataValue,
    asset,
)
from pydantic import Field

from agentic_pipeline.masking import PIILeakError
from agentic_pipeline.storage import PART_FILE, DataRoot
from agentic_pipeline.training import (
    FORMAT_DIRS,
    FORMAT_FILES,
    TrainingConfig,
    TrainingDatasets,
    TrainingShapeError,
    build_training_datasets,
    day_files,
    summary_bytes,
    summary_table,
    validate_preference_pair,
    validate_rl_row,
    validate_sft_record,
    write_day_files,
)
from assets.automation import FOLLOWS_ITS_INPUTS
from assets.days import RunDays
from assets.metadata import column_schema, counts_md, markdown_table, safe_metadata
from assets.partitions import daily_partitions
from resources.data_root import DataRootResource
from resources.retries import retry_transient

TRAINING_CODE_VERSION = "3"  # 3: one folder per format, pairs without per-run noise
EXAMPLE_CHARS = 1500
VALIDATORS = {
    "sft": validate_sft_record,
    "dpo": validate_preference_pair,
    "dpo-openai": validate_preference_pair,
    "rl": validate_rl_row,
}


class TrainingDatasetsConfig(Config):
    """Selection settings of the training datasets (see ``TrainingConfig``)."""

    sft_quantile: float = Field(0.5, description="keep SFT episodes at or above this quantile")
    sft_policies: str = Field("selected", description="selected | eligible | all")
    dpo_margin: float = Field(0.1, description="minimum reward gap of a preference pair")
    pair_across_tasks: bool = Field(
        False, description="pair different tasks of a task type on the chosen episode's prompt"
    )
    max_pairs_per_group: int = Field(16, description="cap of pairs per task / task-type group")

    def to_training_config(self) -> TrainingConfig:
        return TrainingConfig(
            sft_quantile=self.sft_quantile,
            sft_policies=self.sft_policies,
            dpo_margin=self.dpo_margin,
            pair_across_tasks=self.pair_across_tasks,
            max_pairs_per_group=self.max_pairs_per_group,
        )


def _day(upstream: Any, ds: str) -> pd.DataFrame:
    """One day of an input loaded whole (DataFrame) or lazily (the IO manager's ``DayReader``)."""
    if hasattr(upstream, "read") and hasattr(upstream, "days"):
        return upstream.read(ds) if ds in upstream.days else pd.DataFrame({"ds": []})
    frame = upstream
    return frame[frame["ds"].astype(str) == ds] if len(frame) else frame


def _optional(root: DataRoot, asset_name: str, ds: str) -> pd.DataFrame | None:
    if not root.has_partition("warehouse", asset_name, ds):
        return None
    return root.read_partition("warehouse", asset_name, ds).to_pandas()


def _example(record: dict | None) -> MetadataValue:
    if record is None:
        return MetadataValue.md("_no records_")
    text = json.dumps(record, ensure_ascii=False, indent=1)
    if len(text) > EXAMPLE_CHARS:
        text = text[:EXAMPLE_CHARS] + "\n... (truncated)"
    return MetadataValue.md(f"```json\n{text}\n```")


@dataclass
class _Totals:
    """What the run's metadata needs, kept small: counts, rewards and the first record each."""

    records: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FORMAT_FILES, 0))
    examples: dict[str, dict] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    sft_rewards: list[float] = field(default_factory=list)
    dpo_gaps: list[float] = field(default_factory=list)
    rl_rewards: list[float] = field(default_factory=list)
    nonfinite_to_null: int = 0

    def add(self, day: TrainingDatasets) -> None:
        self.nonfinite_to_null += day.nonfinite_to_null
        for fmt, records in day.by_format().items():
            self.records[fmt] += len(records)
            if records and fmt not in self.examples:
                self.examples[fmt] = records[0]
        for reason, n in day.skipped.items():
            self.skipped[reason] = self.skipped.get(reason, 0) + n
        self.sft_rewards += [r["metadata"]["reward"] for r in day.sft]
        self.dpo_gaps += [
            r["metadata"]["chosen_reward"] - r["metadata"]["rejected_reward"] for r in day.dpo_trl
        ]
        self.rl_rewards += [r["reward"] for r in day.rl]


def _drop_invalid(datasets: TrainingDatasets, days: RunDays, ds: str) -> None:
    """Validate every record; one that fails is dropped and counted, never fails the day."""
    for fmt, records in datasets.by_format().items():
        kept = []
        for record in records:
            try:
                VALIDATORS[fmt](record)
            except TrainingShapeError as exc:  # the message names the field, never content
                datasets._skip(f"invalid_{fmt}_record")
                days.log(ds, f"dropped a {fmt} record: {exc}", warning=True)
                continue
            kept.append(record)
        records[:] = kept


def _metadata(summary: pd.DataFrame, totals: _Totals, days: list[str]) -> dict:
    meta: dict[str, object] = {
        "dagster/row_count": len(summary),
        "dagster/column_schema": column_schema(
            pa.Table.from_pandas(summary, preserve_index=False).schema
        ),
        "days": MetadataValue.text(", ".join(days)),
        "skipped": counts_md(totals.skipped, "reason", "count"),
        "json_nonfinite_to_null": totals.nonfinite_to_null,
    }
    for fmt in FORMAT_FILES:
        key = fmt.replace("-", "_")
        meta[f"records_{key}"] = totals.records[fmt]
        meta[f"example_{key}"] = _example(totals.examples.get(fmt))
    sft = pd.Series(totals.sft_rewards, dtype=float)
    if len(sft):
        meta["sft_reward_mean"] = float(sft.mean())
        for q, v in sft.quantile([0.05, 0.5, 0.95]).items():
            meta[f"sft_reward_p{round(q * 100):02d}"] = float(v)
    if totals.dpo_gaps:
        meta["dpo_reward_gap_mean"] = float(sum(totals.dpo_gaps) / len(totals.dpo_gaps))
    rl = pd.Series(totals.rl_rewards, dtype=float)
    if len(rl):
        meta["rl_reward_mean"] = float(rl.mean())
        meta["rl_reward_std"] = float(rl.std(ddof=0))
    rows = summary.round(3).astype(object).where(summary.notna(), None).to_dict("records")
    meta["summary"] = markdown_table(rows, max_rows=200)
    return safe_metadata(meta)


@asset(
    key=AssetKey("training_datasets"),
    ins={
        "masked_trajectories": AssetIn(
            key=AssetKey("masked_trajectories"), metadata={"load": "by_day"}
        ),
        "episode_rewards": AssetIn(key=AssetKey("episode_rewards"), metadata={"load": "by_day"}),
    },
    deps=[AssetKey("step_rewards"), AssetKey("policy_selection")],
    partitions_def=daily_partitions,
    backfill_policy=None,  # a run per day, tagged with its day: checks per day (README)
    code_version=TRAINING_CODE_VERSION,
    metadata={
        "zone": "warehouse",
        "files": ", ".join(f"{FORMAT_DIRS[f]}/ds=…/{n}" for f, n in FORMAT_FILES.items()),
    },
    kinds={"jsonl", "parquet"},
    automation_condition=FOLLOWS_ITS_INPUTS,  # follows a changed decision of its day
    group_name="training",
    description="Per-day training files from masked trajectories: SFT (OpenAI chat JSONL), "
    "preference pairs (TRL and OpenAI DPO JSONL) and offline RL / GRPO rows (Parquet), with a "
    "per-format summary table.",
)
@retry_transient
def training_datasets(
    context: AssetExecutionContext,
    config: TrainingDatasetsConfig,
    data_root: DataRootResource,
    masked_trajectories: Any,
    episode_rewards: Any,
) -> MaterializeResult:
    """Build, validate, leak-scan and write each day's training files."""
    root = data_root.root
    training_config = config.to_training_config()
    days = RunDays(context)
    totals = _Totals()
    summaries = []
    for ds in days:
        selection = _optional(root, "policy_selection", ds)
        if selection is None:
            days.log(ds, "no policy_selection stored, SFT uses every policy")
        datasets = build_training_datasets(
            _day(masked_trajectories, ds),
            _day(episode_rewards, ds),
            policy_selection=selection,
            step_rewards=_optional(root, "step_rewards", ds),
            config=training_config,
        )
        _drop_invalid(datasets, days, ds)
        try:
            files = day_files(datasets)  # leak scan of every format
        except PIILeakError as exc:  # the message names columns and entity types, no values
            raise Failure(f"{ds}: training export blocked by the leak scan: {exc}") from exc
        summary = summary_table(ds, datasets)
        files[PART_FILE] = summary_bytes(summary)
        write_day_files(root.root, ds, files)  # one atomic swap per day
        summaries.append(summary)
        totals.add(datasets)
        counts = ", ".join(f"{f}={len(r)}" for f, r in datasets.by_format().items())
        days.log(ds, counts)
    summary = pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()
    return MaterializeResult(metadata=_metadata(summary, totals, days.keys))
