"""The per-day summary of the datasets: counts and the reward distribution kept, per format."""

import numpy as np
import pandas as pd
import pyarrow as pa

from agentic_pipeline.tables import conform
from agentic_pipeline.training.records import (
    FORMAT_DIRS,
    FORMAT_FILES,
    TrainingDatasets,
    _parquet_bytes,
)


def summary_table(ds: str, datasets: TrainingDatasets) -> pd.DataFrame:
    """One row per format: record and episode counts and the reward distribution kept."""
    rows = []
    for fmt, records in datasets.by_format().items():
        if fmt == "rl":
            rewards = [r["reward"] for r in records]
            episodes = {r["episode_id"] for r in records}
            gaps: list[float] = []
        else:
            metas = [r["metadata"] for r in records]
            rewards = [m.get("chosen_reward", m.get("reward")) for m in metas]
            episodes = {m["episode_id"] for m in metas} | {
                m["rejected_episode_id"] for m in metas if "rejected_episode_id" in m
            }
            gaps = [
                m["chosen_reward"] - m["rejected_reward"] for m in metas if "chosen_reward" in m
            ]
        versions = sorted(
            {
                r["reward_version"] if fmt == "rl" else r["metadata"]["reward_version"]
                for r in records
            }
        )
        arr = np.asarray(rewards, dtype=float)
        rows.append(
            {
                "ds": ds,
                "format": fmt,
                "file": f"{FORMAT_DIRS[fmt]}/ds={ds}/{FORMAT_FILES[fmt]}",
                "records": len(records),
                "episodes": len(episodes),
                "reward_mean": float(arr.mean()) if arr.size else None,
                "reward_min": float(arr.min()) if arr.size else None,
                "reward_p50": float(np.median(arr)) if arr.size else None,
                "reward_max": float(arr.max()) if arr.size else None,
                "reward_gap_mean": float(np.mean(gaps)) if gaps else None,
                "reward_version": ",".join(versions) or None,
            }
        )
    frame = pd.DataFrame(rows)
    for col in ("reward_mean", "reward_min", "reward_p50", "reward_max", "reward_gap_mean"):
        frame[col] = frame[col].astype(float)
    return frame


#: The per-day summary as stored (``ds`` lives in the folder name): fixed, so a day without
#: records (all-null reward columns) has the same types as any other day.
SUMMARY_SCHEMA = pa.schema(
    [
        ("format", pa.string()),
        ("file", pa.string()),
        ("records", pa.int64()),
        ("episodes", pa.int64()),
        ("reward_mean", pa.float64()),
        ("reward_min", pa.float64()),
        ("reward_p50", pa.float64()),
        ("reward_max", pa.float64()),
        ("reward_gap_mean", pa.float64()),
        ("reward_version", pa.string()),
    ]
)


def summary_bytes(summary: pd.DataFrame) -> bytes:
    """The summary table as Parquet (:data:`SUMMARY_SCHEMA`, without ``ds``)."""
    return _parquet_bytes(conform(summary, SUMMARY_SCHEMA))
