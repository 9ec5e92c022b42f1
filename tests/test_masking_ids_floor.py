"""Issue #21 (Deliver 1-2): identifiers never below plain Presidio, by construction
(``detectors/id_floor.py``); record, staff and licence numbers by their label in any shape
(``labels.yaml``: stems before an id word, a label glued by a hyphen); VINs by their check digit
(``detectors/vin.py``); the look-alikes (order numbers, SKUs, years, prices, quantities, times)
kept in clear.

Every sentence and value here and in ``data/ids_floor_probes.json`` is invented for these tests
(no corpus value); ``python -m benchmarks.ids_vs_presidio`` measures the same probes beside plain
Presidio and explains each id left in clear.
"""

import json
import re
from pathlib import Path

import pyarrow as pa
import pytest
from conftest import cell_table, masked_cells
from presidio_analyzer import RecognizerResult

from agentic_pipeline.masking import Masker, mask_steps
from agentic_pipeline.masking.detectors.id_floor import (
    FLOOR_DETECTOR,
    FLOOR_TYPE,
    floor_results,
    floor_shape,
)
from agentic_pipeline.masking.detectors.id_shapes import spaced_groups
from agentic_pipeline.masking.detectors.labels import IdLabelRecognizer, label_entity
from agentic_pipeline.masking.detectors.vin import VinRecognizer, check_digit, is_vin

KEY = "ids-floor-test-key-0123456789abcdef01234567"
PROBES = json.loads((Path(__file__).parent / "data" / "ids_floor_probes.json").read_text())


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def _role(text: str) -> str:
    return "tool" if text.startswith(("{", "[")) or "\n" in text else "user"


@pytest.fixture(scope="module")
def masked_probes(masker) -> list[str]:
    """Each probe masked in an episode of its own, as a user turn or a tool result."""
    tables = [
        cell_table((_role(p["text"]), p["text"]), episode_id=f"probe-{i:03d}")
        for i, p in enumerate(PROBES)
    ]
    result = mask_steps(pa.concat_tables(tables), masker)
    assert result.withheld.num_rows == 0
    return result.masked.column("content").to_pylist()


def _left(value: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE) is not None


def test_every_invented_id_probe_is_masked_whatever_its_shape_or_language(masked_probes):
    """Record numbers, staff numbers, professional licences, member ids and VINs in prose,
    ``label: value`` lines, CSV, JSON and Python-repr results, in the main European languages."""
    ids = [
        (p["id"], v)
        for p, out in zip(PROBES, masked_probes, strict=True)
        for kind, v in p["labels"]
        if kind.startswith("ID:") and _left(v, out)
    ]
    n = sum(kind.startswith("ID:") for p in PROBES for kind, _ in p["labels"])
    assert n >= 100
    # none is left at this writing; one is allowed (a new shape found by no label)
    assert len(ids) <= 1, ids


def test_the_look_alikes_of_ids_stay_in_clear(masked_probes):
    """Order numbers, product ids, SKUs, tracking numbers, years, prices, quantities and times
    stay, under English and other European thing labels (two of 99 are masked at this writing:
    a value of a CSV ``order_id`` column and a parcel tracking number)."""
    kept = [
        (p["id"], v, _left(v, out))
        for p, out in zip(PROBES, masked_probes, strict=True)
        for kind, v in p["labels"]
        if kind == "OTHER:KEEP"
    ]
    lost = [(i, v) for i, v, left in kept if not left]
    assert len(kept) >= 90
    assert len(lost) <= 2, lost


def test_never_below_plain_presidio_on_the_probes(masked_probes):
    """Each probe id plain Presidio (default recognizers, the same spaCy model, no score bar, as
    ``benchmarks/masking_eval`` runs it) masks is masked by ours too."""
    from presidio_anonymizer import AnonymizerEngine

    from agentic_pipeline.masking.engine import build_baseline_analyzer

    analyzer, anonymizer = build_baseline_analyzer(), AnonymizerEngine()
    below = []
    for p, ours in zip(PROBES, masked_probes, strict=True):
        theirs = anonymizer.anonymize(p["text"], analyzer.analyze(p["text"], language="en")).text
        for kind, v in p["labels"]:
            if kind.startswith("ID:") and not _left(v, theirs) and _left(v, ours):
                below.append((p["id"], v))
    assert not below


def test_weak_presidio_finds_are_kept_unless_a_quantity_an_amount_or_a_thing(masker):
    encounter, pallets, price, order, swap = masked_cells(
        masker,
        ("user", "Encounter #55120448 was closed by the night nurse."),
        ("user", "The depot holds 125000 pallets and 3 cranes."),
        ("user", "The invoice came to $125000 after tax."),
        ("user", "Hi, my order number is 98712044 and it never came."),
        ("tool", json.dumps({"item_id": "5512093377", "name": "Desk Fan", "price": 35})),
    )
    assert "55120448" not in encounter
    assert "125000 pallets" in pallets and "$125000" in price
    assert "98712044" in order  # a thing's number: kept for replay and joins
    assert json.loads(swap)["item_id"] == "5512093377"


def test_a_comma_before_a_date_cell_is_a_rows_separator_not_a_decimal_part(masker):
    rows, amount = masked_cells(
        masker,
        ("tool", "Enrolment export:\n730-15-2284,Wynne Calloway,48102937,2021-08-30"),
        ("user", "The fund holds 48102937,50 EUR since March."),
    )
    assert "48102937" not in rows and "2021-08-30" in rows
    assert "48102937,50 EUR" in amount  # a decimal part: an amount, kept


def test_after_its_own_abbreviation_an_ids_shape_counts_whatever_its_check(masker):
    """Mexico's RFC: the bare abbreviation is no id label ("RFC 7231" is a standard), but before
    a value of an RFC's shape it is one, in prose, YAML and JSON keys, with a wrong check."""
    yaml_row, prose, keyed, standard = masked_cells(
        masker,
        ("tool", "worker:\n  rfc: WQTL620977K3B\n  area: almacén"),
        ("user", "Mi RFC es WQTL620977K3B, ¿lo pueden corregir?"),
        ("tool", json.dumps({"rfc": "WQTL620977K3B", "regimen": "asalariado"})),
        ("assistant", "Per RFC 7231 the server answers 405 here."),
    )
    for cell in (yaml_row, prose, keyed):
        assert "WQTL620977K3B" not in cell and "<TAX_ID_" in cell
    assert standard == "Per RFC 7231 the server answers 405 here."


def test_an_id_printed_in_groups_is_masked_whole(masker):
    """Groups of digits joined to an id by one space, and a series' capitals before it, are the
    id's; a label before it, a count after it and a date stay as they are."""
    row, series, labelled = masked_cells(
        masker,
        ("tool", "payouts:\nQX-20418,6217 0054 8810 2293 417,7125.50"),
        ("user", "Полис ОСАГО ТТК 5512093318 продлён до осени."),
        ("user", "SSN 512-44-7781 and MRN 4471203 are on the form."),
    )
    assert "6217" not in row and " 417" not in row and "7125.50" in row
    assert "ТТК" not in series and "ОСАГО" in series
    assert "SSN <" in labelled and "MRN <" in labelled


def _widened(text: str, value: str) -> str:
    s = text.index(value)
    a, b = spaced_groups(text, s, s + len(value))
    return text[a:b]


def test_spaced_groups_take_digit_groups_and_a_series_but_no_label_or_count():
    assert _widened("card 4471 2093 8812 5512 94, ok", "2093 8812 5512") == "4471 2093 8812 5512 94"
    assert _widened("policy QX 4471 12 items", "4471") == "QX 4471"
    assert _widened("license: UT QK 530917", "530917") == "UT QK 530917"
    # capitals that follow no label are a label themselves, kept in clear, unless they are two
    # in a text not written in capitals or follow a word for "number"
    assert _widened("MRN 4471203 noted", "4471203") == "4471203"
    assert _widened("the ΦΚΠ 738105264 was approved", "738105264") == "738105264"
    assert _widened("contrat n° QJW 7730 4182", "7730 4182") == "QJW 7730 4182"
    assert _widened("řidič | VT 551207 | směna 3", "551207") == "VT 551207"
    assert _widened("ROUTE VT 551207 NORTH", "551207") == "551207"


def test_a_codes_part_of_caseless_letters_between_digits_is_the_codes():
    """One or two letters of a script without case between a code's digits ("<n>-초-<n>") are
    part of it; a word of such letters after a code is not ("<n>-확인")."""
    from agentic_pipeline.masking.detectors.id_shapes import whole_code

    text = "번호 77310-초-5120 확인, 코드 4471-확인필요"
    a = text.index("77310")
    assert text[slice(*whole_code(text, a, a + 5))] == "77310-초-5120"
    b = text.index("4471")
    assert text[slice(*whole_code(text, b, b + 4))] == "4471"
    assert _widened("Polis no 4471203 44", "4471203") == "4471203 44"


def test_plates_open_the_lines_of_a_parking_scan_not_of_a_parts_list(masker):
    scan, invoice = masked_cells(
        masker,
        (
            "tool",
            "Garage levels, permits checked\nQJT 5520  level 2 valid\n7KDW218   level 3 lapsed",
        ),
        ("tool", "Vehicle service invoice\nBP-44120  Brake pads  2\nOF-2291   Oil filter  1"),
    )
    assert "QJT 5520" not in scan and "7KDW218" not in scan
    assert "BP-44120" in invoice and "OF-2291" in invoice


def test_a_number_the_episode_holds_under_a_thing_key_is_that_things_id(masker):
    """The floor masks a bare long number in prose, unless the episode's JSON names it as a
    thing's id (an item the agent listed): then it is that item's."""
    listed, asked, other = masked_cells(
        masker,
        ("tool", json.dumps({"items": [{"item_id": "7730412956", "colour": "teal"}]})),
        ("user", "Please swap 7730412956 for the larger size."),
        ("user", "Please swap 4402719936 for the larger size."),
    )
    assert json.loads(listed)["items"][0]["item_id"] == "7730412956"
    assert "swap 7730412956 for" in asked
    assert "4402719936" not in other  # plain Presidio masks it; no reason to keep it


def _at(text: str, value: str, et: str, score: float, recognizer: str) -> RecognizerResult:
    start = text.index(value)
    meta = {"recognizer_name": recognizer}
    return RecognizerResult(et, start, start + len(value), score, recognition_metadata=meta)


def _span(text: str, value: str) -> tuple[int, int]:
    return text.index(value), text.index(value) + len(value)


def test_floor_results_keep_id_tokens_below_the_bar_and_drop_the_rest():
    text = "Encounter #55120448 closed; 2026-03-01 shift; FY2024 budget; 125000 pallets"
    weak = _at(text, "55120448", "US_DRIVER_LICENSE", 0.01, "UsLicenseRecognizer")
    bank = _at(text, "125000", "US_BANK_NUMBER", 0.05, "UsBankRecognizer")
    other = _at(text, "FY2024", "US_HEALTH_INSURANCE_MEMBER_ID", 0.1, "NotPlainPresidio")
    ents = [_span(text, "2026-03"), _span(text, "FY2024")]  # spaCy DATEs (one cut short)
    kept = floor_results(text, [weak, bank, other], ents, 0.4)
    assert [(text[r.start : r.end], r.score) for r in kept] == [("55120448", 0.4)]
    assert kept[0].recognition_metadata["recognizer_name"] == FLOOR_DETECTOR
    assert kept[0].entity_type == "US_DRIVER_LICENSE"
    # a spaCy entity over an id token that no id recognizer named: the floor's own type
    (emp,) = floor_results("Emp 55102 left early", [], [(4, 9)], 0.4)
    assert emp.entity_type == FLOOR_TYPE and (emp.start, emp.end) == (4, 9)
    # a result at the bar over the token comes first in apply (a higher score)
    labelled = _at(text, "55120448", "MEDICAL_RECORD", 0.87, "IdLabelRecognizer")
    both = floor_results(text, [labelled, weak], [], 0.4)
    assert [r.entity_type for r in sorted(both, key=lambda r: -r.score)] == [
        "MEDICAL_RECORD",
        "US_DRIVER_LICENSE",
    ]


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        ("55102", True),
        ("MRN-4471205", True),
        ("2019/044871", True),
        ("A0041127", True),
        ("2026-03", False),
        ("20240318", False),
        ("FY2024", False),
        ("1990s", False),
        ("11111", False),
        ("1249.99", False),
        ("9f86d08a1c", False),
        ("A123", False),
    ],
)
def test_floor_shape(value, shape):
    assert floor_shape(value) is shape


def test_a_label_stem_counts_before_an_id_word_and_a_glued_label_is_one_token():
    rec = IdLabelRecognizer()

    def found(text):
        return [(r.entity_type, text[r.start : r.end]) for r in rec.analyze(text, [])]

    assert found("Staff no. 2207-31 is on leave") == [("USER_ID", "2207-31")]
    assert found("Record #: MR-2025-00388") == [("MEDICAL_RECORD", "MR-2025-00388")]
    assert found("Hospital ID 5520-7731") == [("MEDICAL_RECORD", "5520-7731")]
    assert found("MRN-6620193 was printed on the band") == [("MEDICAL_RECORD", "MRN-6620193")]
    assert found("Bar no. 318820 (admitted 2016)") == [("PROFESSIONAL_LICENSE", "318820")]
    # a stem alone is no label, and everyday stems are none at all
    assert found("the staff 4410 strong") == [] and found("sort by number 4471203") == []
    assert found("scan the bar code 5012345678900") == []
    assert found("see tax-2023-report for details") == []
    assert label_entity("staff_no") == "USER_ID" and label_entity("emp_number") == "USER_ID"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Mitarbeiternummer: 662018", "662018"),
        ("Matricule : 55-7120", "55-7120"),
        ("Número de empleado 4419026", "4419026"),
        ("Personeelsnummer 7730219", "7730219"),
        ("Numer pracownika: 88120-KR", "88120-KR"),
        ("N° IPP : 5530218", "5530218"),
        ("Visit number V00927731 billed", "V00927731"),
        ("Iscrizione all'albo n. 2291/C", "2291/C"),
        ("Número de bastidor: VSSZZZ6JZ9R018822", "VSSZZZ6JZ9R018822"),
        # a label in brackets before its colon; an Indian hospital's ids
        ("Numéro national étudiant (INE) : 730418265KT", "730418265KT"),
        ("UHID: KMC5512093   Ward: 4B", "KMC5512093"),
        ("Bed 12   IP No: IP/25/07731", "IP/25/07731"),
    ],
)
def test_labels_of_records_staff_licences_and_vehicles_in_european_languages(text, value):
    spans = IdLabelRecognizer().analyze(text, [])
    assert [text[r.start : r.end] for r in spans] == [value]


def test_a_value_under_its_label_on_the_next_line_or_in_a_table_row():
    rec = IdLabelRecognizer()

    def found(text):
        return [text[r.start : r.end] for r in rec.analyze(text, [])]

    assert found("MRN:\n00917734\nWard: 2C") == ["00917734"]
    assert found("| Employee ID | E-55019 |") == ["E-55019"]
    assert found("Account:\nThe customer called twice.") == []
    assert found("Chart number:\n\nnot filed yet") == []


def test_vins_by_their_check_digit(masker):
    assert check_digit("3VW4H1J10PM534773") == "0"
    assert is_vin("3VW4H1J10PM534773") and is_vin("5YJ4YRFG5SU465697")
    assert not is_vin("3VW4H1J17PM534773")  # one character changed: the check fails
    assert not is_vin("31104110771204471")  # digits alone
    checked, european, sku = masked_cells(
        masker,
        ("user", "The truck 3VW4H1J10PM534773 was towed away."),
        ("user", "Der Wagen WF0XXXGCDX8Y20417 steht in Halle 3."),  # no check digit in Europe
        ("user", "Restock 40 of BLK-TEE-XL-2207 and 12 of 2207-BLK."),
    )
    assert "3VW4H1J10PM534773" not in checked and "<VEHICLE_ID_" in checked
    assert "WF0XXXGCDX8Y20417" not in european
    assert "BLK-TEE-XL-2207" in sku and "2207-BLK" in sku


@pytest.mark.parametrize(
    ("text", "plate"),
    [
        ("Licence plate: B MK 4721", "B MK 4721"),
        ("Matrícula del coche: 4821 KTR, color azul", "4821 KTR"),
        ("Plate number KA 05 MX 2291 was flagged at the gate.", "KA 05 MX 2291"),
        ("Targa FR 392 KL, parcheggio B", "FR 392 KL"),
        ("Kennzeichen: M-AB 1234 (silber)", "M-AB 1234"),
        # a few words after the label in prose, in groups or one token
        ("The plate on the tow truck read WQT 6620 as it left.", "WQT 6620"),
        ("his registration, if I recall, was LM07 XZP", "LM07 XZP"),
        ("Das Kennzeichen des Transporters lautet HH-QX 402.", "HH-QX 402"),
        ("a licence plate ending in PRX8814 was seen", "PRX8814"),
        ("the van with plates 4TWQ871 stood outside", "4TWQ871"),
        ("tag number 9MZR304 on the pickup", "9MZR304"),
        ("numer rejestracyjny KR 7731C", "KR 7731C"),
        # a few words after a vehicle's word, and a British plate of the current system anywhere
        ("no tax disc on the van, reg shown as QWT 5528 by the gate", "QWT 5528"),
        ("Bilen med JTX 40P stod parkerad vid porten.", "JTX 40P"),
        ("Seen twice near the school: GH68 WNP, silver.", "GH68 WNP"),
        # a log line's key=value
        ("geofence breach vehicle=QLM-4408 at 02:10", "QLM-4408"),
    ],
)
def test_a_number_plate_after_its_label_is_one_value(text, plate):
    spans = VinRecognizer().analyze(text, [])
    assert [text[r.start : r.end] for r in spans] == [plate]


@pytest.mark.parametrize(
    "text",
    [
        "Registration: 12 MAY 2024",
        "Plate: ON HOLD",
        "Registration 2291 and more",
        "plate AB",
        "Registration for the course closes at 5 PM today.",
        "the plate was first issued in TX 2019 for him",
        "My plate. KRT 5528 is the room code.",
        "put the plate on the AB 12 rack",
        "Car 2 of 3 and van 12 arrived at 9 AM.",
        "vehicle=van-02 status=ok",
        "the car was a 2019 model with 40000 km on it",
        "Meeting room GH41 WNP? No: a 2-letter code, then GH90 WNP.",  # no age identifier 41, 90
    ],
)
def test_a_date_a_word_or_a_bare_number_after_a_vehicle_label_is_no_plate(text):
    assert VinRecognizer().analyze(text, []) == []


def test_a_things_number_after_a_european_thing_word_stays(masker):
    """The thing words are data in the main European languages (``labels.yaml``,
    ``thing_words``): an order, parcel or article number after one is no person's id."""
    cells = [
        ("user", "Meine Bestellnummer: 66120394, bitte prüfen."),
        ("user", "Commande n° 6618204 toujours pas livrée."),
        ("user", "El pedido 77310582 llegó roto."),
        ("user", "Het pakket 55019283 is kwijt."),
        ("user", "Zamówienie 88120467 nie dotarło."),
    ]
    outs = masked_cells(masker, *cells)
    for (_, text), out in zip(cells, outs, strict=True):
        number = re.search(r"\d{6,}", text).group()
        assert number in out, out


def test_record_and_member_labels_of_other_languages(masker):
    cells = [
        ("user", "Dossiernummer: QX-2291-0457"),
        ("user", "Numer członkowski: PL-5571-203"),
        ("user", "Número de socio 8841-2207"),
    ]
    outs = masked_cells(masker, *cells)
    for value, out in zip(("QX-2291-0457", "PL-5571-203", "8841-2207"), outs, strict=True):
        assert value not in out, out


def test_a_csv_column_of_a_things_ids_stays_and_a_personal_one_goes(masker):
    (out,) = masked_cells(masker, ("tool", "order_id,patient_id,qty\n55120934,77104482,3"))
    assert "55120934" in out and "77104482" not in out, out


def test_an_id_under_a_header_that_also_names_a_person_has_the_ids_token(masker):
    """A header "Student #" names a student and a student's id: over an id the cell is that
    id, so the same value gets the same token in the table and in prose (joins keep working)."""
    table, prose = masked_cells(
        masker,
        ("tool", "Student #,Course\nQT-55017,Botany\nQT-55018,Geology"),
        ("assistant", "The student ID QT-55017 is enrolled in Botany."),
    )
    token = masker.token("QT-55017", "USER_ID")
    assert token in table and token in prose, (table, prose)
    assert "QT-55018" not in table and "Botany" in table


def test_a_markdown_tables_columns_are_read_as_a_csvs(masker):
    """A Markdown table (as agents write replies) is a table: its outer bars and rule line are
    no cells, and an id column's cells are masked row by row; a thing's column stays."""
    table = (
        "Here are the records:\n\n"
        "| Ward | Patient ID | Order ID |\n|:---|---:|---|\n"
        "| B2 | QT-77104 | 55120934 |\n| C1 | QT-77105 | 55120935 |\n"
    )
    (out,) = masked_cells(masker, ("assistant", table))
    assert "QT-77104" not in out and "QT-77105" not in out, out
    assert "| B2 |" in out and "55120934" in out and "|:---|---:|---|" in out


def test_a_checksum_that_holds_inside_a_longer_code_is_no_id(masker):
    # eleven digits inside a parcel code can pass a national id's checksum by chance
    code = "1Z8V2K590318827746"
    (out,) = masked_cells(masker, ("assistant", f"Parcel code {code} is on its way."))
    assert code in out, out


def _npi(base9: str) -> str:
    """A valid NPI: nine digits and the Luhn check digit over "80840" and them."""
    total = 0
    for i, ch in enumerate(reversed("80840" + base9)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return base9 + str((10 - total % 10) % 10)


_NPI_CONTEXTS = [
    ("user", "Referring provider: Dr. Ysolde Marrick, NPI {v}"),
    ("user", "npi {v}"),
    ("user", "NPI#{v}"),
    ("user", "Provider {v} billed the claim"),
    ("tool", '{"provider_id": "{v}", "name": "Quell Clinic"}'),
    ("tool", '{"order_id": "O-1", "prescriber": {"npi": "{v}"}}'),
    ("tool", "provider,npi,city\nQuell Clinic,{v},Tulsa"),
    ("tool", "rendering_provider_id|taxonomy\n{v}|207Q00000X"),
    ("assistant", "I found the provider with identifier {v} in the registry."),
    ("tool", "GET /v2/providers/{v} 200"),
    ("tool", '{"result": "provider {v} active"}'),
    ("user", "NM1*82*1*MARRICK*YSOLDE****XX*{v}~"),
    ("user", "Attending: Marrick, Ysolde MD  {v}"),
    ("tool", "- name: Quell Clinic\n  npi: '{v}'\n  phone: none"),
    ("tool", '{"providers": [{"id": "{v}", "type": "individual"}]}'),
    ("user", "NPI {g}"),
    ("assistant", "Dr. Ysolde Marrick (NPI {g}) is in network."),
]


def test_never_below_plain_presidio_on_npis_in_many_places(masker):
    """A valid NPI in prose, JSON, CSV, pipes, YAML, X12, a URL, grouped or not: whenever plain
    Presidio masks it, ours does (a product's ``item_id`` that is a valid NPI stays, by design)."""
    from presidio_anonymizer import AnonymizerEngine

    from agentic_pipeline.masking.engine import build_baseline_analyzer

    analyzer, anonymizer = build_baseline_analyzer(), AnonymizerEngine()
    cells, written = [], []
    for k, (role, template) in enumerate(_NPI_CONTEXTS):
        v = _npi(f"{174839261 + 7919 * k:09d}")
        value = f"{v[:4]}-{v[4:7]}-{v[7:]}" if "{g}" in template else v
        cells.append((role, template.replace("{v}", value).replace("{g}", value)))
        written.append(value)
    below, theirs_masked = [], 0
    for (_, text), value, ours in zip(cells, written, masked_cells(masker, *cells), strict=True):
        theirs = anonymizer.anonymize(text, analyzer.analyze(text, language="en")).text
        theirs_masked += value not in theirs
        if value not in theirs and value in ours:
            below.append(text)
    assert not below, below
    assert theirs_masked >= len(cells) // 2  # the comparison has something to compare
