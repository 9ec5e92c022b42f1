"""The built-in CRM demo data: simulated agent episodes, rolled out for real.

Each episode draws a Faker-made customer and a task (:mod:`agentic_pipeline.demo.users`), a
policy variant (:mod:`agentic_pipeline.demo.policies`, at random, with a logged ``propensity``) and
plays the policy against a :class:`~agentic_pipeline.environments.crm.CRMSandbox` and a simulated
user. The rollout is logged in both line formats (episode JSONL in the OpenAI chat format, and
transition JSONL). Everything is derived from ``seed`` through private ``random.Random`` streams, so
the same arguments give byte-identical episodes.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from faker import Faker

from agentic_pipeline.chat import text_message, tool_exchange
from agentic_pipeline.demo.policies import (
    DEFAULT_POLICY_WEIGHTS,
    HUMAN_MARKER,
    POLICIES,
    ScriptedPolicy,
    get_policy,
)
from agentic_pipeline.demo.truth import is_destructive, is_financial_write
from agentic_pipeline.demo.users import (
    CHANNEL_WEIGHTS,
    Pools,
    SimulatedUser,
    make_customer,
    make_task,
    pick,
)
from agentic_pipeline.environments.base import Action, AgentState
from agentic_pipeline.environments.crm import CRM_TOOLS, TASK_TYPES, CRMSandbox

#: Relative traffic per UTC hour (quiet at night, peaks late morning and afternoon).
HOUR_WEIGHTS: tuple[float, ...] = (
    1,
    1,
    1,
    1,
    1,
    2,
    3,
    5,
    8,
    10,
    11,
    11,
    10,
    10,
    11,
    11,
    10,
    9,
    8,
    7,
    6,
    4,
    3,
    2,
)
P_COMPLAINT_ON_FAILURE = 0.3
P_CSAT_MISSING = 0.25
MAX_STEPS = 40
#: Distinct names, streets and cities drawn per day (phones, cards, birthdays are per customer).
POOL_SIZE = 400
_TOOLS_CHARS = len(json.dumps([t.to_openai() for t in CRM_TOOLS.values()]))
_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

_SYSTEM_PROMPTS: dict[str, str] = {
    "crm-efficient-v3": (
        "You are Acme's customer support agent. Look the customer up with search_customer, check "
        "the record with get_customer, make exactly the change requested, confirm it, then finish."
    ),
    "crm-eager-v1": (
        "You are Acme's fast support assistant. Resolve requests in as few steps as possible and "
        "keep replies short."
    ),
    "crm-looper-v2": (
        "You are Acme's careful support agent. Always verify the customer's identity and record "
        "before any change; double-check everything."
    ),
    "crm-risky-v1": (
        "You are Acme's proactive support agent. Fix the customer's problem and anything else you "
        "notice on the account to maximise satisfaction."
    ),
}


@dataclass
class SimulatedEpisode:
    """One rolled-out episode in both formats, with the planted data and the true labels."""

    record: dict[str, Any]
    transitions: list[dict[str, Any]]
    customer: dict[str, Any]
    truth: dict[str, Any]
    #: The sampled plan (mode, loops, financial, delete) behind the planted behaviour.
    plan: dict[str, Any] = field(default_factory=dict)
    #: The sandbox state before the first step: ``{"customers", "cases", "tickets"}``.
    initial_state: dict[str, Any] = field(default_factory=dict)


# -- rollout ---------------------------------------------------------------------------------------


def _ts(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _tokens(chars: int) -> int:
    return max(1, chars // 4)


def _run_episode(
    started_at: dt.datetime,
    policy: ScriptedPolicy,
    propensity: float,
    fake: Faker,
    pools: Pools,
    ep_seed: int,
    task_weights: Mapping[str, float],
    task_seed: int | None = None,
) -> SimulatedEpisode:
    rng = random.Random(ep_seed)
    # a retry re-draws the task of an earlier episode (same customer, channel and task id)
    task_rng = rng if task_seed is None else random.Random(task_seed)
    fake.seed_instance(task_rng.getrandbits(64))
    customer = make_customer(fake, pools, task_rng)
    channel = pick(task_rng, CHANNEL_WEIGHTS)
    task_type = pick(task_rng, task_weights)
    task, extra, cases = make_task(task_type, customer, channel, fake, pools, task_rng)
    context = {"tier": customer["tier"], "channel": channel, "hour": started_at.hour}
    episode_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    user_rng, policy_rng = random.Random(rng.getrandbits(64)), random.Random(rng.getrandbits(64))

    user = SimulatedUser(customer, channel, user_rng)
    env = CRMSandbox.from_state({customer["customer_id"]: customer}, cases, {}, user=user)
    initial_state = env.state()
    env.reset(task)
    state = AgentState(task, context, policy_rng)
    system = _SYSTEM_PROMPTS.get(policy.policy_id, _SYSTEM_PROMPTS["crm-efficient-v3"])
    messages: list[dict[str, Any]] = [
        text_message("system", system),
        text_message("user", task.description),
    ]
    transitions: list[dict[str, Any]] = []
    context_chars = _TOOLS_CHARS + len(system) + len(task.description)
    prompt_tokens = completion_tokens = 0
    latency_ms = 0.0
    clock = started_at
    financial = destructive = 0
    human = False
    reward, done = 0.0, False
    for step in range(MAX_STEPS):
        action = policy(state) if step < MAX_STEPS - 1 else Action.finish()
        result = env.step(action)
        obs = result.observation
        state.history.append((action, obs))
        # model call cost and time
        if action.type == "tool":
            out_text = _DUMPS(action.params)
            call_id = f"call_{rng.getrandbits(96):024x}"
            obs_text = _DUMPS(obs)
            name = action.tool_name or ""
            messages += tool_exchange(call_id, name, out_text, obs_text, name_on_result=True)
            financial += is_financial_write(action.tool_name, action.params)
            destructive += is_destructive(action.tool_name)
            completion = _tokens(len(out_text)) + 12
            tool_ms = rng.uniform(30, 180)
        else:
            out_text = action.reply or ""
            obs_text = str(obs.get("user_message", ""))
            if out_text:
                messages.append(text_message("assistant", out_text))
            if action.type == "respond":
                messages.append(text_message("user", obs_text))
                human = human or HUMAN_MARKER in obs_text.lower()
            completion = _tokens(len(out_text)) + 4
            tool_ms = 0.0
        prompt_tokens += _tokens(context_chars)
        completion_tokens += completion
        model_ms = 300 + 18 * completion + rng.uniform(0, 500)
        latency_ms += model_ms + tool_ms
        clock += dt.timedelta(milliseconds=model_ms + tool_ms)
        context_chars += len(out_text) + len(obs_text) + 20
        reward, done = result.reward, result.done
        transitions.append(
            {
                "episode_id": episode_id,
                "step": step,
                "ts": _ts(clock),
                "policy_id": policy.policy_id,
                "propensity": propensity,
                "task_type": task_type,
                **(
                    {
                        "task_id": task.task_id,
                        "task_description": task.description,
                        "task_goal": task.goal,
                        "context": context,
                    }
                    if step == 0
                    else {}
                ),
                "action": action.to_dict(),
                "obs": obs,
                "reward": reward,
                "done": done,
            }
        )
        if action.type == "respond":  # the user takes a while to answer
            clock += dt.timedelta(seconds=rng.uniform(8, 90))
        if done:
            break

    success = env.goal_met()
    plan = state.memo["plan"]
    complaint = (not success) and rng.random() < P_COMPLAINT_ON_FAILURE
    n_steps = len(transitions)
    if success:
        csat = 5 if n_steps <= 8 and rng.random() < 0.8 else 4
    else:
        csat = 2 if human else rng.choice((1, 1, 2, 3))
    outcome = {
        "success": success,
        "human_takeover": human,
        "complaint": complaint,
        "csat": None if rng.random() < P_CSAT_MISSING else csat,
    }
    cost = (
        prompt_tokens * policy.usd_per_1k_prompt + completion_tokens * policy.usd_per_1k_completion
    ) / 1000
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "latency_ms": round(latency_ms, 1),
        "cost_usd": round(cost, 6),
    }
    reward = 1.0 if success else 0.0
    transitions[-1]["reward"] = reward
    transitions[-1]["outcome"] = outcome
    transitions[-1]["usage"] = usage
    record = {
        "episode_id": episode_id,
        "started_at": _ts(started_at),
        "policy_id": policy.policy_id,
        "propensity": propensity,
        "task_type": task_type,
        "task": {"id": task.task_id, "description": task.description, "goal": task.goal},
        "context": context,
        "messages": messages,
        "outcome": outcome,
        "usage": usage,
        "reward": reward,
    }
    planted = {
        "customer_id": customer["customer_id"],
        "first_name": customer["first_name"],
        "last_name": customer["last_name"],
        "name": f"{customer['first_name']} {customer['last_name']}",
        "email": customer["email"],
        "phone": customer["phone"],
        "address": customer["address"],
        "card_number": customer["card_number"],
        "dob": customer["dob"],
        **extra,
    }
    truth = {
        "success": success,
        "premature_finish": plan.mode == "premature",
        "loop": plan.loops >= 2,
        "financial_write": int(financial),
        "destructive": int(destructive),
        "human_takeover": human,
    }
    return SimulatedEpisode(record, transitions, planted, truth, plan.to_dict(), initial_state)


# -- public API ------------------------------------------------------------------------------------


def _normalise(
    weights: Mapping[str, float] | None, default: Mapping[str, float]
) -> dict[str, float]:
    w = dict(default if weights is None else weights)
    w = {k: float(v) for k, v in w.items() if v > 0}
    total = sum(w.values())
    if not w or total <= 0:
        raise ValueError("weights must contain a positive value")
    return {k: v / total for k, v in w.items()}


def generate_episodes(
    day: dt.date,
    n: int,
    seed: int,
    policy_weights: Mapping[str, float] | None = None,
    *,
    task_weights: Mapping[str, float] | None = None,
    retry_share: float = 0.0,
) -> Iterator[SimulatedEpisode]:
    """Yield ``n`` rolled-out episodes starting on ``day`` (UTC), in start-time order.

    Policies are drawn with probabilities ``policy_weights`` (default
    :data:`~agentic_pipeline.demo.policies.DEFAULT_POLICY_WEIGHTS`, normalised); the drawn
    probability is logged as ``propensity``. Task types are uniform unless ``task_weights`` says
    otherwise. With ``retry_share`` > 0, that share of the episodes retries an earlier task of the
    day (same task id, customer and request; the customer came back), rolled out by a policy drawn
    as usual, so the logged propensity stays exact. Repeated tasks are what preference pairs are
    made from.
    """
    if not 0.0 <= retry_share < 1.0:
        raise ValueError(f"retry_share must be in [0, 1), got {retry_share}")
    probs = _normalise(policy_weights, DEFAULT_POLICY_WEIGHTS)
    for pid in probs:
        get_policy(pid)
    tasks = _normalise(task_weights, dict.fromkeys(TASK_TYPES, 1.0))
    day_rng = random.Random(f"agentic-pipeline-sim:{seed}:{day.isoformat()}")
    midnight = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    hours = day_rng.choices(range(24), weights=HOUR_WEIGHTS, k=n)
    offsets = sorted(h * 3600 + day_rng.random() * 3600 for h in hours)
    fake = Faker("en_US")
    fake.seed_instance(day_rng.getrandbits(64))
    pools = Pools(fake, min(max(n, 32), POOL_SIZE))
    task_seeds: list[int] = []  # the day's tasks so far, by the seed that draws them
    for offset in offsets:
        started_at = midnight + dt.timedelta(seconds=int(offset))
        pid = pick(day_rng, probs)
        ep_seed = day_rng.getrandbits(64)
        task_seed = None
        if retry_share and task_seeds and day_rng.random() < retry_share:
            task_seed = task_seeds[day_rng.randrange(len(task_seeds))]
        task_seeds.append(ep_seed if task_seed is None else task_seed)
        yield _run_episode(
            started_at,
            POLICIES[pid],
            round(probs[pid], 6),
            fake,
            pools,
            ep_seed,
            tasks,
            task_seed,
        )
