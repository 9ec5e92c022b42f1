"""Training datasets from masked trajectories: SFT, preference pairs (DPO) and offline RL / GRPO.

Everything here works on the canonical step rows of ``masked_trajectories`` (see ``schema``) and
the ``episode_rewards`` table; nothing imports a trainer library. Per day it builds:

Each format has its own warehouse folder (``FORMAT_DIRS``, see ``export``).

- **SFT** (``sft.jsonl``): OpenAI chat fine-tuning records ``{"messages", "tools", "metadata"}``
  from successful, safe episodes (no financial write or destructive act, ``replay_status`` ok) whose
  reward is at least the day's ``sft_quantile`` reward, of the day's selected policy per task type
  (all policies of a task type when ``policy_selection`` has no decision for it).
- **Preference pairs**: TRL (``dpo_trl.jsonl``: ``prompt``/``chosen``/``rejected`` message lists)
  and OpenAI preference fine-tuning (``dpo_openai.jsonl``: ``input``/``preferred_output``/
  ``non_preferred_output``).
- **Offline RL / GRPO** rows (``training_rl``, Parquet): prompt and completion as JSON text,
  episode reward, per-step rewards and returns, policy and propensity, ``group_id`` and
  ``group_advantage``.

Prompts. An episode's prompt is its messages up to and including the first user message. Logs
without a user turn before the agent's first action (transition logs) get one synthesised from the
(masked) ``task_description``; episodes with neither are skipped.

Pairing (documented decision). Pairs are formed per day inside a group: the ``task_id`` when it
occurs more than once that day (repeated trials, as in tau-bench), else the ``task_type``. Inside a
``task_id`` group the two trajectories answer the same task, so the pair uses the *chosen*
episode's prompt even when the users phrased it differently (``prompt_match`` says
``identical`` or ``same_task``). Inside a ``task_type`` group the tasks differ, so by default only
episodes whose prompts are identical after masking are paired; ``pair_across_tasks=True`` pairs
them anyway on the chosen prompt (``prompt_match="same_task_type"``, weaker data). Either way both
sides of a pair share one prompt. The chosen side must be safe and replayed ``ok``; the reward gap
must exceed ``dpo_margin``.

The two sides are compared without per-run noise (``normalise``: tool-call ids by position, JSON
written canonically, date-times, UUIDs and long hex ids replaced): the first message where they
differ must be an assistant turn on both sides. The messages before it (the prompt, then the
shared turns) are the pair's prompt; TRL's ``chosen``/``rejected`` are the two continuations and
OpenAI's ``preferred_output``/``non_preferred_output`` their first assistant turns. Pairs whose
sides are equal after normalising (the same conversation logged twice with other outcomes), where
one side is a prefix of the other, or whose first difference is a user or tool message (the
environment, not the policy, made them differ) are dropped and counted in ``skipped``.

Every record carries lineage (``episode_id``, ``ds``, ``reward_version``), and every export is
scanned with the masking package's leak scan before it is written.

Modules: ``records`` (shapes, config, container), ``chat`` (messages, prompt split, conversation
check), ``tools`` (tool schemas), ``episodes``, one module per format (``sft``, ``pairs``,
``rl``) with its validator, ``build``, ``summary``, ``leaks`` (leak scan) and ``export`` (files).
"""

from agentic_pipeline.training.build import build_training_datasets, split_datasets_by_day
from agentic_pipeline.training.chat import (
    prompt_hash,
    split_prompt,
    to_chat_messages,
    validate_messages,
)
from agentic_pipeline.training.export import (
    day_files,
    export_range,
    stored_days,
    write_day,
    write_day_files,
)
from agentic_pipeline.training.leaks import scan_records
from agentic_pipeline.training.pairs import OpenAIPair, PairMeta, TrlPair, validate_preference_pair
from agentic_pipeline.training.records import (
    ASSET_NAME,
    DPO_OPENAI_FILE,
    DPO_TRL_FILE,
    FORMAT_DIRS,
    FORMAT_FILES,
    FORMAT_SUFFIXES,
    LINEAGE_KEYS,
    RL_FILE,
    SFT_FILE,
    UNVERSIONED,
    EpisodeMeta,
    Lineage,
    Message,
    TrainingConfig,
    TrainingDatasets,
    TrainingShapeError,
)
from agentic_pipeline.training.rl import RL_KEYS, RL_SCHEMA, rl_table, validate_rl_row
from agentic_pipeline.training.sft import SftRecord, validate_sft_record
from agentic_pipeline.training.summary import SUMMARY_SCHEMA, summary_bytes, summary_table
from agentic_pipeline.training.tools import infer_tools

__all__ = [
    "ASSET_NAME",
    "DPO_OPENAI_FILE",
    "DPO_TRL_FILE",
    "FORMAT_DIRS",
    "FORMAT_FILES",
    "FORMAT_SUFFIXES",
    "LINEAGE_KEYS",
    "RL_FILE",
    "RL_KEYS",
    "RL_SCHEMA",
    "SFT_FILE",
    "SUMMARY_SCHEMA",
    "UNVERSIONED",
    "EpisodeMeta",
    "Lineage",
    "Message",
    "OpenAIPair",
    "PairMeta",
    "SftRecord",
    "TrainingConfig",
    "TrainingDatasets",
    "TrainingShapeError",
    "TrlPair",
    "build_training_datasets",
    "day_files",
    "export_range",
    "infer_tools",
    "prompt_hash",
    "rl_table",
    "scan_records",
    "split_datasets_by_day",
    "split_prompt",
    "stored_days",
    "summary_bytes",
    "summary_table",
    "to_chat_messages",
    "validate_messages",
    "validate_preference_pair",
    "validate_rl_row",
    "validate_sft_record",
    "write_day",
    "write_day_files",
]
