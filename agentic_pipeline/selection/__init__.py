"""Policy selection per task type: bandit statistics, a linear reward model, off-policy
evaluation, risk guardrails, the champion/challenger decision and the policy registry on disk
(plain Python, no Dagster)."""

from agentic_pipeline.selection.decide import (
    SELECTION_COLUMNS,
    SELECTION_SCHEMA,
    SelectionConfig,
    SelectionResult,
    select_policies,
)
from agentic_pipeline.selection.registry import read_registry, registry_days, write_decision
from agentic_pipeline.selection.report import decision_sentence, render_chart, render_report

__all__ = [
    "SELECTION_COLUMNS",
    "SELECTION_SCHEMA",
    "SelectionConfig",
    "SelectionResult",
    "decision_sentence",
    "read_registry",
    "registry_days",
    "render_chart",
    "render_report",
    "select_policies",
    "write_decision",
]
