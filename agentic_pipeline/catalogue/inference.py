"""Effect classes of tools the catalogue does not list, inferred from their names and arguments.

The name is split into words (``snake_case``, ``kebab-case``, ``dotted.names``, ``camelCase``).
A hand-over wins (``transfer_to_human_agents``, ``escalate``); then the first word is read as a
verb: ``get``/``search``/``list``... are reads, ``delete``/``cancel``/``remove``... destructive,
``refund``/``pay``/``charge``... financial, ``create``/``update``/``book``... writes. A write whose
other words or argument names speak of money (``refund``, ``payment``, ``amount``...) is financial.
A name that says nothing is a ``write``: the conservative reading for risk and replay.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

HANDOVER_WORDS = frozenset({"escalate", "handoff", "handover"})
HUMAN_WORDS = frozenset({"human", "humans", "agent", "agents", "operator", "person"})
READ_VERBS = frozenset(
    {
        "get", "search", "list", "find", "lookup", "look", "fetch", "read", "query", "check",
        "view", "show", "describe", "calculate", "compute", "count", "think", "retrieve",
        "validate", "verify", "estimate", "inspect", "browse", "load", "download", "is", "has",
        "can", "preview", "quote", "summarize", "explain", "recommend",
    }
)  # fmt: skip
DESTRUCTIVE_VERBS = frozenset(
    {
        "delete", "remove", "cancel", "void", "revoke", "purge", "destroy", "erase", "wipe",
        "terminate", "drop", "deactivate", "disable", "unsubscribe", "truncate", "archive",
    }
)  # fmt: skip
FINANCIAL_VERBS = frozenset(
    {
        "refund", "pay", "charge", "transfer", "withdraw", "deposit", "credit", "debit",
        "payout", "reimburse", "compensate", "purchase", "buy", "bill", "invoice", "tip",
    }
)  # fmt: skip
FINANCIAL_WORDS = frozenset(
    {
        "refund", "refunds", "payment", "payments", "pay", "charge", "money", "certificate",
        "voucher", "compensation", "balance", "credit", "card", "invoice", "payout", "wire",
        "iban", "funds", "gift", "wallet",
    }
)  # fmt: skip
#: Argument names that make an inferred write financial.
FINANCIAL_ARGUMENTS = frozenset(
    {
        "amount", "price", "refund", "refund_amount", "payment_method", "payment_method_id",
        "payment_id", "credit_card", "card_number", "iban", "bank_account", "balance",
        "credit_limit", "currency", "total",
    }
)  # fmt: skip

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> list[str]:
    """``cancelPendingOrder`` / ``cancel_pending-order`` -> ``["cancel", "pending", "order"]``."""
    return [w for w in re.split(r"[^a-z0-9]+", _CAMEL.sub("_", name).lower()) if w]


def infer_effect(name: str, argument_names: Iterable[str] = ()) -> str:
    """The effect class of a tool from its name and argument (or schema property) names."""
    words = name_words(name)
    if not words:
        return "write"
    verb, rest = words[0], set(words[1:])
    if verb in HANDOVER_WORDS or (verb in {"transfer", "handoff", "route"} and rest & HUMAN_WORDS):
        return "handover"
    if verb in READ_VERBS:
        return "read"
    if verb in DESTRUCTIVE_VERBS:
        return "destructive"
    if verb in FINANCIAL_VERBS:
        return "financial"
    if rest & FINANCIAL_WORDS or set(argument_names) & FINANCIAL_ARGUMENTS:
        return "financial"
    return "write"
