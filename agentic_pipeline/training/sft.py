"""SFT (``sft.jsonl``): OpenAI chat fine-tuning records of successful, safe, well-rewarded
episodes."""

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from agentic_pipeline.training.chat import validate_messages
from agentic_pipeline.training.episodes import _by_day, _Episode, _meta
from agentic_pipeline.training.records import (
    EpisodeMeta,
    Message,
    TrainingConfig,
    TrainingDatasets,
    _fail,
    _require,
    _val,
    _validate_lineage,
)
from agentic_pipeline.training.tools import _validate_tools


class SftRecord(TypedDict):
    """One line of ``sft.jsonl``."""

    messages: list[Message]
    tools: list[dict]
    metadata: EpisodeMeta


def validate_sft_record(record: Any) -> None:
    """An OpenAI chat fine-tuning record with tools and lineage metadata."""
    _require(record, ("messages", "tools", "metadata"), "sft")
    validate_messages(record["messages"], "sft.messages")
    if not any(m["role"] == "assistant" for m in record["messages"]):
        _fail("sft.messages", "no assistant message to learn from")
    _validate_tools(record["tools"], "sft.tools")
    _validate_lineage(record["metadata"], "sft.metadata")
    for key in ("reward", "policy_id", "task_type"):
        if key not in record["metadata"]:
            _fail("sft.metadata", f"missing {key!r}")


def _sft_policy_filter(
    selection: pd.DataFrame | None, mode: str
) -> dict[tuple[str, str], set[str]]:
    """(ds, task_type) -> allowed policy ids. Task types without any selected (or eligible)
    policy, e.g. at cold start, are absent and so allow every policy; a selection without a
    ``ds`` column applies to every day (key ``("*", task_type)``)."""
    if selection is None or selection.empty or mode == "all":
        return {}
    column = "selected" if mode == "selected" else "eligible"
    allowed: dict[tuple[str, str], set[str]] = {}
    for row in selection.to_dict("records"):
        if bool(_val(row.get(column))):
            key = (str(_val(row.get("ds")) or "*"), str(row["task_type"]))
            allowed.setdefault(key, set()).add(str(row["policy_id"]))
    return allowed


def _sft_records(
    episodes: list[_Episode],
    tools: dict[tuple[str, str], list[dict]],
    policy_selection: pd.DataFrame | None,
    config: TrainingConfig,
    result: TrainingDatasets,
) -> None:
    """Append the SFT records of ``episodes`` to ``result.sft`` (each skip counted): successful,
    safe, replayed ``ok``, at least the day's ``sft_quantile`` reward, of an allowed policy."""
    allowed = _sft_policy_filter(policy_selection, config.sft_policies)
    thresholds = {
        ds: float(np.quantile([e.reward for e in eps], config.sft_quantile))
        for ds, eps in _by_day(episodes).items()
    }
    for ep in episodes:
        task_type = str(ep.attrs["task_type"])
        policies = allowed.get((ep.ds, task_type), allowed.get(("*", task_type)))
        if not (ep.success and ep.safe and ep.replay_ok):
            result._skip("sft_not_successful_or_safe")
        elif ep.reward < thresholds[ep.ds]:
            result._skip("sft_below_quantile")
        elif policies is not None and str(ep.attrs["policy_id"]) not in policies:
            result._skip("sft_policy_not_selected")
        else:
            result.sft.append(
                {
                    "messages": ep.messages,
                    "tools": tools[(ep.ds, str(ep.attrs["task_type"]))],
                    "metadata": _meta(ep),
                }
            )
