"""Issues #21 and #22: ids found by their label, Presidio's types never dropped, hostile encodings,
bare numbers under unknown keys, personal JSON keys, and the second line masking what it finds.

Every sentence and value here is written for this test (no corpus value).
"""

import json

import pytest
from conftest import cell_table, masked_cells

from agentic_pipeline.masking import MASK_ENTITIES, Masker, mask_steps, pseudonym_for
from agentic_pipeline.masking.detectors import label_entity, not_personal_types
from agentic_pipeline.masking.detectors.bare_numbers import bare_number_entity
from agentic_pipeline.masking.json_walker import embedded_structures, text_pieces
from agentic_pipeline.masking.mask import SECOND_LINE, mask_leaks
from agentic_pipeline.masking.scan import find_leaks
from agentic_pipeline.masking.text_view import text_view

KEY = "labels-test-key-0123456789abcdef0123456789"


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def _table(*cells: tuple[str, str]):
    return cell_table(*cells, episode_id="ep-labels")


def _masked(masker, *cells: tuple[str, str]) -> list[str]:
    return masked_cells(masker, *cells)


def _masked_record(masker, record: dict) -> dict:
    """``record`` as a JSON tool result, masked and read back."""
    (out,) = _masked(masker, ("tool", json.dumps(record)))
    return json.loads(out)


def test_every_personal_type_plain_presidio_reports_is_masked():
    """Never below plain Presidio by construction: each type of Presidio's default English
    registry, other than dates, places, organisations, NRP, URLs and uuids, is masked."""
    from presidio_analyzer import RecognizerRegistry

    registry = RecognizerRegistry(supported_languages=["en"])
    registry.load_predefined_recognizers(languages=["en"])
    reported = {et for rec in registry.recognizers for et in rec.supported_entities}
    assert reported - not_personal_types() <= set(MASK_ENTITIES)
    assert {"US_NPI", "UK_NHS", "MEDICAL_LICENSE", "US_DRIVER_LICENSE", "IN_PAN"} <= set(
        MASK_ENTITIES
    )


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("MRN", "MEDICAL_RECORD"),
        ("patientId", "MEDICAL_RECORD"),
        ("policy_no", "INSURANCE_ID"),
        ("memberId", "INSURANCE_ID"),
        ("Account Number", "BANK_ACCOUNT"),
        ("routing", "ABA_ROUTING_NUMBER"),
        ("Transit number", "ABA_ROUTING_NUMBER"),
        ("CLABE", "ABA_ROUTING_NUMBER"),
        ("NPI", "US_NPI"),
        ("Kundennummer", "USER_ID"),
        ("numéro de compte", "BANK_ACCOUNT"),
        ("Cardholder", "PERSON"),
        ("Nazwisko", "PERSON"),
        ("Payee", None),  # a company as often: the name model reads its value after the label
        ("To", None),
        ("order_id", None),
        ("item", None),
        ("flight number", None),
        # a person's record's word and an id word: that person's id (``person_objects``)
        ("Volunteer ID", "USER_ID"),
        ("tenant_no", "USER_ID"),
        ("attendeeId", "USER_ID"),
        ("reservation_id", None),
        ("Donation ID", None),
        # a Nepali claim number, a Hungarian student's code with its possessive, a Danish staff no.
        ("दाबी नम्बर", "INSURANCE_ID"),
        ("Neptun-kódja", "USER_ID"),
        ("MA-nr.", "USER_ID"),
        ("Pers.-Nr", "USER_ID"),
        ("N.º de colaborador", "USER_ID"),
        ("ID pracownika", "USER_ID"),
        ("Clock number", "USER_ID"),
        # a listed label with its abbreviation's full stop; a number word as a label writes it
        ("Pers.-Nr.", "USER_ID"),
        ("nº trabajador", "USER_ID"),
        ("Marcă", "USER_ID"),
        ("supervisor_id", "USER_ID"),
        ("导师", "PERSON"),  # a new hire's mentor in a Chinese staff list
    ],
)
def test_labels_name_their_type(label, expected):
    assert label_entity(label) == expected


def test_ids_are_found_by_their_label_in_prose_lines_and_tables(masker):
    prose, lines, csv, kept = _masked(
        masker,
        ("user", "The chart says MRN 40-771-2093 and my member ID is QX77120B."),
        ("tool", "Patient: Orla Vennick\nNPI: 1245319599\nPolicy #: TRV-5521-08\nStatus: active"),
        ("tool", "Date,Payee,Account Number,Amount\n2025-02-03,Tobiah Marsh,66120934,18.20"),
        ("user", "Order 55120 with item 8812093345 left on flight QA441 on 2025-03-04."),
    )
    for raw in ("40-771-2093", "QX77120B", "1245319599", "TRV-5521-08", "66120934"):
        assert raw not in prose + lines + csv, raw
    assert "<MEDICAL_RECORD_" in prose and "<INSURANCE_ID_" in prose
    assert "<US_NPI_" in lines and "Status: active" in lines
    assert "<BANK_ACCOUNT_" in csv and "18.20" in csv and "2025-02-03" in csv
    # ids of things stay in clear for replay and joins
    assert kept == "Order 55120 with item 8812093345 left on flight QA441 on 2025-03-04."


def test_camel_case_labels_of_a_directory_entry_and_a_log_line(masker):
    """A directory's attributes and a log's fields write their labels in camelCase; an id word
    after a thing's word or a camelCase word with no id word keeps its value."""
    entry, log, kept = _masked(
        masker,
        ("tool", "dn: uid=wbrask,ou=people\ncn: Wenna Brask\nemployeeNumber: RV-80413\nl: Depot"),
        ("tool", "batch 7 done\ncustomerNumber=CU-33817 retryCount=3"),
        ("tool", "batch 8 done\norderNumber=55120 retryCount=3"),
    )
    assert "RV-80413" not in entry and "<USER_ID_" in entry, entry
    assert "CU-33817" not in log and "retryCount=3" in log, log
    assert kept == "batch 8 done\norderNumber=55120 retryCount=3"


def test_a_python_dict_with_keys_that_are_no_strings_is_masked(masker):
    """A tool written in Python may print a dict whose keys are numbers, tuples or ``...``: it is
    walked and masked like any other (it raised before, failing the whole shard)."""
    (cell,) = _masked(
        masker,
        (
            "tool",
            "{1: 'x', ...: 'y', (2, 3): 'z', 'dob': '1961-04-02',"
            " 'iban': 'GB33BUKB20201555555555'}",
        ),
    )
    assert "1961-04-02" not in cell and "GB33" not in cell and "(2, 3): 'z'" in cell, cell


def test_ids_under_labelled_json_keys_and_python_dicts(masker):
    record = {
        "patient": {"mrn": "00918273", "npi": 1245319599},
        "account": {"balance": 41.5, "status": "open"},
        "item_id": "8812093345",
        "policyNumber": "TRV-5521-08",
    }
    json_cell, repr_cell = _masked(
        masker,
        ("tool", json.dumps(record)),
        ("tool", repr({"street": "12 Quillon Row", "iban": "GB33BUKB20201555555555"})),
    )
    out = json.loads(json_cell)
    assert out["patient"]["mrn"].startswith("<MEDICAL_RECORD_")
    assert out["patient"]["npi"].startswith("<US_NPI_")
    assert out["policyNumber"].startswith("<INSURANCE_ID_")
    assert out["account"] == {"balance": 41.5, "status": "open"}  # no id shape, no label leaf
    assert out["item_id"] == "8812093345"
    assert "Quillon" not in repr_cell and "GB33" not in repr_cell
    assert repr_cell.startswith("{'street': '<STREET_ADDRESS_")


def test_objects_written_inside_a_text_are_read_as_objects(masker):
    """An agent's observation line, a fenced block of a reply and a Python dict printed in a
    sentence: keys type their values as in a JSON cell; the text around is read as text and
    kept byte for byte; braces that hold no object stay as they are."""
    record = {"rider": {"first_name": "odile", "plate": "MWZ3391", "city": "Leeds"}}
    line, fenced, printed, code = _masked(
        masker,
        ("tool", "observation: HTTP 200 " + json.dumps(record) + " (cached)"),
        ("assistant", "Found it:\n```json\n" + json.dumps({"item_id": "8812093345"}) + "\n```"),
        ("tool", "saved " + repr({"street": "4 Pellow Lane", "nino": "QQ123456C"}) + " ok"),
        ("user", "if (x) { y = {'a': 1}; }"),
    )
    assert line.startswith("observation: HTTP 200 {") and line.endswith("} (cached)")
    rider = json.loads(line[len("observation: HTTP 200 ") : -len(" (cached)")])["rider"]
    assert rider["first_name"].startswith("<PERSON_")
    assert rider["plate"].startswith("<VEHICLE_ID_")
    assert rider["city"] == "Leeds"  # a city with no street beside it
    assert fenced == "Found it:\n```json\n" + json.dumps({"item_id": "8812093345"}) + "\n```"
    assert printed.startswith("saved {'street': '<STREET_ADDRESS_") and printed.endswith("} ok")
    assert "Pellow" not in printed and "QQ123456C" not in printed
    assert code == "if (x) { y = {'a': 1}; }"


def test_embedded_structures_stop_at_their_closing_brace_and_skip_broken_ones():
    text = 'a {"k": "}{"} b {"broken": } c {\'x\': [1, {\'y\': 2}]}'
    found = embedded_structures(text)
    assert [(text[a:b], kind) for a, b, kind, _ in found] == [
        ('{"k": "}{"}', "json"),
        ("{'x': [1, {'y': 2}]}", "python"),
    ]
    assert text_pieces(text, found) == ["a ", ' b {"broken": } c ', ""]
    assert embedded_structures('{"' * 5000) == []  # a hostile run of braces: a few scans


def test_hostile_encodings_are_masked_where_they_stand(masker):
    email = "wren.t@example.net"
    full_width = "Mail me: ｗｒｅｎ．ｔ＠ｅｘａｍｐｌｅ．ｎｅｔ, SSN ５３１－４４－７７２０."
    url = "https://crm.example.com/find?email=wren.t%40example.net&phone=%2B14155550187"
    entity = "Write to wren&#46;t&#64;example&#46;net today."
    out = _masked(masker, ("user", full_width), ("tool", url), ("tool", entity))
    token = pseudonym_for(email, "EMAIL_ADDRESS", KEY)
    assert "ｗｒｅｎ" not in out[0] and "５３１" not in out[0] and "<US_SSN_" in out[0]
    assert "wren.t" not in out[1] and "4155550187" not in out[1]
    assert out[1].startswith("https://crm.example.com/find?email=<EMAIL_ADDRESS_")
    assert "wren" not in out[2] and "<EMAIL_ADDRESS_" in out[2]
    assert token in out[1]  # the same address, the same token, however it was written


def test_personal_keys_and_bare_numbers_under_unknown_keys(masker):
    cell = {
        "Harriet Quennell": "owner",
        "contact_number": 4155550187,
        "msisdn": "447700900431",
        "rows": [["note", 4155550187]],
        "item_id": 8812093345,
        "total": 4155550911,
    }
    (out,) = _masked(masker, ("tool", json.dumps(cell)))
    obj = json.loads(out)
    assert "Harriet" not in out and "Quennell" not in out
    assert obj["contact_number"].startswith("<PHONE_NUMBER_")
    assert obj["msisdn"].startswith("<PHONE_NUMBER_")
    assert obj["rows"][0][1].startswith("<PHONE_NUMBER_")
    assert obj["item_id"] == 8812093345 and obj["total"] == 4155550911  # things stay


def test_bare_number_rules():
    assert bare_number_entity("q", "+14155550187") == "PHONE_NUMBER"
    assert bare_number_entity("value", 4539148803436467) == "CREDIT_CARD"
    assert bare_number_entity("order_id", 4155550187) is None
    assert bare_number_entity("ts", 1764547200) is None
    assert bare_number_entity("x", True) is None


def test_text_view_maps_back_to_the_original_characters():
    text = "a%40b ｘ &#64;"
    view = text_view(text)
    assert view is not None and view.text == "a@b x @"
    assert view.original(1, 2) == (1, 4)  # "@" came from "%40"
    assert text_view("plain ascii text") is None


def test_a_windows_line_end_reads_as_a_line_end(masker):
    """A CRLF text is analysed as its LF twin: the same values are found, with the same
    scores, and the carriage returns stay in the masked text."""
    view = text_view("Dyżury\r\nBrzezicki Witold\r\n")
    assert view is not None and view.text == "Dyżury\nBrzezicki Witold\n"
    assert view.original(6, 7) == (6, 8)  # the "\n" came from "\r\n"
    lf = "Dyżury w sobotę\nBrzezicki Witold\nKaczmarczyk Jadwiga\n"
    crlf = lf.replace("\n", "\r\n")
    tables = [mask_steps(_table(("user", t)), masker) for t in (lf, crlf)]
    masked = [t.masked.column("content")[0].as_py() for t in tables]
    assert masked[1] == masked[0].replace("\n", "\r\n") and "Witold" not in masked[0]
    scores = [sorted(t.audit.column("score").to_pylist()) for t in tables]
    assert scores[0] == scores[1]


def test_number_signs_stay_as_written_so_their_labels_read(masker):
    """NFKC spells "№" and "º" with letters ("No", "o"); the view keeps them, so a label
    written with them is the label ("n.º 40718" is no id "o 40718") and its value is masked;
    so is a value after a label listed with its periods."""
    assert text_view("Socio n.º 5203") is None
    said = _masked(
        masker,
        ("user", "Табельный № 83017, Nº de abonado 993104"),
        ("user", "Sócia n.º 62071 desde 2019"),
        ("user", "Таб. № 40267; רופאה, מ.ר. 39154"),
    )
    assert "83017" not in said[0] and "993104" not in said[0] and "Табельный №" in said[0]
    assert said[1].startswith("Sócia n.º <") and said[1].endswith("> desde 2019"), said[1]
    # labels listed with their periods ("таб. №", "מ.ר.") are found as listed
    assert "40267" not in said[2] and "39154" not in said[2], said[2]
    assert label_entity("Таб. №") == "USER_ID" and label_entity("מ.ר.") == "PROFESSIONAL_LICENSE"


def test_the_second_line_masks_what_it_finds_instead_of_withholding(masker):
    """A value the final scan finds is masked with its keyed token and the episode is written;
    the audit credits the second line. (The scan's find is planted in the masked table here:
    what the first line misses depends on the detectors of the day.)"""
    table = _table(("user", "call me back"), ("tool", "ring +44 20 7946 0321 after five"))
    found = find_leaks(table)
    assert found and all(leak.entity_type == "PHONE_NUMBER" for leak, _ in found)
    from collections import defaultdict

    from agentic_pipeline.masking.apply import Partition
    from agentic_pipeline.masking.episode import Episode

    mp = Partition(masker)
    fixed, replaced = mask_leaks(
        table, found, masker, defaultdict(Episode), ["ep-labels", "ep-labels"], mp
    )
    assert replaced == 1
    (cell,) = fixed.column("content").to_pylist()[1:]
    assert "7946" not in cell and "<PHONE_NUMBER_" in cell
    assert [r.detector for r in mp.records] == [SECOND_LINE]
    assert not find_leaks(fixed)


def test_postal_addresses_are_masked_whole_and_cities_alone_stay(masker):
    """Issue #21 point 3: street, unit, city, region, postcode and country as one span."""
    us, block, eu, uk, prose = _masked(
        masker,
        ("user", "Mail it to 3308 Brindle Court, Suite 40, Abilene, TX 79601, USA today."),
        ("tool", "Deliver to:\nOrla Vennick\n77 Quillon Street\nSpringfield, IL 62704\n\nok"),
        ("user", "Meine Adresse ist Larchenweg 14, 80331 München. Ich komme aus Berlin."),
        ("user", "Then to 12 Tavish Road, London NW1 6XE before noon."),
        ("user", "We met in Chicago and then flew to Paris for the summer."),
    )
    for raw in ("Brindle", "Abilene", "79601", "Quillon", "Springfield", "62704", "Larchenweg"):
        assert raw not in us + block + eu + uk, raw
    assert us.count("<STREET_ADDRESS_") == 1 and us.endswith(" today.")
    assert block.count("<STREET_ADDRESS_") == 1 and block.endswith("\n\nok")
    assert "München" not in eu and "Ich komme aus Berlin." in eu  # a city alone stays
    assert "London" not in uk and "6XE" not in uk and uk.endswith(" before noon.")
    assert prose == "We met in Chicago and then flew to Paris for the summer."


def test_an_address_without_a_postcode_ends_at_its_state_or_city(masker):
    state, city, prose = _masked(
        masker,
        ("user", "Ship it to 4410 Harrow Lane, Millbrook, OR before Friday."),
        ("user", "We moved to 88 Quarry Road, Tillingham."),
        ("user", "The parcel for 88 Quarry Road was late, as usual."),
    )
    assert "Harrow" not in state and "Millbrook" not in state and state.endswith(" before Friday.")
    assert "Tillingham" not in city and city.endswith(".")
    assert prose.endswith(" was late, as usual.") and "Quarry" not in prose


def test_generic_id_labels_and_ticket_ids(masker):
    (out,) = _masked(
        masker,
        (
            "user",
            "Student: Orla, ID: 604417. Your case ID is #Q55120. Order ID: 77120 shipped. "
            "Your booking (ID: QW7TRZ) and the parcel [ID: 5512093] are on hold.",
        ),
    )
    assert "604417" not in out and "Q55120" not in out
    assert "Order ID: 77120 shipped." in out
    assert "booking (ID: QW7TRZ)" in out and "parcel [ID: 5512093]" in out


def test_labels_of_students_staff_and_customers_and_glued_german_stems(masker):
    """Role labels in English and European languages, and the stem of a one-word German or
    Dutch label glued to its id word ("Kundennummer") before any id word ("Kunden-Nr.")."""
    from agentic_pipeline.masking.detectors.label_lists import stem_labels

    assert stem_labels()["kunden"] == "USER_ID" and stem_labels()["matrikel"] == "USER_ID"
    assert "pass" not in stem_labels()  # "Passnummer": "pass" is an English word
    cells = [
        "Your enrolment number is QX-41, keep it.",
        "learner number QX-42 on the form",
        "customer reference QX-43 needs a callback",
        "numéro de salarié : QX-44",
        "Kunden-Nr. QX-45, bitte angeben",
        "Matrikel-Nr.: QX-46",
        json.dumps({"kunden_nr": "QX-47", "ort": "Rostock"}),
    ]
    outs = _masked(masker, *(("user", c) for c in cells))
    for i, out in enumerate(outs):
        assert f"QX-4{i + 1}" not in out, out
    assert "Rostock" in outs[-1]


def test_labels_written_without_their_accents_are_labels(masker):
    """Keys and headers are often written in ASCII ("imie" for "imię", "numero" for "número")."""
    data = _masked_record(
        masker,
        {"imie": "Jarogniew", "nazwisko": "Trelka", "numero_cliente": "QX-49", "plan": "B"},
    )
    assert data["imie"].startswith("<PERSON_") and data["nazwisko"].startswith("<PERSON_")
    assert data["numero_cliente"].startswith("<USER_ID_") and data["plan"] == "B"


def test_ids_a_few_words_after_their_label_and_in_answers(masker):
    prose, ending, thing, qa, handle = _masked(
        masker,
        ("tool", "The audit listed account details like 4471209935 for the new client."),
        ("tool", "It showed the savings account number ending in *772 on the form."),
        ("user", "The refund for order 5512093345 went back to my account."),
        (
            "tool",
            "[9:02] Agent: Could you share your policy number?\n"
            "[9:03] Caller: Yes, it's PLX4471209.",
        ),
        (
            "user",
            "My username is quietfern and my login is broken, my screen name is fern_walker88.",
        ),
    )
    assert "4471209935" not in prose and "<BANK_ACCOUNT_" in prose
    assert "772" not in ending
    assert thing == "The refund for order 5512093345 went back to my account."
    assert "PLX4471209" not in qa and "Could you share your policy number?" in qa
    assert "quietfern" not in handle and "fern_walker88" not in handle
    assert "login is broken" in handle


def test_an_id_answered_to_a_request_without_a_question_mark(masker):
    asked, feedback = _masked(
        masker,
        ("tool", "Agent: For the visa slot I'll need your passport number.\nApplicant: K4Q7719023"),
        ("tool", "Agent: We need your feedback on the new menu.\nGuest: 5 stars, 2 visits"),
    )
    assert "K4Q7719023" not in asked and "<ID_DOCUMENT_" in asked
    assert feedback.endswith("Guest: 5 stars, 2 visits")


def test_a_bare_id_key_is_a_persons_only_in_a_persons_record(masker):
    data = _masked_record(
        masker,
        {
            "customer": {"id": "cu-4471209", "tier": "gold"},
            "payment_methods": {"card_x": {"id": "pm_5512093", "brand": "visa"}},
            "contact": [{"id": "881209", "email": "fern.walker@example.org"}],
            # a bare id word ("number", "no") too, and only in a person's record
            "member": {"no": "QT-7730", "since": 2019},
            "tenant": {"number": "QT-7731"},
            "parcel": {"number": "QT-7732", "weight_kg": 2},
        },
    )
    assert data["customer"]["id"].startswith("<USER_ID_")
    assert data["contact"][0]["id"].startswith("<USER_ID_")
    assert data["payment_methods"]["card_x"]["id"] == "pm_5512093"
    assert data["member"]["no"].startswith("<USER_ID_") and data["member"]["since"] == 2019
    assert data["tenant"]["number"].startswith("<USER_ID_")
    assert data["parcel"]["number"] == "QT-7732"


def test_a_persons_record_word_and_an_id_word_as_a_key_beside_a_things_fields(masker):
    """An amount and a payment method beside it make no thing's id of a person's: the key names
    whose id it is, and the value is masked whatever its shape."""
    data = _masked_record(
        masker,
        {"Volunteer ID": "VT330918", "Shift": "late", "Amount": "$40.00", "Method": "ACH"},
    )
    assert data["Volunteer ID"].startswith("<USER_ID_")
    assert data["Amount"] == "$40.00" and data["Method"] == "ACH"


def test_a_bare_name_key_is_a_persons_unless_its_object_is_a_things(masker):
    data = _masked_record(
        masker,
        {
            "lines": [{"name": "Folding Step Stool", "sku": "FS-2210", "price": 31.5}],
            "product": {"name": "Kitchen Scale", "variants": 4},
            "buyer": {"name": "Odalys Fenwick", "sku": "FS-22", "email": "of@example.net"},
            "reviewer": {"name": "Bertrand Okonjo"},
            "assignee": {"name": "Marguerite Tallis", "item_count": 2},
        },
    )
    assert data["lines"][0]["name"] == "Folding Step Stool"
    assert data["product"]["name"] == "Kitchen Scale"
    assert data["buyer"]["name"].startswith("<PERSON_")  # a person's record wins
    assert data["reviewer"]["name"].startswith("<PERSON_")  # no thing's field: masked whole
    # a thing's field beside the name: read as text, where the name model finds the person
    assert data["assignee"]["name"].startswith("<PERSON_")


def test_an_id_given_in_answer_to_the_previous_message_is_masked_everywhere(masker):
    out = _masked(
        masker,
        ("assistant", "Thanks! To look this up, could you share your member ID?"),
        ("user", "Sure, it's QX77120B"),
        ("assistant", "And what is your order number?"),
        ("user", "5512093"),
        ("assistant", "Found QX77120B. What is your username?"),
        ("user", "fern_walker88"),
    )
    assert "QX77120B" not in "".join(out) and out[1].startswith("Sure, it's <INSURANCE_ID_")
    assert out[3] == "5512093"  # an order's number stays
    assert out[5].startswith("<USER_ID_")


def test_account_numbers_shaped_like_ibans_of_countries_without_ibans(masker):
    payload = json.dumps([{"sender": "me", "recipient": "US440011220033440055667", "amount": 98.7}])
    data, prose = _masked(
        masker,
        ("tool", payload),
        (
            "assistant",
            "I sent 98.70 to US440011220033440055667; the refund came from ZX04001122334455.",
        ),
    )
    assert "440011220033440055667" not in data + prose and "ZX04001122334455" not in prose
    assert "98.70" in prose and json.loads(data)[0]["amount"] == 98.7


def test_a_label_of_a_person_and_of_an_id_types_an_id_shaped_value_as_the_id(masker):
    prose, data = _masked(
        masker,
        ("user", "Ref: patient acct 7712093, chart #44-1209, patient: Orla Vennick"),
        ("tool", json.dumps({"patient": "A0045128", "customer": "Tobiah Marsh"})),
    )
    assert "7712093" not in prose and "44-1209" not in prose and "Vennick" not in prose
    assert "<MEDICAL_RECORD_" in prose
    assert json.loads(data)["patient"].startswith("<MEDICAL_RECORD_")
    assert json.loads(data)["customer"].startswith("<PERSON_")


def test_quantities_after_a_label_are_no_ids(masker):
    (out,) = _masked(
        masker,
        ("user", "My account has 25000 miles and the policy covers up to 1000000 dollars."),
    )
    assert out == "My account has 25000 miles and the policy covers up to 1000000 dollars."


def test_social_handles_are_account_names(masker):
    (out,) = _masked(
        masker, ("user", "Loved the gig, thanks @quietfern_77! Mail: fern@example.org")
    )
    assert "quietfern_77" not in out and "<USER_ID_" in out and "@example.org" not in out


def test_partly_redacted_ids_upi_addresses_and_vehicle_registrations(masker):
    (out, kept) = _masked(
        masker,
        (
            "user",
            "Her SSN on file is XXX-XX-4417, the card 4929 **** **** 7712; refund to "
            "priya.n@okaxis, not priya.n@example.org. Her car: registration QZ71KLM, "
            "VIN 1HGCM82633A004352.",
        ),
        (
            "user",
            "The form shows XXX-XX-XXXX and ****-****. Registration opens on 12 May 2025 and "
            "costs 40 EUR; build 2.4.1, ticket ##12 and the meeting is at the office@10.",
        ),
    )
    for value in ("4417", "7712", "priya.n@okaxis", "QZ71KLM", "1HGCM82633A004352"):
        assert value not in out
    assert "<US_SSN_" in out and "<BANK_ACCOUNT_" in out and "<VEHICLE_ID_" in out
    assert kept == (
        "The form shows XXX-XX-XXXX and ****-****. Registration opens on 12 May 2025 and "
        "costs 40 EUR; build 2.4.1, ticket ##12 and the meeting is at the office@10."
    )


def test_plates_and_national_ids_in_their_countrys_shapes(masker):
    """A plate written with its space ("KD58 WPT"), after a bare "plate" in prose or a key; a
    National Insurance number with its last letter; ids after their country's label."""
    (prose, record, kept) = _masked(
        masker,
        (
            "user",
            "The van's plate is KD58 WPT and the other one, plate 5VQE218, was towed. "
            "My NI number is JM 40 18 27 B and the NRIC on her form reads T0481233J.",
        ),
        ("tool", '{"vehicle": {"model": "Transit", "plate": "RX-771-PW"}, "oib": "69435151530"}'),
        ("user", "Serve it on a plate with 12 olives; the plate was 28 cm wide."),
    )
    for value in ("KD58", "WPT", "5VQE218", "JM 40", "27 B", "T0481233J", "RX-771-PW"):
        assert value not in prose + record, value
    assert "69435151530" not in record
    assert prose.count("<VEHICLE_ID_") == 2 and "<ID_DOCUMENT_" in prose
    assert kept == "Serve it on a plate with 12 olives; the plate was 28 cm wide."


def test_a_qualifier_before_an_id_label_in_keys_and_headers_and_dates_read_strictly(masker):
    csv_text, record, prose = _masked(
        masker,
        (
            "tool",
            "encounter,provider_npi,patient_mrn,order_reference\n"
            "ENC-551,1093817746,MR-7731,R-44120\n",
        ),
        ("tool", json.dumps({"holder": {"ssn_last4": "7731", "billing_account_number": "5512"}})),
        ("user", "Sort code 20-44-91, chart number 55-10-2231, seen on 2024-05-01 at 10:30."),
    )
    assert "1093817746" not in csv_text and "MR-7731" not in csv_text
    # an encounter (one patient's visit) is the patient's: its number is masked (HIPAA's "any
    # other unique identifying number"); an order's reference is a thing's and stays
    assert "ENC-551" not in csv_text and "R-44120" in csv_text
    data = json.loads(record)["holder"]
    assert data["ssn_last4"].startswith("<US_SSN_")
    assert data["billing_account_number"].startswith("<BANK_ACCOUNT_")
    assert "20-44-91" not in prose and "55-10-2231" not in prose
    assert "2024-05-01 at 10:30" in prose


def test_clinician_licences_and_abbreviated_labels(masker):
    out, yaml_text = _masked(
        masker,
        (
            "tool",
            "Lic. #: MD-448120 (NY) | DEA: BV4471209 | GMC number 7044123. Acct. 55120931 closed; "
            "I closed the account. 2024 was a long year. EMP-2023-0417 starts Monday; "
            "MBR-66120958 renewed.",
        ),
        ("tool", "applicant:\n  passport_no: X44120931\n  passport_photo: yes\n"),
    )
    for value in ("MD-448120", "BV4471209", "7044123", "55120931", "2023-0417", "66120958"):
        assert value not in out
    assert "<MEDICAL_LICENSE_" in out and "I closed the account. 2024 was a long year." in out
    assert "X44120931" not in yaml_text and "passport_photo: yes" in yaml_text


def test_fields_of_one_line_separated_by_bars_are_read_one_by_one(masker):
    (out,) = _masked(
        masker, ("tool", "Street: 41 Quillon Row | Plan: gold | Payee: Ruth Okonjo-Baird")
    )
    assert "Quillon" not in out and "Okonjo" not in out
    assert "| Plan: gold |" in out


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Hasta numarası", "MEDICAL_RECORD"),
        ("Номер полиса", "INSURANCE_ID"),
        ("Nomor rekening", "BANK_ACCOUNT"),
        ("Mã số thuế", "TAX_ID"),
        ("Mã số bệnh nhân", "MEDICAL_RECORD"),
        ("Mã người bệnh", "MEDICAL_RECORD"),
        ("رقم الهوية", "ID_DOCUMENT"),
        ("車牌號", None),  # traditional characters are not listed: only the forms written there
        ("车牌号", "VEHICLE_ID"),
        ("사원번호", "USER_ID"),
        ("Mã nhân viên", "USER_ID"),
        ("mã NV", "USER_ID"),  # its short form in a staff list
        ("Sicil", "USER_ID"),  # a Turkish staff register's number, "sicil no" written short
    ],
)
def test_labels_of_languages_beyond_europe_name_their_type(label, expected):
    assert label_entity(label) == expected


def test_ids_after_labels_of_other_languages_and_their_copulas(masker):
    """A label of ``ids_other_languages``, a Turkish possessive "number" after a label's stem
    and a copula of the label's language ("là", "adalah") before the value."""
    turkish, vietnamese, indonesian, chinese, stays = _masked(
        masker,
        ("user", "Merhaba, sicil numaranız: QB-77120 olarak kaydedildi."),
        ("assistant", "Mã nhân viên của bạn là NX-40417, vui lòng giữ lại."),
        ("tool", "Nomor rekening adalah 0071 2290 4415 atas nama pemohon."),
        ("tool", "病历号：ZK40917725\n科室：内科"),
        ("user", "Mã đơn hàng là DH-55812."),  # an order's code: a thing's id stays
    )
    assert "QB-77120" not in turkish and "NX-40417" not in vietnamese
    assert "0071 2290 4415" not in indonesian and "ZK40917725" not in chinese
    assert stays == "Mã đơn hàng là DH-55812."


def test_a_pipe_table_under_a_title_line_is_read_by_its_header(masker):
    """A title line without a bar over a pipe table with padded cells: the header's "emp_id" and
    "ssn" name their columns (an aligned-space reading would glue the bars to the cells)."""
    (out,) = _masked(
        masker,
        (
            "tool",
            "Payroll export — Quellmark Tools LLC\n"
            "emp_id  | name              | ssn          | net_pay\n"
            "QT-0412 | Varnholt, Imre    | 000-53-1187  | 2,310.40\n"
            "QT-0415 | Oduya, Florentyne | 512-44-9021  | 2,905.10",
        ),
    )
    for raw in ("QT-0412", "QT-0415", "000-53-1187", "512-44-9021", "Varnholt"):
        assert raw not in out, raw
    assert "2,310.40" in out and "Quellmark Tools LLC" in out


def test_a_personal_keys_value_ends_before_the_next_label_in_its_string(masker):
    record = {
        "Applicant surname": "Wyndrake   First: Orsolya   Middle initial: T",
        "Document number": "KT7730415   Expiry: 11/30/2033",
        "Nationality": "Hungary",
    }
    out = _masked_record(masker, record)
    surname = out["Applicant surname"]
    assert "Wyndrake" not in surname and "Orsolya" not in surname
    assert "   First: <PERSON_" in surname and surname.endswith("   Middle initial: T")
    assert out["Document number"].endswith("   Expiry: 11/30/2033")
    assert "KT7730415" not in out["Document number"]


def test_an_id_label_key_with_a_qualifier_after_it_names_an_id(masker):
    record = {
        "Member ID (primary)": "QZP55012783",
        "Staff ID assigned": "S-661904",
        "ID card expiry": "2031-04-30",
        "Policy number status": "lapsed",
    }
    out = _masked_record(masker, record)
    assert "QZP55012783" not in out["Member ID (primary)"]
    assert "661904" not in out["Staff ID assigned"]
    assert out["ID card expiry"] == "2031-04-30" and out["Policy number status"] == "lapsed"


def test_a_street_word_before_a_house_number_label_is_no_next_field(masker):
    (out,) = _masked(masker, ("user", "Adres: Lale Sok. No: 31 D: 2, 16110 Nilüfer/Bursa"))
    assert out.startswith("Adres: <STREET_ADDRESS_") and "Lale" not in out and "D:" not in out


def test_an_id_in_the_text_under_a_persons_id_key_is_masked(masker):
    record = {
        "Patient ID": "QHT-552901   Referring: Dr Ilse Varnsworth, MD  NPI 1346289708",
        "item_id": "4155550187",
    }
    out = _masked_record(masker, record)
    assert "1346289708" not in out["Patient ID"] and "QHT-552901" not in out["Patient ID"]
    assert out["item_id"] == "4155550187"  # a thing's id stays


def test_an_id_word_glued_to_its_label_reads_as_the_label(masker):
    """German and Dutch glue a short id word to the label's word ("Kundennr.", "Patientennr"):
    the value after it is that label's id; a word that merely ends in "no" is no label."""
    said = _masked(
        masker,
        ("user", "Bitte Kundennr. 7720154 und Patientennr 5518302 angeben."),
        ("user", "Il casino 4471 era chiuso."),
    )
    assert "7720154" not in said[0] and "5518302" not in said[0], said[0]
    assert "Kundennr." in said[0] and "Patientennr" in said[0], said[0]
    assert said[1] == "Il casino 4471 era chiuso."


def test_three_digits_after_a_numbering_label_are_an_id_where_they_stand(masker):
    """Three digits are an id right after a label that numbers them ("no.", "#", ":"), masked
    where they stand; a sum, a share and a bare "ID" of a row keep theirs."""
    said = _masked(
        masker,
        ("user", "Staff no. 318 asked; member #: 274 too. Row ID: 615."),
        ("user", "The account is 100% paid and the policy: 250 € a year."),
    )
    assert "318" not in said[0] and "274" not in said[0] and "Row ID: 615." in said[0], said[0]
    assert said[1] == "The account is 100% paid and the policy: 250 € a year."


def test_a_german_physician_number_and_a_polish_policy_in_a_sentence(masker):
    out = _masked(
        masker,
        ("assistant", "Arztbrief von Dr. med. Albrecht Sommer (LANR QX-01234), Praxis am Markt"),
        ("assistant", "Wypłata z polisy KX55120934 nastąpi w piątek."),
    )
    assert "QX-01234" not in out[0] and "KX55120934" not in out[1], out


def test_an_ssn_shaped_number_outside_the_issued_areas_is_masked(masker):
    """Areas 000 and 666 are never issued and 9xx are ITINs: all are a person's number as typed."""
    out = _masked(
        masker, ("tool", "Loan file\n000-31-4421\n666-20-1187\nITIN 912-70-1234 on the W-7")
    )
    for raw in ("000-31-4421", "666-20-1187", "912-70-1234"):
        assert raw not in out[0], out


def test_ids_of_a_list_printed_into_a_string_under_an_id_key_and_albanian_labels(masker):
    record = {"plates": "[7XKR219, 4ABC123]", "note": "[see file]"}
    albanian = {"Emri": "Valmira Kostreci", "Pasaporta": "BZ4412093"}
    albanian["Numri personal"] = "J21204055L"
    out = _masked(masker, ("tool", json.dumps(record)), ("tool", json.dumps(albanian)))
    for raw in ("7XKR219", "4ABC123", "BZ4412093", "J21204055L"):
        assert raw not in " ".join(out), out
    assert '"note": "[see file]"' in out[0]


def test_ids_listed_after_one_label_share_its_shape(masker):
    """A label written once before a list: every entry of the first's shape is an id; a count
    or a word after the list stays."""
    (out,) = _masked(
        masker, ("assistant", "Reopened claims ZT-55102, ZT-60918 and ZT-71123; 3 more pending.")
    )
    assert not any(v in out for v in ("55102", "60918", "71123")), out
    assert out.count("<INSURANCE_ID_") == 3 and "3 more pending" in out


def test_labels_of_plates_registers_and_deposits_in_more_languages(masker):
    cells = [
        ("tool", "Автомобиль продан: а/м М704ОР 196, покупатель уведомлён."),
        ("tool", "Kelių policija: valstybinis numeris LMT 902 užregistruotas."),
        ("tool", "Иргэний регистрийн дугаар: ЧБ77120468 баталгаажсан."),
        ("tool", "Savings: CD no. RW30088142 matures in June."),
        ("tool", "2. Edmund Kraszewski — nr ewid. 8126 — obecny"),
    ]
    outs = _masked(masker, *cells)
    for out, digits in zip(outs, ("704", "902", "77120468", "30088142", "8126"), strict=True):
        assert digits not in out, out


def test_a_fleet_drivers_id_a_ribs_bank_codes_a_student_card_and_plate_letters(masker):
    """ "driver_id=" names a person's id though "driver" is a thing's word before "id" alone; a
    RIB's bank and branch codes; a Romanian student card's number; a Swedish employment number
    abbreviated; a plate's letters after its digits, in a possessive too."""
    cells = [
        ("tool", "ts=2026-02-11T07:40Z lat=52.37 driver_id=QZR-7710 (on shift) odo=90412"),
        ("tool", "Domiciliation : Banque Lorraine\nCode banque 27361 · Code guichet 00418"),
        ("user", "Am pierdut legitimația. Carnet nr. 52917. Mersi!"),
        ("tool", "Greta Ekdahl — sjuksköterska — anst. 80127 — heltid"),
        ("user", "motornya hilang, plat D 5512 KQT warna hitam"),
        ("user", "I'll drive, my plate's WX-30592 for the gate list"),
    ]
    outs = _masked(masker, *cells)
    for out, value in zip(outs, ("7710", "27361", "52917", "80127", "5512", "30592"), strict=True):
        assert value not in out, out
    assert "00418" not in outs[1] and "KQT" not in outs[4]
    assert (
        "The printer driver 4.2.1"
        in _masked(masker, ("tool", "The printer driver 4.2.1 failed"))[0]
    )


def test_a_bar_table_whose_name_column_holds_commas_is_read_on_its_bars(masker):
    """Each row has one comma (in "<surname>, <given>") and three bars: the bars part the
    columns, so the member-number column's values are ids."""
    table = (
        "Registro de socios — Club Náutico Poniente\n"
        "N.º socio | Apellidos, nombre | DNI | Categoría\n"
        "5831 | Ferrán Oliva, Tomás | 11223344B | senior\n"
        "0277 | Ibarra Sanz, Lucía | 55667788C | juvenil"
    )
    (out,) = _masked(masker, ("tool", table))
    assert "5831" not in out and "0277" not in out, out
    assert "senior" in out and "juvenil" in out


@pytest.mark.parametrize("digits", ["٠١٢٣٤٥٦٧٨٩", "０１２３４５６７８９", "०१२३४५६७८९"])
def test_the_second_line_masks_a_value_written_in_other_digits(masker, digits):
    """The scan reports a value as its cell writes it; one written in Arabic-Indic, full-width
    or Devanagari digits is found in the cell's folded text too, masked, and not withheld."""
    other = str.maketrans("0123456789", digits)
    table = _table(("user", "hello"), ("tool", "ring +44 20 7946 0321 after five".translate(other)))
    found = find_leaks(table)
    assert found
    from collections import defaultdict

    from agentic_pipeline.masking.apply import Partition
    from agentic_pipeline.masking.episode import Episode

    fixed, replaced = mask_leaks(
        table, found, masker, defaultdict(Episode), ["ep-labels", "ep-labels"], Partition(masker)
    )
    (cell,) = fixed.column("content").to_pylist()[1:]
    assert replaced >= 1 and "<PHONE_NUMBER_" in cell, cell
    assert not find_leaks(fixed)


def test_the_second_line_masks_an_id_the_scan_read_inside_a_longer_word(masker):
    """The scan's bounds are its own: an id it reports glued to letters before it is masked
    where it stands, not left for the episode to be withheld."""
    from collections import defaultdict

    from agentic_pipeline.masking.apply import Partition
    from agentic_pipeline.masking.episode import Episode
    from agentic_pipeline.masking.scan import Leak

    table = _table(("user", "hello"), ("tool", "ref QZW5531 2208 4476 filed"))
    found = [(Leak("content", 1, "NATIONAL_ID", "-", "scan_national_id"), "5531 2208 4476")]
    fixed, replaced = mask_leaks(
        table, found, masker, defaultdict(Episode), ["ep-labels", "ep-labels"], Partition(masker)
    )
    (cell,) = fixed.column("content").to_pylist()[1:]
    assert replaced == 1 and "2208" not in cell and cell.endswith(" filed"), cell


def test_the_second_line_scans_again_what_it_masked(masker, monkeypatch):
    """What the scan finds once the second line's tokens stand in a cell is masked in a next
    round. Here the first line's output is left out (the cell reaches the scan as written) and
    the first scan reports one of its two phones: the second round masks the other, and the
    episode is written."""
    import agentic_pipeline.masking.mask as mask_module

    real_find, real_replace, calls = mask_module.find_leaks, mask_module.replace_columns, []

    def first_find_only(table, **kwargs):
        found = real_find(table, **kwargs)
        calls.append(len(found))
        return found[:1] if len(calls) == 1 else found

    def first_line_left_out(table, columns):
        return table if not calls else real_replace(table, columns)

    monkeypatch.setattr(mask_module, "find_leaks", first_find_only)
    monkeypatch.setattr(mask_module, "replace_columns", first_line_left_out)
    table = _table(("user", "hello"), ("tool", "ring +44 20 7946 0321 or +44 20 7946 0877"))
    result = mask_steps(table, masker)
    assert calls[0] >= 2 and len(calls) >= 2, calls
    assert result.withheld.num_rows == 0
    (cell,) = result.masked.column("content").to_pylist()[1:]
    assert "0321" not in cell and "0877" not in cell, cell
