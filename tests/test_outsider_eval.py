"""The masking evaluation's own measurements (issue #12 point 8): the developer dump of missed
values and over-masked words, the date metrics and the independence of the multi-locale corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from agentic_pipeline.masking.evaluation import masked_words, missed_values, plain_text

DS = "2026-11-20"


def _table(rows: list[tuple[str, int, str, str | None]]) -> pa.Table:
    """(episode, step, content, tool_arguments) rows, the columns the measurements read."""
    return pa.Table.from_pylist(
        [{"episode_id": e, "step": s, "content": c, "tool_arguments": a} for e, s, c, a in rows]
    )


def test_missed_values_reports_each_leaked_value_with_its_context():
    raw = _table(
        [
            ("e1", 0, "Hello, this is Csanád Bernharðsson, call 96 466712.", None),
            ("e1", 1, "ok", json.dumps({"note": "write to ann@x.org"})),
        ]
    )
    masked = _table(
        [
            ("e1", 0, "Hello, this is <PERSON_0a1b2c3d> Bernharðsson, call 96 466712.", None),
            ("e1", 1, "ok", json.dumps({"note": "write to <EMAIL_ADDRESS_1a2b3c4d>"})),
        ]
    )
    planted = {
        "e1": {
            ("PERSON", "Csanád"),
            ("PERSON", "Bernharðsson"),
            ("PHONE_NUMBER", "96 466712"),
            ("EMAIL_ADDRESS", "ann@x.org"),
        }
    }
    misses = missed_values(raw, masked, planted)
    assert set(misses) == {"PERSON", "PHONE_NUMBER"}
    [(eid, value, ctx)] = misses["PERSON"]
    assert (eid, value) == ("e1", "Bernharðsson")
    assert "<PERSON_0a1b2c3d> [[Bernharðsson]]" in ctx
    assert misses["PHONE_NUMBER"][0][1] == "96 466712"


def test_masked_words_names_the_token_type_of_each_overmasked_word():
    raw = _table(
        [
            ("e1", 0, "Please modify the cabin for Ann Lee.", None),
            ("e1", 1, None, json.dumps({"reason": "Orchestra seats", "first_name": "Zoe"})),
        ]
    )
    # plain Presidio's tokens carry no hash; both forms are recognised
    masked = _table(
        [
            ("e1", 0, "Please <PERSON_00000000> the cabin for <PERSON> <PERSON>.", None),
            ("e1", 1, None, json.dumps({"reason": "<LOCATION> seats", "first_name": "<PERSON>"})),
        ]
    )
    planted = {"e1": {("PERSON", "Ann"), ("PERSON", "Lee")}}
    words = masked_words(raw, masked, planted)
    # "Zoe" is personal by its key though not planted; "cabin" and "seats" stayed
    assert words == {("modify", "PERSON"): 1, ("orchestra", "LOCATION"): 1}


def test_plain_text_decodes_json_leaves():
    assert plain_text(json.dumps({"a": ["Straße 3"], "b": 2}, ensure_ascii=True)) == "Straße 3"
    assert plain_text("{not json") == "{not json"


def test_evaluation_module_does_not_import_the_simulator():
    """Product code measures corpora handed to it; the demo simulator is the caller's business."""
    import ast

    import agentic_pipeline.masking.evaluation as evaluation

    tree = ast.parse(Path(evaluation.__file__).read_text())
    imported = [
        n.module if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    ]
    assert not [m for m in imported if m and "simulator" in m], imported
