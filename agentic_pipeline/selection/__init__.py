"""Policy selection per task type: bandit statistics, a linear reward model, off-policy
evaluation, risk guardrails and the champion/challenger decision (plain Python, no Dagster)."""

from agentic_pipeline.selection.decide import (
    SELECTION_COLUMNS,
    SELECTION_SCHEMA,
    SelectionConfig,
    SelectionResult,
    select_policies,
)
from agentic_pipeline.selection.report import decision_sentence, render_chart, render_report

__all__ = [
    "SELECTION_COLUMNS",
    "SELECTION_SCHEMA",
    "SelectionConfig",
    "SelectionResult",
    "decision_sentence",
    "render_chart",
    "render_report",
    "select_policies",
]
