"""The digest that tells the blocking check the stored rows are the rows masking's scan read."""

import pyarrow as pa

from agentic_pipeline.masking.scan.digest import TableDigest, table_digest


def _day() -> pa.Table:
    return pa.table(
        {
            "episode_id": ["e1", "e1", "e2", "e3"],
            "step": [0, 1, 0, 0],
            "content": ["Booked for <PERSON_0f3a9c21>.", None, "", "seat 14C"],
            "ds": pa.array(["2026-03-02"] * 4).dictionary_encode(),
        }
    )


def test_the_same_rows_cut_into_other_shards_give_the_same_digest():
    day = _day()
    shards = TableDigest()
    shards.update(day.slice(0, 1))
    shards.update(day.slice(1, 3))
    assert shards.hexdigest() == table_digest(day) == table_digest(day.combine_chunks())
    assert shards.rows == 4
    reordered = day.select(["content", "ds", "step", "episode_id"])
    assert table_digest(reordered) == table_digest(day)  # column order is no content
    plain_ds = day.set_column(3, "ds", pa.array(["2026-03-02"] * 4))
    assert table_digest(plain_ds) == table_digest(day)  # dictionary or plain: the same values


def test_any_changed_added_dropped_or_moved_value_changes_the_digest():
    day = _day()
    base = table_digest(day)
    variants = [
        ["Booked for <PERSON_0f3a9c21>!", None, "", "seat 14C"],  # one character
        ["Booked for <PERSON_0f3a9c21>.", "", "", "seat 14C"],  # a null becomes empty
        [None, "Booked for <PERSON_0f3a9c21>.", "", "seat 14C"],  # a value moved
        ["Booked for <PERSON_0f3a9c21>.", None, "seat 14C", ""],  # two values swapped
        ["Booked for ", "<PERSON_0f3a9c21>.", "", "seat 14C"],  # a value split in two
    ]
    for values in variants:
        changed = day.set_column(2, "content", pa.array(values))
        assert table_digest(changed) != base, values
    assert table_digest(day.slice(0, 3)) != base  # a dropped row
    assert table_digest(pa.concat_tables([day, day.slice(3)])) != base  # an added row
    assert table_digest(day.drop_columns(["content"])) != base  # a dropped column
    assert table_digest(day.set_column(1, "step", pa.array([0, 1, 0, 9]))) == base  # not text
