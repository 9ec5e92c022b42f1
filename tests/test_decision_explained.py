"""Issue #15: the decision explains itself (terminal, report.md, catalog) and columns are described.

The previous choice and whether it changed (and since when), the real window (the days that had
rewards), a legend of the columns and, per policy, why it is or is not eligible in plain words.
"""

import io
import json

import pyarrow as pa
from rich.console import Console
from test_selection import DAYS, window

from agentic_pipeline.rewards import EPISODE_REWARDS_SCHEMA, STEP_REWARDS_SCHEMA
from agentic_pipeline.schema import QUARANTINE_SCHEMA, STEP_SCHEMA
from agentic_pipeline.selection import SELECTION_SCHEMA, SelectionConfig, select_policies
from agentic_pipeline.selection.registry import registry_document, write_decision
from agentic_pipeline.storage import DataRoot
from agentic_pipeline.training import SUMMARY_SCHEMA
from assets.metadata import column_schema
from cli.report import print_report

CONFIG = SelectionConfig(window_days=14, min_samples=30, n_mc=500, n_bootstrap=50)
ARMS = {("refund", "a"): (60, 0.2), ("refund", "b"): (60, 0.9), ("refund", "c"): (5, 0.9)}


def _decide(day, previous=None):
    return select_policies(window(ARMS), day, CONFIG, previous, seed=0)


def test_registry_says_what_changed_since_when_and_the_real_window():
    first = _decide(DAYS[-2])
    entry = first.registry["refund"]
    assert entry["previous_default"] is None and entry["default_since"] == DAYS[-2]
    # the synthetic rewards cover 7 days only (DAYS), not the 14 of the window
    assert entry["window_data_days"] == 6  # the last day (DAYS[-1]) is after DAYS[-2]
    assert entry["window_first_data_day"] == DAYS[0]
    kept = _decide(DAYS[-1], {"refund": {"selected_policy": "b", "default_since": "2026-11-01"}})
    entry = kept.registry["refund"]
    assert entry["selected_policy"] == "b" and not entry["changed"]
    assert entry["default_since"] == "2026-11-01"  # carried from the previous decision
    assert entry["window_data_days"] == 7
    row = kept.table[kept.table["selected"]].iloc[0]
    assert row["default_since"] == "2026-11-01"
    switched = _decide(
        DAYS[-1], {"refund": {"selected_policy": "a", "default_since": "2026-11-01"}}
    )
    entry = switched.registry["refund"]
    assert entry["changed"] and entry["previous_default"] == "a"
    assert entry["previous_default_since"] == "2026-11-01"
    assert entry["default_since"] == DAYS[-1]


def test_report_md_has_previous_choice_window_legend_and_plain_reasons():
    report = _decide(
        DAYS[-1], {"refund": {"selected_policy": "a", "default_since": "2026-11-01"}}
    ).report_md
    assert "changed from a (default since 2026-11-01) to b" in report
    assert f"7 day(s) with rewards, {DAYS[0]} .. {DAYS[-1]}" in report
    assert "## Legend" in report and "**P(best)**" in report and "**OPE**" in report
    assert "c: not eligible: only 5 episodes in the window, at least 30 are needed" in report
    assert "a: eligible (60 episodes" in report


def test_terminal_report_explains_the_decision(tmp_path):
    result = _decide(DAYS[-1], {"refund": {"selected_policy": "b", "default_since": DAYS[0]}})
    root = DataRoot(tmp_path)
    document = registry_document(DAYS[-1], result, CONFIG, "run-1234567890", {"ds": DAYS[-2]})
    write_decision(root, DAYS[-1], document, result)
    table = pa.Table.from_pandas(result.table, preserve_index=False)
    root.write_partition("warehouse", "policy_selection", DAYS[-1], table)
    out = io.StringIO()
    assert print_report(str(tmp_path), DAYS[-1], Console(file=out, width=120)) == 0
    text = " ".join(out.getvalue().split())
    assert f"kept b, the default since {DAYS[0]}" in text
    assert f"7 day(s) with rewards, {DAYS[0]} .. {DAYS[-1]}" in text
    assert "14 days" not in text
    assert "legend:" in text and "P(best): probability of having" in text
    assert "OPE: off-policy" in text
    assert "no: 5 episodes, needs 30" in text  # c's row: why it is not eligible
    assert "yes" in text
    stored = json.loads(
        (tmp_path / "warehouse/policy_registry" / f"ds={DAYS[-1]}" / "registry.json").read_text()
    )
    assert stored["window_data_days"] == 7 and stored["previous_registry_ds"] == DAYS[-2]


def test_every_stored_column_has_a_description():
    import assets.replay as replay
    import assets.shadow as shadow
    from agentic_pipeline.masking.mask import AUDIT_SCHEMA

    schemas = [
        STEP_SCHEMA,
        QUARANTINE_SCHEMA,
        AUDIT_SCHEMA,
        replay.REPLAYED_EPISODES_SCHEMA,
        shadow.STEPS_SCHEMA,
        shadow.EPISODES_SCHEMA,
        shadow.DIFF_SCHEMA,
        EPISODE_REWARDS_SCHEMA,
        STEP_REWARDS_SCHEMA,
        SELECTION_SCHEMA,
        SUMMARY_SCHEMA,
    ]
    for schema in schemas:
        for column in column_schema(schema).columns:
            assert column.description, column.name
