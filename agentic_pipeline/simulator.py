"""The built-in CRM demo data: simulated agent episodes, rolled out for real.

Each episode draws a Faker-made customer, a task of one of :data:`TASK_TYPES`, a policy variant (at
random, with a logged ``propensity``) and plays the policy against a :class:`CRMSandbox` and a
simulated user. The rollout is logged in both line formats (episode JSONL in
the OpenAI chat format, and transition JSONL). Everything is derived from ``seed`` through private
``random.Random`` streams, so the same arguments give byte-identical files.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import os
import random
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faker import Faker

from agentic_pipeline.environments.base import Action, AgentState, Task
from agentic_pipeline.environments.crm import (
    CRM_TOOLS,
    TASK_TYPES,
    CRMSandbox,
    is_destructive,
    is_financial_write,
)
from agentic_pipeline.policies import (
    DEFAULT_POLICY_WEIGHTS,
    HUMAN_MARKER,
    P_USER_ESCALATES,
    POLICIES,
    TIERS,
    ScriptedPolicy,
    get_policy,
)

#: Customer tiers in the simulated population.
TIER_WEIGHTS: dict[str, float] = {"gold": 0.2, "silver": 0.3, "bronze": 0.5}
CHANNEL_WEIGHTS: dict[str, float] = {"chat": 0.7, "email": 0.3}
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


# -- people and tasks ------------------------------------------------------------------------------


def _pick(rng: random.Random, weights: Mapping[str, float]) -> str:
    u, acc = rng.random() * sum(weights.values()), 0.0
    for key, w in weights.items():
        acc += w
        if u < acc:
            return key
    return next(reversed(list(weights)))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower()) or "user"


class _Pools:
    """Faker values that are slow to draw, drawn once per day and then sampled per episode."""

    def __init__(self, fake: Faker, size: int) -> None:
        self.first = [fake.first_name() for _ in range(size)]
        self.last = [fake.last_name() for _ in range(size)]
        self.street = [fake.street_address() for _ in range(size)]
        self.city = [fake.city() for _ in range(size)]


def _make_customer(fake: Faker, pools: _Pools, rng: random.Random) -> dict[str, Any]:
    first, last = rng.choice(pools.first), rng.choice(pools.last)
    tier = _pick(rng, TIER_WEIGHTS)
    sep = rng.choice((".", "_", ""))
    digits = str(rng.randint(1, 99)) if rng.random() < 0.4 else ""
    email = f"{_slug(first)}{sep}{_slug(last)}{digits}@{fake.free_email_domain()}"
    return {
        "customer_id": f"cus_{rng.getrandbits(32):08x}",
        "first_name": first,
        "last_name": last,
        "email": email,
        "phone": fake.phone_number(),
        "address": _address(fake, pools, rng),
        "dob": fake.date_of_birth(minimum_age=18, maximum_age=85).isoformat(),
        "card_number": fake.credit_card_number(card_type=rng.choice(("visa16", "mastercard"))),
        "tier": tier,
        "credit_limit": {"gold": 10000, "silver": 5000, "bronze": 2000}[tier],
        "balance": round(rng.uniform(0, 1500), 2),
    }


def _address(fake: Faker, pools: _Pools, rng: random.Random) -> str:
    street, city = rng.choice(pools.street), rng.choice(pools.city)
    return f"{street}, {city}, {fake.state_abbr()} {fake.postcode()}"


def _greeting(channel: str, rng: random.Random) -> str:
    if channel == "email":
        return rng.choice(("Dear Acme support,\n\n", "Hello,\n\n", "To whom it may concern,\n\n"))
    return rng.choice(("Hi, ", "Hello! ", "hey, ", "Good morning, "))


def _signoff(c: Mapping[str, Any], channel: str, rng: random.Random) -> str:
    name = f"{c['first_name']} {c['last_name']}"
    if channel == "email":
        return f"\n\nBest regards,\n{name}\n{c['phone']}"
    return "" if rng.random() < 0.5 else " Thanks!"


def _make_task(
    task_type: str,
    c: dict[str, Any],
    channel: str,
    fake: Faker,
    pools: _Pools,
    rng: random.Random,
) -> tuple[Task, dict[str, Any], dict[str, dict[str, Any]]]:
    """The task, the new personal values it introduces, and the customer's cases."""
    name = f"{c['first_name']} {c['last_name']}"
    hi, bye = _greeting(channel, rng), _signoff(c, channel, rng)
    me = rng.choice((f"this is {name}", f"my name is {name}", f"{name} here"))
    slots: dict[str, Any] = {"email": c["email"], "first_name": c["first_name"]}
    extra: dict[str, Any] = {}
    cases: dict[str, dict[str, Any]] = {}
    if task_type == "update_contact":
        if rng.random() < 0.5:
            new = f"{_slug(c['first_name'])[0]}{_slug(c['last_name'])}{rng.randint(10, 999)}"
            new = f"{new}@{fake.free_email_domain()}"
            field_name, extra["new_email"] = "email", new
            text = (
                f"{hi}{me}. Please change the email on my account from {c['email']} to {new}. "
                f"My phone is {c['phone']} if you need to verify.{bye}"
            )
        else:
            new = fake.phone_number()
            while new == c["phone"]:
                new = fake.phone_number()
            field_name, extra["new_phone"] = "phone", new
            text = (
                f"{hi}{me} ({c['email']}). I got a new phone number, it's {new} - my old one "
                f"was {c['phone']}. Can you update it?{bye}"
            )
        goal = {"customer_id": c["customer_id"], "fields": {field_name: new}}
        slots.update(field=field_name, new_value=new)
    elif task_type == "address_change":
        new = _address(fake, pools, rng)
        while new == c["address"]:
            new = _address(fake, pools, rng)
        extra["new_address"] = new
        text = (
            f"{hi}{me}, email {c['email']}. I moved from {c['address']} to {new}, please "
            f"update my address. Date of birth {c['dob']} for verification.{bye}"
        )
        goal = {"customer_id": c["customer_id"], "fields": {"address": new}}
        slots.update(field="address", new_value=new)
    elif task_type == "refund_request":
        amount = round(rng.uniform(5, 400), 2)
        if round(amount * 100) % 100 == 0:
            amount = round(amount + 0.37, 2)
        reason = rng.choice(
            (
                "I was charged twice for the same order",
                f"order #{rng.randint(100000, 999999)} was cancelled but never refunded",
                "the item arrived damaged and I sent it back",
            )
        )
        card = (
            f"my card {c['card_number']}"
            if rng.random() < 0.3
            else f"my card ending in {c['card_number'][-4:]}"
        )
        text = (
            f"{hi}{me} ({c['email']}). {reason.capitalize()}: ${amount:.2f} was taken from "
            f"{card}. I'd like a refund please.{bye}"
        )
        extra["amount"] = amount
        goal = {"customer_id": c["customer_id"], "ticket": {"kind": "refund", "amount": amount}}
        slots.update(amount=amount, reason=reason)
    elif task_type == "close_case":
        subjects = [
            "delivery delay",
            "login problem",
            "billing question",
            "damaged parcel",
            "password reset",
            "invoice copy",
        ]
        rng.shuffle(subjects)
        ids = [f"case_{rng.getrandbits(24):06x}" for _ in range(2)]
        if ids[0] == ids[1]:
            ids[1] = ids[1][:-1] + ("0" if ids[1][-1] != "0" else "1")
        for case_id, subject in zip(ids, subjects[:2], strict=True):
            cases[case_id] = {
                "case_id": case_id,
                "customer_id": c["customer_id"],
                "subject": subject,
                "status": "open",
            }
        target = ids[0]
        text = (
            f"{hi}{me}, {c['email']}. My {subjects[0]} issue ({target}) is sorted now, you "
            f"can close the case. You can reach me at {c['phone']}.{bye}"
        )
        extra["case_id"] = target
        goal = {"customer_id": c["customer_id"], "case_id": target}
        slots.update(case_id=target)
    else:
        raise ValueError(f"unknown task type: {task_type!r}")
    task_id = f"task_{task_type}_{rng.getrandbits(32):08x}"
    return Task(task_id, task_type, text, goal, slots), extra, cases


class SimulatedUser:
    """Answers the agent's replies like a customer would."""

    def __init__(self, customer: Mapping[str, Any], channel: str, rng: random.Random) -> None:
        self.customer, self.channel, self.rng = customer, channel, rng

    def __call__(self, reply: str, env: CRMSandbox) -> str:
        rng, low = self.rng, reply.lower()
        if "double-check" in low:
            return rng.choice(
                ("Sorry, it should be {e}.", "It's {e}, I just checked.", "Hmm, my email is {e}")
            ).format(e=self.customer["email"])
        if "human colleague" in low:
            return rng.choice(
                ("Yes please, I'd like to talk to a human.", "Please transfer me to a human agent.")
            )
        if env.goal_met() or rng.random() >= P_USER_ESCALATES:
            return rng.choice(("Great, thank you!", "Perfect, thanks.", "Thanks a lot!", "ok thx"))
        return rng.choice(
            (
                "That doesn't look right, my account still shows the old details. Can I speak to "
                "a human?",
                "Hm, nothing changed on my side. I want to talk to a human please.",
            )
        )


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
    pools: _Pools,
    ep_seed: int,
    task_weights: Mapping[str, float],
    task_seed: int | None = None,
) -> SimulatedEpisode:
    rng = random.Random(ep_seed)
    # a retry re-draws the task of an earlier episode (same customer, channel and task id)
    task_rng = rng if task_seed is None else random.Random(task_seed)
    fake.seed_instance(task_rng.getrandbits(64))
    customer = _make_customer(fake, pools, task_rng)
    channel = _pick(task_rng, CHANNEL_WEIGHTS)
    task_type = _pick(task_rng, task_weights)
    task, extra, cases = _make_task(task_type, customer, channel, fake, pools, task_rng)
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
        {"role": "system", "content": system},
        {"role": "user", "content": task.description},
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
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": action.tool_name, "arguments": out_text},
                        }
                    ],
                }
            )
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "name": action.tool_name,
                    "content": obs_text,
                }
            )
            financial += is_financial_write(action.tool_name, action.params)
            destructive += is_destructive(action.tool_name)
            completion = _tokens(len(out_text)) + 12
            tool_ms = rng.uniform(30, 180)
        else:
            out_text = action.reply or ""
            obs_text = str(obs.get("user_message", ""))
            if out_text:
                messages.append({"role": "assistant", "content": out_text})
            if action.type == "respond":
                messages.append({"role": "user", "content": obs_text})
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
    :data:`~agentic_pipeline.policies.DEFAULT_POLICY_WEIGHTS`, normalised); the drawn probability
    is logged as ``propensity``. Task types are uniform unless ``task_weights`` says otherwise.
    With ``retry_share`` > 0, that share of the episodes retries an earlier task of the day (same
    task id, customer and request; the customer came back), rolled out by a policy drawn as usual,
    so the logged propensity stays exact. Repeated tasks are what preference pairs are made from.
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
    pools = _Pools(fake, min(max(n, 32), POOL_SIZE))
    task_seeds: list[int] = []  # the day's tasks so far, by the seed that draws them
    for offset in offsets:
        started_at = midnight + dt.timedelta(seconds=int(offset))
        pid = _pick(day_rng, probs)
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


def _dump_line(obj: Mapping[str, Any]) -> bytes:
    return (_DUMPS(obj) + "\n").encode("utf-8")


#: share of the landing files' episodes that retry an earlier task of the day (customers come
#: back; a ticket is re-opened and handled again), as real products log them
RETRY_SHARE = 0.2


def write_landing(
    root: Path,
    start: dt.date,
    days: int,
    episodes_per_day: int,
    seed: int = 0,
    transition_share: float = 0.3,
    policy_weights: Mapping[str, float] | None = None,
    retry_share: float = RETRY_SHARE,
) -> dict[str, Any]:
    """Simulate ``days`` days into ``root/landing/YYYY-MM-DD/`` and return a summary.

    Each day gets ``episodes-000.jsonl.gz`` (episode JSONL, gzip with mtime 0) and
    ``transitions-000.jsonl`` (about ``transition_share`` of the episodes, one step per line).
    Files are streamed and renamed into place atomically; same arguments, same bytes.
    """
    root = Path(root)
    summary: dict[str, Any] = {
        "root": str(root),
        "seed": seed,
        "days": [],
        "files": [],
        "episodes": 0,
    }
    for d in range(days):
        day = start + dt.timedelta(days=d)
        folder = root / "landing" / day.isoformat()
        folder.mkdir(parents=True, exist_ok=True)
        ep_path, tr_path = folder / "episodes-000.jsonl.gz", folder / "transitions-000.jsonl"
        ep_tmp, tr_tmp = folder / f".{ep_path.name}.tmp", folder / f".{tr_path.name}.tmp"
        fmt_rng = random.Random(f"agentic-pipeline-format:{seed}:{day.isoformat()}")
        counts = {"episode_format": 0, "transition_format": 0, "transition_lines": 0}
        with open(ep_tmp, "wb") as raw, open(tr_tmp, "wb") as tr_out:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as gz:
                episodes = generate_episodes(
                    day, episodes_per_day, seed, policy_weights, retry_share=retry_share
                )
                for ep in episodes:
                    if fmt_rng.random() < transition_share:
                        tr_out.writelines(_dump_line(t) for t in ep.transitions)
                        counts["transition_format"] += 1
                        counts["transition_lines"] += len(ep.transitions)
                    else:
                        gz.write(_dump_line(ep.record))
                        counts["episode_format"] += 1
        files = []
        for tmp, final, count in (
            (ep_tmp, ep_path, counts["episode_format"]),
            (tr_tmp, tr_path, counts["transition_format"]),
        ):
            if count:
                os.replace(tmp, final)
                files.append(str(final))
            else:
                tmp.unlink()
                final.unlink(missing_ok=True)
        summary["days"].append(
            {"date": day.isoformat(), "episodes": episodes_per_day, **counts, "files": files}
        )
        summary["files"].extend(files)
        summary["episodes"] += episodes_per_day
    return summary


# -- ground truth ----------------------------------------------------------------------------------

METRICS: tuple[str, ...] = (
    "success",
    "premature_finish",
    "loop",
    "financial_write",
    "destructive",
    "human_takeover",
)


def true_rates(policy_id: str, task_type: str, tier: str | None = None) -> dict[str, float]:
    """Exact rates of a variant on a task type: for one tier, or mixed over :data:`TIER_WEIGHTS`."""
    policy = get_policy(policy_id)
    if tier is not None:
        return policy.behaviour(task_type, tier).rates()
    total = sum(TIER_WEIGHTS.values())
    out = dict.fromkeys(METRICS, 0.0)
    for t in TIERS:
        for k, v in policy.behaviour(task_type, t).rates().items():
            out[k] += v * TIER_WEIGHTS[t] / total
    return out


def ground_truth(by_tier: bool = False) -> dict[str, dict[str, Any]]:
    """Exact truth per variant and task type, from the policy definitions (not estimated).

    ``{policy_id: {task_type: {"success", "premature_finish", "loop", "financial_write",
    "destructive", "human_takeover"}}}``; with ``by_tier`` one more level ``{tier: {...}}``.
    ``financial_write``/``destructive`` are the probabilities of at least one such act
    (the scripted variants do at most one). ``success`` is also the expected logged reward.
    """
    if by_tier:
        return {
            p: {tt: {t: true_rates(p, tt, t) for t in TIERS} for tt in TASK_TYPES} for p in POLICIES
        }
    return {p: {tt: true_rates(p, tt) for tt in TASK_TYPES} for p in POLICIES}


def best_policy_by_task(metric: str = "success") -> dict[str, str]:
    """The variant with the highest true ``metric`` per task type."""
    truth = ground_truth()
    return {tt: max(POLICIES, key=lambda p: truth[p][tt][metric]) for tt in TASK_TYPES}
