"""Preference pairs: TRL (``dpo_trl.jsonl``) and OpenAI preference fine-tuning
(``dpo_openai.jsonl``), both sides of a pair sharing one prompt."""

from typing import Any, TypedDict

from agentic_pipeline.training.chat import prompt_hash, validate_messages
from agentic_pipeline.training.episodes import _Episode, _meta
from agentic_pipeline.training.normalise import comparable_messages, first_difference
from agentic_pipeline.training.records import (
    EpisodeMeta,
    Message,
    TrainingConfig,
    TrainingDatasets,
    _fail,
    _require,
    _validate_lineage,
)
from agentic_pipeline.training.tools import _validate_tools


class PairMeta(EpisodeMeta):
    """The ``metadata`` of a pair (lineage and reward of the chosen side, then the rejected)."""

    rejected_episode_id: str
    chosen_reward: float
    rejected_reward: float
    rejected_policy_id: str | None
    rejected_reward_version: str
    group_id: str
    prompt_match: str
    prompt_sha256: str
    prompt_messages: int
    shared_turns: int


class TrlPair(TypedDict):
    """One line of ``dpo_trl.jsonl``."""

    prompt: list[Message]
    chosen: list[Message]
    rejected: list[Message]
    tools: list[dict]
    metadata: PairMeta


class OpenAIPair(TypedDict):
    """One line of ``dpo_openai.jsonl``."""

    input: dict[str, Any]
    preferred_output: list[Message]
    non_preferred_output: list[Message]
    metadata: PairMeta


def _comparable(prompt: list[Message], completion: list[Message]) -> list[Message]:
    return comparable_messages(prompt + completion)[len(prompt) :]


def _validate_pair_meta(meta: Any, where: str) -> None:
    _validate_lineage(meta, where)
    for key in ("rejected_episode_id", "chosen_reward", "rejected_reward", "prompt_sha256"):
        if key not in meta:
            _fail(where, f"missing {key!r}")
    if not meta["chosen_reward"] > meta["rejected_reward"]:
        _fail(where, "chosen reward must exceed rejected reward")
    if meta["episode_id"] == meta["rejected_episode_id"]:
        _fail(where, "a pair needs two different episodes")


def validate_preference_pair(record: Any) -> None:
    """A TRL (``prompt``/``chosen``/``rejected``) or OpenAI (``input``/``preferred_output``/
    ``non_preferred_output``) preference pair whose two sides share one prompt."""
    if isinstance(record, dict) and "input" in record:
        _require(record, ("input", "preferred_output", "non_preferred_output", "metadata"), "dpo")
        meta = record["metadata"]
        _validate_pair_meta(meta, "dpo.metadata")
        inp = record["input"]
        _require(inp, ("messages", "tools"), "dpo.input")
        _validate_tools(inp["tools"], "dpo.input.tools")
        context = inp["messages"]
        n = meta.get("prompt_messages")
        if not isinstance(n, int) or not isinstance(context, list) or len(context) < n:
            _fail("dpo.metadata", "prompt_messages must count the shared prompt")
        if prompt_hash(context[:n]) != meta["prompt_sha256"]:
            _fail("dpo.input", "input does not start with the shared prompt")
        if context[-1].get("role") == "assistant":
            _fail("dpo.input", "input must not end with an assistant message")
        outputs = []
        for side in ("preferred_output", "non_preferred_output"):
            out = record[side]
            if not isinstance(out, list) or len(out) != 1 or out[0].get("role") != "assistant":
                _fail(f"dpo.{side}", "must be a list of exactly one assistant message")
            validate_messages(context + out, f"dpo.input+{side}")
            outputs.append(out)
        if _comparable(context, outputs[0]) == _comparable(context, outputs[1]):
            _fail("dpo", "preferred and non-preferred outputs differ only in per-run noise")
        return
    _require(record, ("prompt", "chosen", "rejected", "metadata"), "dpo")
    meta = record["metadata"]
    _validate_pair_meta(meta, "dpo.metadata")
    prompt = record["prompt"]
    validate_messages(prompt, "dpo.prompt")
    if prompt[-1]["role"] not in ("user", "tool"):
        _fail("dpo.prompt", "the prompt must end with a user or tool message")
    if prompt_hash(prompt) != meta["prompt_sha256"]:
        _fail("dpo.prompt", "prompt does not match the pair's shared prompt hash")
    for side in ("chosen", "rejected"):
        completion = record[side]
        if not isinstance(completion, list) or not completion:
            _fail(f"dpo.{side}", "must be a non-empty list of messages")
        if completion[0].get("role") != "assistant":
            _fail(f"dpo.{side}", "must start with an assistant message")
        validate_messages(prompt + completion, f"dpo.prompt+{side}")
    if _comparable(prompt, record["chosen"]) == _comparable(prompt, record["rejected"]):
        _fail("dpo", "chosen and rejected differ only in per-run noise")
    if "tools" in record:
        _validate_tools(record["tools"], "dpo.tools")


def _group_key(ep: _Episode, repeated: set[tuple[str, str]]) -> tuple[str, str, str]:
    task_id = ep.attrs.get("task_id")
    if task_id and (ep.ds, str(task_id)) in repeated:
        return (ep.ds, "task", f"{ep.attrs.get('task_type')}/{task_id}")
    return (ep.ds, "task_type", str(ep.attrs.get("task_type")))


def _divergence(c: _Episode, r: _Episode) -> tuple[int | None, str | None]:
    """(k, None): the completions agree (without per-run noise) on their first ``k`` messages
    and both continue with an assistant turn there; (None, reason) for a pair that is dropped."""
    k = first_difference(c.comparable_completion, r.comparable_completion)
    if k is None:
        return None, "pair_identical_after_normalising"
    if k >= len(c.completion) or k >= len(r.completion):
        return None, "pair_one_side_is_a_prefix"
    if c.completion[k]["role"] != "assistant" or r.completion[k]["role"] != "assistant":
        return None, "pair_diverges_outside_an_assistant_turn"
    return k, None


def _pair_candidates(
    members: list[_Episode], kind: str, config: TrainingConfig
) -> list[tuple[float, str, str, _Episode, _Episode, str]]:
    """(-gap, chosen id, rejected id, chosen, rejected, prompt_match) of one group.

    Only the ``max_pairs_per_group`` best safe episodes and worst episodes of each prompt bucket
    are compared (the largest gaps are among them), so a big group stays cheap.
    """
    buckets: dict[str, list[_Episode]] = {}
    for ep in members:
        exact = kind == "task_type" and not config.pair_across_tasks
        buckets.setdefault(ep.prompt_sha if exact else "", []).append(ep)
    k = config.max_pairs_per_group
    out = []
    for bucket in buckets.values():
        good = [e for e in bucket if e.safe and e.replay_ok]
        chosen = sorted(good, key=lambda e: (-e.reward, e.episode_id))[:k]
        rejected = sorted(bucket, key=lambda e: (e.reward, e.episode_id))[:k]
        for c in chosen:
            for r in rejected:
                gap = c.reward - r.reward
                if r is c or gap <= config.dpo_margin:
                    continue
                match = "identical" if c.prompt_sha == r.prompt_sha else f"same_{kind}"
                out.append((-gap, c.episode_id, r.episode_id, c, r, match))
    return out


def _pairs(
    episodes: list[_Episode],
    tools: dict[tuple[str, str], list[dict]],
    config: TrainingConfig,
    result: TrainingDatasets,
) -> None:
    counts: dict[tuple[str, str], int] = {}
    for ep in episodes:
        if ep.attrs.get("task_id"):
            key = (ep.ds, str(ep.attrs["task_id"]))
            counts[key] = counts.get(key, 0) + 1
    repeated = {k for k, n in counts.items() if n > 1}
    groups: dict[tuple[str, str, str], list[_Episode]] = {}
    for ep in episodes:
        groups.setdefault(_group_key(ep, repeated), []).append(ep)
    for (ds, kind, group_id), members in sorted(groups.items()):
        candidates = _pair_candidates(members, kind, config)
        candidates.sort(key=lambda t: t[:3])
        emitted = 0
        for _, _, _, c, r, match in candidates:
            if emitted == config.max_pairs_per_group:
                break
            k, dropped = _divergence(c, r)
            if k is None:
                result._skip(dropped or "pair_dropped")
                continue
            emitted += 1
            prompt = c.prompt + c.completion[:k]  # the shared prefix is the prompt
            day_tools = tools.get((ds, str(c.attrs.get("task_type"))), [])
            meta = {
                **_meta(c),
                "rejected_episode_id": r.episode_id,
                "chosen_reward": c.reward,
                "rejected_reward": r.reward,
                "rejected_policy_id": r.attrs["policy_id"],
                "rejected_reward_version": r.reward_version,
                "group_id": group_id,
                "prompt_match": match,
                "prompt_sha256": prompt_hash(prompt),
                "prompt_messages": len(prompt),
                "shared_turns": k,
            }
            result.dpo_trl.append(
                {
                    "prompt": prompt,
                    "chosen": c.completion[k:],
                    "rejected": r.completion[k:],
                    "tools": day_tools,
                    "metadata": meta,
                }
            )
            result.dpo_openai.append(
                {
                    "input": {"messages": prompt, "tools": day_tools},
                    "preferred_output": [c.completion[k]],
                    "non_preferred_output": [r.completion[k]],
                    "metadata": meta,
                }
            )
