"""The record shapes of the training datasets (typed), their shared checks and containers.

Each output format module (``sft``, ``pairs``, ``rl``) holds its record's validator beside the
builder; this module holds what they share: file names, lineage, the shape error, the config and
the per-day container.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypedDict

import pyarrow as pa

from agentic_pipeline.chat import present
from agentic_pipeline.storage import parquet_bytes

#: the asset; its own folder holds the per-day summary table (``part-0.parquet``)
ASSET_NAME = "training_datasets"
SFT_FILE = "sft.jsonl"
DPO_TRL_FILE = "dpo_trl.jsonl"
DPO_OPENAI_FILE = "dpo_openai.jsonl"
RL_FILE = "part-00000.parquet"  # the storage layer's part file: the rows are a table
#: export format -> file of a day folder
FORMAT_FILES = {
    "sft": SFT_FILE,
    "dpo": DPO_TRL_FILE,
    "dpo-openai": DPO_OPENAI_FILE,
    "rl": RL_FILE,
}
#: export format -> its own folder of the warehouse (one dataset per folder, so DuckDB, Polars
#: and ``pyarrow.dataset`` read each as one table): ``warehouse/<folder>/ds=YYYY-MM-DD/<file>``
FORMAT_DIRS = {
    "sft": "training_sft",
    "dpo": "training_dpo_trl",
    "dpo-openai": "training_dpo_openai",
    "rl": "training_rl",
}
#: the extension an export of each format must have
FORMAT_SUFFIXES = {"sft": ".jsonl", "dpo": ".jsonl", "dpo-openai": ".jsonl", "rl": ".parquet"}
LINEAGE_KEYS = ("episode_id", "ds", "reward_version")
UNVERSIONED = "unversioned"
Message = dict[str, Any]


class Lineage(TypedDict):
    """Where a record comes from: every record (or its ``metadata``) carries these keys."""

    episode_id: str
    ds: str
    reward_version: str


class EpisodeMeta(Lineage):
    """The ``metadata`` of an SFT record (and the chosen side of a pair)."""

    reward: float
    policy_id: str | None
    task_type: str | None


class TrainingShapeError(ValueError):
    """A training record does not have the expected shape (the message never quotes content)."""


@dataclass(frozen=True)
class TrainingConfig:
    """How the datasets are selected."""

    sft_quantile: float = 0.5  # keep SFT episodes with reward >= this quantile of the day
    sft_policies: str = "selected"  # "selected" | "eligible" | "all" (from policy_selection)
    dpo_margin: float = 0.1  # chosen reward - rejected reward must exceed this
    pair_across_tasks: bool = False  # pair different tasks of a task type on the chosen prompt
    max_pairs_per_group: int = 16

    def __post_init__(self) -> None:
        if not 0.0 <= self.sft_quantile <= 1.0:
            raise ValueError("sft_quantile must be in [0, 1]")
        if self.sft_policies not in ("selected", "eligible", "all"):
            raise ValueError("sft_policies must be 'selected', 'eligible' or 'all'")
        if self.dpo_margin < 0 or self.max_pairs_per_group < 1:
            raise ValueError("dpo_margin must be >= 0 and max_pairs_per_group >= 1")


@dataclass
class TrainingDatasets:
    """The records of one or more days, plus counts of what was skipped and why."""

    sft: list[dict] = field(default_factory=list)
    dpo_trl: list[dict] = field(default_factory=list)
    dpo_openai: list[dict] = field(default_factory=list)
    rl: list[dict] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    #: Non-finite numbers written as JSON ``null`` by :func:`day_files` (strict JSON).
    nonfinite_to_null: int = 0

    def by_format(self) -> dict[str, list[dict]]:
        return {"sft": self.sft, "dpo": self.dpo_trl, "dpo-openai": self.dpo_openai, "rl": self.rl}

    def _skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


#: ``None`` for missing values (None, NaN, pd.NA), else the value.
_val = present


def _fail(where: str, what: str) -> None:
    raise TrainingShapeError(f"{where}: {what}")


def _validate_lineage(meta: Any, where: str) -> None:
    if not isinstance(meta, dict):
        _fail(where, "metadata must be an object")
    for key in LINEAGE_KEYS:
        if not isinstance(meta.get(key), str) or not meta[key]:
            _fail(where, f"lineage key {key!r} missing")


def _require(record: Any, keys: Iterable[str], where: str) -> None:
    if not isinstance(record, dict):
        _fail(where, "record must be an object")
    missing = [k for k in keys if k not in record]
    if missing:
        _fail(where, f"missing keys {missing}")


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _parquet_bytes(table: pa.Table) -> bytes:
    return parquet_bytes(table).to_pybytes()  # the storage layer's one Parquet encoding
