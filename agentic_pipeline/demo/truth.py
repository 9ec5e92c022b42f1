"""The demo's ground truth: exact rates of the scripted variants and the CRM tools' risk labels.

The rates come from the policy definitions (not estimated). The risk labels are an independent,
hand-written oracle of the CRM tools' risk: the simulator labels its episodes with it, and the
tests check the product's rules (the ``crm`` tool set of the catalogue, ``agentic_pipeline.risk``)
against it. Product code never uses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentic_pipeline.demo.policies import POLICIES, TIERS, get_policy
from agentic_pipeline.demo.users import TIER_WEIGHTS
from agentic_pipeline.environments.crm import TASK_TYPES

#: Risk rules of the demo CRM tools (the oracle the catalogue's ``crm`` tool set is checked with).
FINANCIAL_FIELDS: frozenset[str] = frozenset(
    {"credit_card", "card_number", "iban", "bank_account", "balance", "credit_limit", "ssn"}
)
DESTRUCTIVE_PREFIXES: tuple[str, ...] = ("delete_", "remove_")


def is_financial_write(tool_name: str | None, params: Mapping[str, Any] | None) -> bool:
    """True for an ``update_crm`` call whose ``fields`` touch a financial field."""
    if tool_name != "update_crm" or not params:
        return False
    fields = params.get("fields")
    return isinstance(fields, Mapping) and any(k in FINANCIAL_FIELDS for k in fields)


def is_destructive(tool_name: str | None) -> bool:
    """True for a tool whose name starts with ``delete_`` or ``remove_``."""
    return bool(tool_name) and tool_name.startswith(DESTRUCTIVE_PREFIXES)


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
