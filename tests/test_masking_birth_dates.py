"""A child's birth date written right after the name, without a birth word: "<name> (<date>)",
"<name>, <date>" or "<name> <date>" at a line's end is a birth date; a date after a name that
the sentence goes on from (a visit, a delivery) and a date of this year stay. Every name and
date here is written for this test (no corpus value).
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
        ("Dependants: Quillan Ostrowe (2017-03-09), Marisol Ostrowe (2019-10-21)", "2017-03-09"),
        ("Dependants: Quillan Ostrowe (2017-03-09), Marisol Ostrowe (2019-10-21)", "2019-10-21"),
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
