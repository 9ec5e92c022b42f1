"""Issue #21: labels read in more of the ways forms and logs write them. A label is no name
("NINO", "Hosp." before their values), an id under a label line without a colon, a label and
its value a few words apart ("member ID on file is …"), a birth date written year first or by
Python's ``repr``. Every sentence and value here is written for this test (no corpus value).
"""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.names.recognizer import without_labels

KEY = "label-forms-test-key-0123456789abcdef012345"


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def _masked(masker, role: str, text: str) -> str:
    (out,) = masked_cells(masker, (role, text))
    return out


@pytest.mark.parametrize(
    ("text", "label", "value"),
    [
        ("NINO: QW 58 21 77 B", "NINO", "58 21 77"),
        ("Hosp. No. K4471920 (ward 6)", "Hosp", "K4471920"),
        ("Member ID on file is TRQ880312457.", "Member ID", "TRQ880312457"),
    ],
)
def test_a_label_stays_and_its_value_is_masked(masker, text, label, value):
    out = _masked(masker, "tool", text)
    assert label in out
    assert value not in out


def test_a_speaker_named_like_a_label_is_masked(masker):
    out = _masked(masker, "user", "Nino: 3 pm works for me, see you at the gate")
    assert not out.startswith("Nino")


def test_the_next_fields_label_leaves_a_person_span():
    text = "Given: Ilse  Family: Varnholt"
    assert without_labels(text, (7, 19, "PERSON", 0.6, "m")) == (7, 11, "PERSON", 0.6, "m")
    assert without_labels("MRN: 0044120", (0, 3, "PERSON", 0.6, "m")) is None
    whole = (0, 13, "PERSON", 0.9, "m")
    assert without_labels("Ilse Varnholt", whole) == whole
    # a surname that a label has too ("green card") keeps its place in a chat speaker's name
    speaker = (0, 10, "PERSON", 0.9, "m")
    assert without_labels("Ilse Green: see you at six", speaker) == speaker


def test_an_id_under_its_label_line_without_a_colon(masker):
    text = "Prontuário\n33.610.482\nAlta: 02/11/2026"
    out = _masked(masker, "tool", text)
    assert "33.610.482" not in out
    assert out.startswith("Prontuário\n<")


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Pt. seen today, DOB 1959/04/17. Home meds: none.", "1959/04/17"),
        ("{'dob': datetime.date(1983, 11, 6), 'plan': 'silver'}", "1983, 11, 6"),
    ],
)
def test_a_birth_date_written_year_first(masker, text, date):
    assert date not in _masked(masker, "tool", text)
