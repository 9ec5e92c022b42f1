"""Shadow runs and behaviour diffs: judge a change of agent before it touches production.

- :mod:`~agentic_pipeline.shadow.diff`: the behaviour diff between any two policies from their
  logs alone (action distribution and divergence, tool use, steps, errors, risky writes, success,
  reward, latency and cost), with bootstrap intervals, paired by task where tasks match;
- :mod:`~agentic_pipeline.shadow.aligned`: the step-aligned shadow of a candidate model behind an
  OpenAI-compatible endpoint: at every logged decision point it proposes the next action, which
  is compared with the logged one and answered only by hermetic replay;
- :mod:`~agentic_pipeline.shadow.budget`: its quota and kill switch;
- :mod:`~agentic_pipeline.shadow.decisions`: decision points and the comparison of actions;
- :mod:`~agentic_pipeline.shadow.tables`: the stored tables, headline figures, leak scan, chart.
"""

from agentic_pipeline.shadow.aligned import (
    DEFAULT_SYSTEM_PROMPT,
    Candidate,
    ShadowResult,
    ShadowSettings,
    StepAlignedShadow,
)
from agentic_pipeline.shadow.budget import BudgetMeter, ShadowBudget, ShadowStopped
from agentic_pipeline.shadow.decisions import (
    ActionView,
    Comparison,
    DecisionPoint,
    compare,
    decision_points,
    trim_history,
)
from agentic_pipeline.shadow.diff import (
    DIFF_SCHEMA,
    METRICS,
    DiffSettings,
    behaviour_diff,
    describe_shift,
    largest_shifts,
)
from agentic_pipeline.shadow.tables import (
    EPISODES_SCHEMA,
    REDACTED,
    STEPS_SCHEMA,
    agreement_by_tool,
    confusion,
    diff_chart,
    episodes_table,
    first_divergence_counts,
    headline,
    redact_leaks,
    shadow_chart,
    steps_table,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "DIFF_SCHEMA",
    "EPISODES_SCHEMA",
    "METRICS",
    "REDACTED",
    "STEPS_SCHEMA",
    "ActionView",
    "BudgetMeter",
    "Candidate",
    "Comparison",
    "DecisionPoint",
    "DiffSettings",
    "ShadowBudget",
    "ShadowResult",
    "ShadowSettings",
    "ShadowStopped",
    "StepAlignedShadow",
    "agreement_by_tool",
    "behaviour_diff",
    "compare",
    "confusion",
    "decision_points",
    "describe_shift",
    "diff_chart",
    "episodes_table",
    "first_divergence_counts",
    "headline",
    "largest_shifts",
    "redact_leaks",
    "shadow_chart",
    "steps_table",
    "trim_history",
]
