"""DICOM header dumps pasted into a log (``detectors/dicom.py``): every person name (value
representation PN) and the patient's ids and birth date are masked, in DCMTK's and pydicom's
layouts; the study's other elements stay. Every value here is invented for this test."""

from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.dicom import dicom_elements

DCMDUMP = """# Dicom-Data-Set
(0008,0020) DA [20261102]                               #   8, 1 StudyDate
(0008,0050) SH [ACC5521907]                             #  10, 1 AccessionNumber
(0008,0080) LO [Westbrook Imaging Centre]               #  24, 1 InstitutionName
(0008,0090) PN [HALVERSEN^MIRO^DR]                      #  18, 1 ReferringPhysicianName
(0010,0010) PN [PELLINGHAM^IVETTE^R]                    #  20, 1 PatientName
(0010,0020) LO [MR4419920]                              #  10, 1 PatientID
(0010,0030) DA [19571104]                               #   8, 1 PatientBirthDate
(0010,0040) CS [F]                                      #   2, 1 PatientSex
(0008,1070) PN (no value available)                     #   0, 0 OperatorsName"""

PYDICOM = """(0008, 0060) Modality                            CS: 'CT'
(0010, 0010) Patient's Name                      PN: 'Pellingham^Ivette'
(0010, 0020) Patient ID                          LO: 'MR4419920'
(0010, 0030) Patient's Birth Date                DA: '19571104'
(0018, 0050) Slice Thickness                     DS: '1.25'"""


def found(text: str) -> set[tuple[str, str]]:
    return {(text[s:e], et) for s, e, et in dicom_elements(text)}


def test_person_names_by_their_representation_and_patient_elements_by_their_tag():
    assert found(DCMDUMP) == {
        ("ACC5521907", "REFERENCE_ID"),
        ("HALVERSEN^MIRO^DR", "PERSON"),
        ("PELLINGHAM^IVETTE^R", "PERSON"),
        ("MR4419920", "MEDICAL_RECORD"),
        ("19571104", "DATE_OF_BIRTH"),
    }
    assert found(PYDICOM) == {
        ("Pellingham^Ivette", "PERSON"),
        ("MR4419920", "MEDICAL_RECORD"),
        ("19571104", "DATE_OF_BIRTH"),
    }


def test_text_that_is_no_dump_has_no_elements():
    assert found("The tag (0010,0010) holds the patient's name.") == set()
    assert found("see (a, b) and (0010, 0010) in the standard") == set()


def test_a_pasted_dump_is_masked_through_the_masker():
    with Masker(key="dicom-test-key-0123456789abcdef0123456789a", n_workers=1) as masker:
        (out,) = masked_cells(masker, ("tool", "Header of the study:\n" + DCMDUMP))
    for value in ("PELLINGHAM", "IVETTE", "HALVERSEN", "MR4419920", "19571104", "ACC5521907"):
        assert value not in out, out
    assert "[Westbrook Imaging Centre]" in out and "StudyDate" in out
