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


def test_a_chinese_or_japanese_table_parts_its_columns_with_ideographic_spaces():
    """One ideographic space between columns, as Chinese and Japanese tables are typed: the
    header's person and staff-number columns are masked, the department stays, and the "氏名"
    (name) header is no honorific "氏" after a name."""
    japanese = "社員番号　氏名　　　部署\nR-5120　関口 真澄　経理部\nR-5139　平野 朋美　広報部"
    chinese = "工号　　姓名　　部门\nWX-8802　贺明轩　采购部\nWX-8815　柴雨欣　法务部"
    with Masker(key="aligned-table-test-key-0123456789abcdef01", n_workers=1) as masker:
        out_ja, out_zh = masked_cells(masker, ("tool", japanese), ("tool", chinese))
    for value in ("R-5120", "関口", "真澄", "R-5139", "平野", "朋美"):
        assert value not in out_ja, (value, out_ja)
    for value in ("WX-8802", "贺明轩", "WX-8815", "柴雨欣"):
        assert value not in out_zh, (value, out_zh)
    assert out_ja.startswith("社員番号　氏名") and "経理部" in out_ja and "采购部" in out_zh
