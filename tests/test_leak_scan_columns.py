"""The leak scan covers every string column, not only the masked ones (issue 11.3)."""

import pyarrow as pa

from agentic_pipeline.masking import scan_for_leaks
from agentic_pipeline.masking.pseudonyms import TOKEN_HEX_CHARS  # noqa: E402
from agentic_pipeline.masking.scan import string_columns

_PAD = "0" * (TOKEN_HEX_CHARS - 8)  # test tokens: 8 digits written, padded to the width


def _table(**overrides) -> pa.Table:
    row = {
        "episode_id": "ep-1",
        "content": f"<PERSON_0123abcd{_PAD}> asked for a refund",
        "source_file": "episodes-000.jsonl.gz",
        "started_at": "2026-11-28T10:15:00Z",
        "ts": None,
        "step": 3,
        "cost_usd": 0.25,
    }
    row.update(overrides)
    return pa.Table.from_pylist([row])


def test_clean_table_has_no_leak():
    assert scan_for_leaks(_table()) == []


def test_personal_data_in_lineage_and_timestamp_columns_is_found():
    leaky = _table(
        source_file="export-jane.doe@example.com.jsonl",
        started_at="call +1 415 555 0134",
        ts="jane.doe@example.com",
    )
    found = {(leak.column, leak.entity_type) for leak in scan_for_leaks(leaky)}
    assert ("source_file", "EMAIL_ADDRESS") in found
    assert ("ts", "EMAIL_ADDRESS") in found
    assert any(col == "started_at" for col, _ in found)


def test_string_columns_skip_numbers():
    assert string_columns(_table()) == ["episode_id", "content", "source_file", "started_at"]
    assert "ts" not in string_columns(_table())  # an all-null column has no text type


def test_known_values_are_searched_in_every_column():
    table = _table(source_file="Wojciechowski-export.jsonl")
    leaks = scan_for_leaks(table, known_values={"ep-1": ["Wojciechowski"]})
    assert [(leak.column, leak.detector) for leak in leaks] == [("source_file", "known_value")]


def test_a_known_value_equal_to_the_days_year_is_no_leak_in_the_partition_column():
    """A masked four-digit value ("2026", a staff number) is the day's year in ``ds``: no leak
    there, still one wherever else it stands in clear."""
    table = _table(ds="2026-11-28", started_at=None, content="staff no 2026 in clear")
    leaks = scan_for_leaks(table, known_values={"ep-1": ["2026"]})
    assert [(leak.column, leak.detector) for leak in leaks] == [("content", "known_value")]
