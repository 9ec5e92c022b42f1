"""Values right after a person's name (``detectors/after_names.py``). A child's birth date
written without a birth word, "<name> (<date>)", "<name>, <date>" or "<name> <date>" at a line's
end, is a birth date; a date after a name that the sentence goes on from (a visit, a delivery)
and a date of this year stay. A code in brackets or between dashes after a name is the person's
id. Every name, date and code here is written for this test (no corpus value).
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
    ],
)
def test_a_code_in_brackets_or_dashes_after_a_name_is_an_id(masker, text, code):
    (out,) = masked_cells(masker, ("user", text))
    assert code not in out and "<ID_NUMBER_" in out, out


def test_a_thing_after_a_name_and_a_word_stays(masker):
    (out,) = masked_cells(masker, ("user", "Passenger Perpetua Anseln - flight QZ4471 today"))
    assert "QZ4471" in out, out


def test_a_relation_in_brackets_may_stand_between_the_name_and_the_date(masker):
    (out,) = masked_cells(masker, ("user", "Dependants: Kestrin Ovale (son), 2018-03-14"))
    assert "2018-03-14" not in out and "(son)" in out, out
