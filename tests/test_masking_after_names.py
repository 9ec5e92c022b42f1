"""Values right after a person's name (``detectors/after_names.py``). A child's birth date
written without a birth word, "<name> (<date>)", "<name>, <date>" or "<name> <date>" at a line's
end, is a birth date; a date after a name that the sentence goes on from (a visit, a delivery)
and a date of this year stay. A code in brackets or between dashes after a name, or in the cell
beside it in a row, is the person's id. In a text that speaks of birth dates elsewhere ("DOBs",
"birthdays"), anything may follow the date. Every name, date and code here is written for this
test (no corpus value).
"""

import datetime as dt

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker

KEY = "birth-dates-test-key-0123456789abcdef0123456"
LAST_YEAR = dt.date.today().year - 1


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Dependants: Quillan Ostrowe (2017-03-09), Marisol Ostrowe (2019-10-27)", "2017-03-09"),
        ("Dependants: Quillan Ostrowe (2017-03-09), Marisol Ostrowe (2019-10-27)", "2019-10-27"),
        ("Squad list\nTeodor Vellacourt 2014-06-30\nAnneli Brusk 2015-01-12", "2014-06-30"),
        ("Squad list\nTeodor Vellacourt 2014-06-30\nAnneli Brusk 2015-01-12", "2015-01-12"),
        ("Enrolled: Oruhiwa Tahapeka, 04/11/2016", "04/11/2016"),
        (f"New baby: Elowen Prask (14.02.{LAST_YEAR})", f"14.02.{LAST_YEAR}"),
        # anything may follow the date in a text that speaks of birth dates elsewhere
        ("Need names, DOBs and SSNs\nClient: Tobiah Wenslow 05/03/2016 431-72-5518", "05/03/2016"),
        ("Twins' birthdays?\nLinnea Oskarsby 14 Mar 2018 (cake: lemon)", "14 Mar 2018"),
    ],
)
def test_a_recent_date_right_after_a_name_is_a_birth_date(masker, text, date):
    (out,) = masked_cells(masker, ("user", text))
    assert date not in out and "<DATE_OF_BIRTH_" in out, out


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Seen by Dr Halvard Nusse on 2023-05-02 for a sprain.", "2023-05-02"),
        ("Parcel for Odile Ferrant, 2024-11-03 delivered to the porch.", "2024-11-03"),
        (f"Dependants: Quillan Ostrowe ({dt.date.today().year}-01-05)", "-01-05"),
    ],
)
def test_a_date_the_sentence_goes_on_from_or_of_this_year_stays(masker, text, date):
    (out,) = masked_cells(masker, ("user", text))
    assert date in out, out


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Night shift:\n• Perpetua Anseln (LD3-5521) covers dock B", "LD3-5521"),
        ("Night shift:\n• Gorven Tullbright — RX-40917 — g.tullbright@example.com", "RX-40917"),
        # several letter groups, and a lower-case word before the code in the bracket
        ("pharmacy queue: Perpetua Anseln (WQ-MB-70315) awaiting pickup", "WQ-MB-70315"),
        ("08:20 bay 3 → Gorven Tullbright (tag KJ-9031; allergies none)", "KJ-9031"),
    ],
)
def test_a_code_in_brackets_or_dashes_after_a_name_is_an_id(masker, text, code):
    (out,) = masked_cells(masker, ("user", text))
    assert code not in out and "<ID_NUMBER_" in out, out


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # the next cell of a row, or the cell that opens the row before the name
        ("Staff\nQW-55017 | Tomas Wrembel | Accounts\nQW-55023 | Ilse Vranken | Legal", "QW-55023"),
        ("payroll export\nIlse Vranken   T-40418   acct 12\nTomasz Wrembel   T-40433", "T-40418"),
        ("Rota\nHX-88120, Ilse Vranken, nights\nHX-88133, Tomasz Wrembel, days", "HX-88133"),
        # a roster's short code, a number after its sign in brackets
        ("Roster\nQW-418  Ilse Vranken   nights\nQW-733  Tomas Wrembel   days", "QW-733"),
        ("Pt: Ilse Vranken (#48120). Claim sent", "48120"),
        # the second code of the cell that opens the row
        (
            "Crew\n2215093 / KT-4410  Ilse Vranken   Fri\n7730215 / KT-4478  Tomas Wrembel",
            "KT-4478",
        ),
    ],
)
def test_a_code_in_a_cell_beside_a_name_is_an_id(masker, text, code):
    (out,) = masked_cells(masker, ("user", text))
    assert code not in out and "<ID_NUMBER_" in out, out


def test_a_year_or_a_postcode_in_the_cell_beside_a_name_stays(masker):
    (out,) = masked_cells(masker, ("user", "Budget owner: Ilse Vranken, FY2026, approved"))
    assert "FY2026" in out, out
    (out,) = masked_cells(masker, ("user", "Room B2041 - Ilse Vranken"))
    assert "B2041" in out, out
    (out,) = masked_cells(masker, ("user", "Pt: Ilse Vranken (#2024) today"))
    assert "#2024" in out, out


def test_a_thing_after_a_name_and_a_word_stays(masker):
    (out,) = masked_cells(masker, ("user", "Passenger Perpetua Anseln - flight QZ4471 today"))
    assert "QZ4471" in out, out


def test_a_relation_in_brackets_may_stand_between_the_name_and_the_date(masker):
    (out,) = masked_cells(masker, ("user", "Dependants: Kestrin Ovale (son), 2018-03-14"))
    assert "2018-03-14" not in out and "(son)" in out, out


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Születési dátum 2021. március 9., Pécs", "2021. március 9."),
        ("Dzimšanas datums: 2013. gada 4. augustā", "2013. gada 4. augustā"),
        ("Si Maricel ay ipinanganak noong Mayo 3, 2015 sa Cebu.", "Mayo 3, 2015"),
        ("제 딸 생일은 2014년 6월 2일이에요", "2014년 6월 2일"),
        ('{"会員": {"生年月日": "2009-03-14", "会員番号": "K-5521"}}', "2009-03-14"),
        ('{"фио": "Зуева Инна", "дата_рождения": "1987-11-03"}', "1987-11-03"),
        ("Ông Phạm Quốc Bảo sinh năm 1951 tại Vĩnh Long", "1951"),
        ("Records list Tomasz Weryk, b. 1868, as a weaver.", "1868"),
        ("His sister Anielka Weryk, b. abt 1871, died young.", "1871"),
        ("დაბადების წელი: 1984", "1984"),
        # a year of birth's label, a life span after a name, a date before "born" in CJK
        ("Subject initials: K-L-M   Year of birth: 1958", "1958"),
        ("In memory of Ottilie Brandwein (1902–1977), who taught us all to sew.", "1902"),
        ("小儿子 于 2024年3月2日 出生，母子平安。", "2024年3月2日"),
        ("2019年7月14日生まれの長男です", "2019年7月14日"),
    ],
)
def test_birth_dates_in_more_languages_and_birth_years_alone(masker, text, value):
    (out,) = masked_cells(masker, ("user", text))
    assert value not in out and "<DATE_OF_BIRTH_" in out, out


def test_a_date_before_a_number_is_no_part_of_a_card():
    from agentic_pipeline.pii_patterns import CARD_RE

    assert CARD_RE.search("joined 10/19/2019 318-46-2207 row") is None
    assert CARD_RE.search("card 4929 5104 7731 8265 on file") is not None


def test_a_span_of_years_without_a_name_or_a_date_taking_effect_stays(masker):
    (out,) = masked_cells(masker, ("user", "The tournament ran (1998–2004) in Leeds."))
    assert "1998" in out, out
    (out,) = masked_cells(masker, ("user", "本合同自2024年1月1日生效。"))
    assert "2024年1月1日" in out, out
