"""A table whose columns are aligned with spaces (a CLI's or an SQL client's output) is read by its
header as a CSV table is (``csv_cells.csv_table``): the cells of personal columns are masked, the
others stay; prose with double spaces is no table. Every value here is invented for this test."""

from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.csv_cells import csv_table

TABLE = (
    "Claims batch\n"
    "claim_id        patient               member_id        status\n"
    "CLX55120019904  TARRANT, ODELL        KRW883012245     ACCEPTED\n"
    "CLX55120019905  PIKEWELL, ARDEN       KRW883012290     REJECTED\n"
)


def test_the_header_and_rows_of_an_aligned_table():
    header, rows = csv_table(TABLE)
    assert header == ["claim_id", "patient", "member_id", "status"]
    assert rows[1] == ["CLX55120019905", "PIKEWELL, ARDEN", "KRW883012290", "REJECTED"]
    assert csv_table("We met  twice this week.\nIt was  fun and the  food was good.") is None


def test_an_aligned_tables_personal_columns_are_masked():
    with Masker(key="aligned-table-test-key-0123456789abcdef01", n_workers=1) as masker:
        (out,) = masked_cells(masker, ("tool", TABLE))
    for value in ("CLX55120019904", "TARRANT", "ODELL", "KRW883012290", "PIKEWELL", "ARDEN"):
        assert value not in out, (value, out)
    assert "claim_id        patient" in out and "ACCEPTED" in out and "Claims batch" in out
