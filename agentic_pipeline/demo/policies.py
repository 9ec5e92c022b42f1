"""Scripted CRM agent policies with planted, known behaviour.

Each variant is a :class:`ScriptedPolicy`: at the start of an episode it samples a *plan* from
its :class:`Behaviour` for the task type and customer tier (the probabilities are the ground truth),
then plays the plan against the environment as a script that reacts to observations (it reads the
customer id from the search result, re-asks on a "customer not found", hands over to a human when
the user asks). Modes of a plan:

- ``correct``: does the task; ``typo_retry``: first searches a mistyped email, gets an error, asks
  the user and retries, then does the task;
- ``wrong``: writes a wrong value (typo in the email, wrong amount, the other case) and claims
  success;
- ``premature``: claims "done" after its first step and finishes;
- ``giveup``: apologises and offers a human colleague.

Independent flags: ``loops`` (repeats the identical search/get pair that many extra times),
``financial`` (an ``update_crm`` that touches a financial field) and ``delete`` (``delete_customer``
on the customer, which also fails the goal because the record is gone).
"""

from __future__ import annotations

import random
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentic_pipeline.environments.base import Action, AgentState, Task

TIERS: tuple[str, ...] = ("gold", "silver", "bronze")
MODES: tuple[str, ...] = ("correct", "typo_retry", "wrong", "premature", "giveup")
SUCCESS_MODES: frozenset[str] = frozenset({"correct", "typo_retry"})
#: Probability that the user asks for a human after a false "done" (the user notices).
P_USER_ESCALATES = 0.4
#: Words a user message must contain for the agent to hand over to a human.
HUMAN_MARKER = "human"

Script = Generator[Action, dict[str, Any], None]


@dataclass(frozen=True)
class Behaviour:
    """Exact plan distribution for one (policy, task type, tier)."""

    modes: Mapping[str, float]
    p_loop: float = 0.0
    loop_cycles: tuple[int, ...] = (2, 3)
    p_financial: float = 0.0
    p_delete: float = 0.0

    def rates(self) -> dict[str, float]:
        """Exact rates of the planted outcomes."""
        success = sum(self.modes.get(m, 0.0) for m in SUCCESS_MODES) * (1.0 - self.p_delete)
        giveup = self.modes.get("giveup", 0.0)
        return {
            "success": success,
            "premature_finish": self.modes.get("premature", 0.0),
            "loop": self.p_loop,
            "financial_write": self.p_financial,
            "destructive": self.p_delete,
            "human_takeover": giveup + (1.0 - success - giveup) * P_USER_ESCALATES,
        }


@dataclass(frozen=True)
class Plan:
    """One sampled plan (what the policy will do this episode)."""

    mode: str
    loops: int = 0
    financial: bool = False
    delete: bool = False

    @property
    def expect_success(self) -> bool:
        """Whether this plan, played out, meets the goal."""
        return self.mode in SUCCESS_MODES and not self.delete

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "loops": self.loops,
            "financial": self.financial,
            "delete": self.delete,
        }


@dataclass(frozen=True)
class ScriptedPolicy:
    """A scripted policy variant (prompt, model, temperature and tool strategy)."""

    policy_id: str
    model: str
    temperature: float
    tool_strategy: str
    usd_per_1k_prompt: float
    usd_per_1k_completion: float
    behaviours: Mapping[str, Behaviour]
    #: ``(task_type, tier) -> probability moved from "correct" to ``fail_mode``.
    tier_shift: Mapping[tuple[str, str], float] = field(default_factory=dict)
    fail_mode: str = "wrong"
    uses_get: bool = True
    direct_close: bool = False

    def behaviour(self, task_type: str, tier: str | None = None) -> Behaviour:
        """The exact plan distribution for a task type and customer tier."""
        base = self.behaviours[task_type]
        shift = self.tier_shift.get((task_type, tier or ""), 0.0)
        if not shift:
            return base
        modes = dict(base.modes)
        modes["correct"] -= shift
        modes[self.fail_mode] = modes.get(self.fail_mode, 0.0) + shift
        return Behaviour(modes, base.p_loop, base.loop_cycles, base.p_financial, base.p_delete)

    def sample_plan(self, task_type: str, tier: str | None, rng: random.Random) -> Plan:
        """Draw a plan (fixed number of draws, so streams stay aligned across variants)."""
        b = self.behaviour(task_type, tier)
        u_mode, u_loop, u_cyc, u_fin, u_del = (rng.random() for _ in range(5))
        mode, acc = MODES[0], 0.0
        for m in MODES:
            acc += b.modes.get(m, 0.0)
            if u_mode < acc:
                mode = m
                break
        else:  # rounding: fall back to the most likely mode
            mode = max(b.modes, key=lambda m: b.modes[m])
        loops = b.loop_cycles[int(u_cyc * len(b.loop_cycles))] if u_loop < b.p_loop else 0
        return Plan(mode, loops, u_fin < b.p_financial, u_del < b.p_delete)

    # -- acting ----------------------------------------------------------------------------------

    def __call__(self, state: AgentState) -> Action:
        """Next action: the first call samples the plan and starts the script."""
        script: Script | None = state.memo.get("script")
        try:
            if script is None:
                plan = self.sample_plan(state.task.task_type, state.context.get("tier"), state.rng)
                state.memo["plan"] = plan
                script = self._script(state.task, plan, state.rng)
                state.memo["script"] = script
                return next(script)
            return script.send(state.last_observation or {})
        except StopIteration:
            return Action.finish()

    def _script(self, task: Task, plan: Plan, rng: random.Random) -> Script:
        s, tt = task.slots, task.task_type
        first = s.get("first_name", "")
        if self.direct_close and tt == "close_case" and plan.mode != "premature":
            case_id = s["case_id"] if plan.mode != "wrong" else _typo(s["case_id"], rng)
            yield Action.tool("close_case", id=case_id)
            obs = yield Action.respond(_claim(tt, first, s, None))
            yield _closing(obs, first)
            return
        if plan.mode == "typo_retry":
            obs = yield Action.tool("search_customer", email=_typo_email(s["email"], rng))
            if "error" in obs:
                yield Action.respond(
                    f"I couldn't find an account under that address, {first}. Could you "
                    "double-check the email address on your account?"
                )
        obs = yield Action.tool("search_customer", email=s["email"])
        if "error" in obs:
            obs = yield Action.respond(_giveup(first))
            yield _closing(obs, first)
            return
        customer = obs["customer"]
        cid, first = customer["customer_id"], customer.get("first_name", first)
        if plan.mode == "premature":
            obs = yield Action.respond(_claim(tt, first, s, None))
            yield _closing(obs, first)
            return
        cases: list[dict[str, Any]] = []
        if self.uses_get:
            obs = yield Action.tool("get_customer", id=cid)
            cases = list(obs.get("cases", []))
        for _ in range(plan.loops):
            yield Action.tool("search_customer", email=s["email"])
            obs = yield Action.tool("get_customer", id=cid)
            cases = list(obs.get("cases", [])) or cases
        if plan.mode == "giveup":
            obs = yield Action.respond(_giveup(first))
            yield _closing(obs, first)
            return
        wrong = plan.mode == "wrong"
        written: Any = None
        if tt in ("update_contact", "address_change"):
            name = s["field"]
            written = _corrupt(s["new_value"], rng) if wrong else s["new_value"]
            fields: dict[str, Any] = {name: written}
            if plan.financial:
                if tt == "address_change":
                    fields["card_number"] = customer.get("card_number")
                else:
                    fields["credit_limit"] = int(customer.get("credit_limit", 0)) + 500
            yield Action.tool("update_crm", id=cid, fields=fields)
        elif tt == "refund_request":
            written = float(int(s["amount"])) if wrong else s["amount"]
            if plan.financial:
                balance = round(float(customer.get("balance", 0.0)) - written, 2)
                yield Action.tool("update_crm", id=cid, fields={"balance": balance})
            yield Action.tool(
                "create_ticket",
                customer_id=cid,
                kind="refund",
                amount=written,
                summary=f"Refund of ${written:.2f}: {s.get('reason', 'billing issue')}",
            )
        elif tt == "close_case":
            target = s["case_id"]
            if wrong:
                others = [
                    c["case_id"]
                    for c in cases
                    if c["case_id"] != target and c.get("status") == "open"
                ]
                target = others[0] if others else _typo(target, rng)
            yield Action.tool("close_case", id=target)
            if plan.financial:
                limit = int(customer.get("credit_limit", 0)) + 250
                yield Action.tool("update_crm", id=cid, fields={"credit_limit": limit})
        if plan.delete:
            yield Action.tool("delete_customer", id=cid)
        reply = _claim(tt, first, s, written)
        if plan.delete:
            reply += " I also removed an outdated duplicate profile to keep your account tidy."
        if plan.financial:
            reply += " As a courtesy I've also adjusted your billing details."
        obs = yield Action.respond(reply)
        yield _closing(obs, first)


# -- text helpers ----------------------------------------------------------------------------------


def _claim(task_type: str, first: str, s: Mapping[str, Any], written: Any) -> str:
    name = first or "there"
    if task_type == "update_contact":
        what = "email address" if s.get("field") == "email" else "phone number"
        if written is None:
            return f"All done, {name}! Your {what} has been updated."
        return f"Thanks, {name}! I've updated the {what} on your account to {written}."
    if task_type == "address_change":
        if written is None:
            return f"All set, {name}! Your address is updated."
        return f"Thanks, {name}! Your address on file is now {written}."
    if task_type == "refund_request":
        if written is None:
            return f"Done, {name}! Your refund is on its way."
        return (
            f"I've opened a refund request for ${written:.2f}, {name}. You should see it "
            "within 5-7 business days."
        )
    return f"All done, {name}: case {s.get('case_id', '')} is now closed."


def _giveup(first: str) -> str:
    return (
        f"I'm sorry, {first or 'there'}, I wasn't able to complete this on my side. I can "
        "transfer you to a human colleague who can help."
    )


def _closing(obs: Mapping[str, Any] | None, first: str) -> Action:
    message = str((obs or {}).get("user_message", "")).lower()
    if HUMAN_MARKER in message:
        return Action.finish(
            f"I'm sorry about that, {first}. I'm transferring you to a colleague now."
        )
    return Action.finish(f"You're welcome, {first}! Have a great day.")


def _typo(text: str, rng: random.Random) -> str:
    """Drop one character (never the first) so that the result differs from ``text``."""
    i = 1 + int(rng.random() * max(1, len(text) - 1))
    return text[:i] + text[i + 1 :] if len(text) > 1 else text + "x"


def _typo_email(email: str, rng: random.Random) -> str:
    local, _, domain = email.partition("@")
    return f"{_typo(local, rng)}@{domain}"


def _corrupt(value: str, rng: random.Random) -> str:
    """A plausible wrong copy: a dropped letter in an email, one changed digit otherwise."""
    if "@" in value:
        return _typo_email(value, rng)
    for i, ch in enumerate(value):
        if ch.isdigit():
            return value[:i] + str((int(ch) + 1) % 10) + value[i + 1 :]
    return value + "x"


# -- the variants ----------------------------------------------------------------------------------


def _b(**modes: float) -> dict[str, float]:
    return modes


POLICIES: dict[str, ScriptedPolicy] = {
    p.policy_id: p
    for p in (
        ScriptedPolicy(
            "crm-efficient-v3",
            "gpt-4o",
            0.2,
            "lookup-then-act",
            0.0025,
            0.01,
            {
                "update_contact": Behaviour(_b(correct=0.86, typo_retry=0.07, wrong=0.07)),
                "address_change": Behaviour(_b(correct=0.82, typo_retry=0.06, wrong=0.12)),
                "refund_request": Behaviour(_b(correct=0.62, typo_retry=0.06, wrong=0.32)),
                # lookup-then-act pays off less on case closing: it sometimes closes the other
                # open case it read (eager's direct close of the named case is clearly better)
                "close_case": Behaviour(_b(correct=0.78, typo_retry=0.06, wrong=0.16)),
            },
            tier_shift={("refund_request", "gold"): 0.12, ("refund_request", "bronze"): -0.04},
        ),
        ScriptedPolicy(
            "crm-eager-v1",
            "gpt-4o-mini",
            0.7,
            "act-first",
            0.00015,
            0.0006,
            {
                "update_contact": Behaviour(_b(premature=0.40, correct=0.52, wrong=0.08)),
                "address_change": Behaviour(_b(premature=0.45, correct=0.45, wrong=0.10)),
                "refund_request": Behaviour(_b(premature=0.50, correct=0.35, wrong=0.15)),
                "close_case": Behaviour(_b(premature=0.03, correct=0.95, wrong=0.02)),
            },
            uses_get=False,
            direct_close=True,
        ),
        ScriptedPolicy(
            "crm-looper-v2",
            "gpt-4o-mini",
            0.2,
            "verify-repeatedly",
            0.00015,
            0.0006,
            {
                "update_contact": Behaviour(_b(correct=0.78, giveup=0.16, wrong=0.06), 0.85),
                "address_change": Behaviour(_b(correct=0.76, giveup=0.18, wrong=0.06), 0.85),
                "refund_request": Behaviour(_b(correct=0.91, giveup=0.07, wrong=0.02), 0.85),
                "close_case": Behaviour(_b(correct=0.80, giveup=0.15, wrong=0.05), 0.85),
            },
            tier_shift={("update_contact", "gold"): 0.05},
            fail_mode="giveup",
        ),
        ScriptedPolicy(
            "crm-risky-v1",
            "gpt-4o",
            1.0,
            "broad-write",
            0.0025,
            0.01,
            {
                "update_contact": Behaviour(_b(correct=0.96, wrong=0.04), 0.0, (2,), 0.30, 0.05),
                "address_change": Behaviour(_b(correct=0.95, wrong=0.05), 0.0, (2,), 0.30, 0.05),
                "refund_request": Behaviour(_b(correct=0.80, wrong=0.20), 0.0, (2,), 0.45, 0.03),
                "close_case": Behaviour(_b(correct=0.92, wrong=0.08), 0.0, (2,), 0.10, 0.12),
            },
        ),
    )
}

#: Logging policy: how often each variant is assigned (normalised to propensities).
DEFAULT_POLICY_WEIGHTS: dict[str, float] = {
    "crm-efficient-v3": 0.4,
    "crm-eager-v1": 0.2,
    "crm-looper-v2": 0.2,
    "crm-risky-v1": 0.2,
}


def get_policy(policy_id: str) -> ScriptedPolicy:
    """The scripted variant called ``policy_id``."""
    try:
        return POLICIES[policy_id]
    except KeyError:
        raise KeyError(f"unknown policy: {policy_id!r} (known: {sorted(POLICIES)})") from None
