"""All four datasets of any days from masked step rows and episode rewards."""

import pandas as pd

from agentic_pipeline.rewards import RewardSpec
from agentic_pipeline.training.episodes import _episodes
from agentic_pipeline.training.pairs import _pairs
from agentic_pipeline.training.records import Message, TrainingConfig, TrainingDatasets
from agentic_pipeline.training.rl import _rl_rows, _step_reward_lists
from agentic_pipeline.training.sft import _sft_records
from agentic_pipeline.training.tools import infer_tools


def build_training_datasets(
    steps: pd.DataFrame,
    episode_rewards: pd.DataFrame,
    policy_selection: pd.DataFrame | None = None,
    step_rewards: pd.DataFrame | None = None,
    config: TrainingConfig | None = None,
    spec: RewardSpec | None = None,
) -> TrainingDatasets:
    """All four datasets from (masked) canonical step rows and episode rewards of any days.

    ``step_rewards`` (the asset's table) gives the per-step rewards; without it they are computed
    by :func:`agentic_pipeline.rewards.step_rewards` (``spec`` for gamma, default spec if omitted;
    a frame without the reward components puts the whole reward on the terminal step).
    Quantiles, pairs and group statistics are computed within each day.
    """
    config = config or TrainingConfig()
    result = TrainingDatasets()
    if steps.empty or episode_rewards.empty:
        return result
    steps = steps.astype({"ds": str, "episode_id": str})
    rewards = episode_rewards.astype({"ds": str, "episode_id": str})
    episodes = _episodes(steps, rewards, result)
    tools: dict[tuple[str, str], list[dict]] = {}
    by_type: dict[tuple[str, str], list[list[Message]]] = {}
    for ep in episodes:
        by_type.setdefault((ep.ds, str(ep.attrs["task_type"])), []).append(ep.messages)
    for key, msgs in by_type.items():
        tools[key] = infer_tools(msgs)
    _sft_records(episodes, tools, policy_selection, config, result)
    _pairs(episodes, tools, config, result)
    step_lists = _step_reward_lists(steps, rewards, step_rewards, spec)
    result.rl = _rl_rows(episodes, tools, step_lists)
    return result


def split_datasets_by_day(datasets: TrainingDatasets) -> dict[str, TrainingDatasets]:
    """One :class:`TrainingDatasets` per day (``skipped`` counts stay on the combined object)."""
    out: dict[str, TrainingDatasets] = {}
    for name in ("sft", "dpo_trl", "dpo_openai"):
        for rec in getattr(datasets, name):
            getattr(out.setdefault(rec["metadata"]["ds"], TrainingDatasets()), name).append(rec)
    for row in datasets.rl:
        out.setdefault(row["ds"], TrainingDatasets()).rl.append(row)
    return out
