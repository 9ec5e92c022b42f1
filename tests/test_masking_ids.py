"""Issue #21 (Deliver 1-2): structured ids found by their label in the formats agents' logs carry
(forms, letters, statements, medical notes, provider directories, YAML, Python-repr dicts, one-line
probes), in English and the main European languages, and the ids of things kept in clear.

Every sentence and value here is invented for this test (no corpus value).
"""

import json
import re

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors import label_entity
from agentic_pipeline.masking.detectors.redacted import redacted_matches
from agentic_pipeline.masking.pseudonyms import TOKEN_RE

KEY = "ids-test-key-0123456789abcdef0123456789abcd"


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def _one(masker, text: str, role: str = "user") -> str:
    (out,) = masked_cells(masker, (role, text))
    return out


def test_a_place_of_birth_under_its_label_is_masked_as_under_its_json_key(masker):
    """A ``label: value`` line and a JSON key name the same personal place; a place named
    alone in prose stays (a destination is no personal data)."""
    line, key = masked_cells(
        masker,
        ("tool", "Applicant: Obiora Fenwick\nPlace of birth: Tamale\nHome town: Sekondi"),
        ("tool", json.dumps({"place_of_birth": "Tamale", "city": "Tamale"})),
    )
    prose = _one(masker, "The ferry to Lisbon leaves at nine.")
    assert "Tamale" not in line and "Sekondi" not in line
    assert "Place of birth: <LOCATION_" in line
    token = line.split("Place of birth: ")[1].split(">")[0] + ">"
    assert json.loads(key)["place_of_birth"] == token  # same value, same token
    assert json.loads(key)["city"] == "Tamale"
    assert prose == "The ferry to Lisbon leaves at nine."


@pytest.mark.parametrize(
    "display",
    ["************3318", "5210************3318", "4716 **** **** 3318", "••••••••••••3318"],
)
def test_a_partly_masked_card_display_is_one_token_with_its_stars(masker, display):
    out = _one(masker, f"Card on file: {display} (debit), number '{display}' again.")
    assert "3318" not in out and "*" not in out and "•" not in out
    assert out.count("<CREDIT_CARD_") == 2 and out.startswith("Card on file: <CREDIT_CARD_")


def test_redacted_card_displays_longer_than_a_card_are_found():
    """A display keeps the last digits, not always the number's length (12 stars for 8)."""
    text = "paid with 5210************3318 today"
    assert [(text[s:e], et) for s, e, et in redacted_matches(text)] == [
        ("5210************3318", "CREDIT_CARD")
    ]
    assert redacted_matches("note ****** 12") == []  # too short for a card


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("Police report number 661204874-KX was filed on Monday.", "661204874-KX", "REFERENCE_ID"),
        ("Crime reference number: 5521/24/QT is on the form.", "5521/24/QT", "REFERENCE_ID"),
        ("Suspect identification number 448810273-ZA noted.", "448810273-ZA", "ID_DOCUMENT"),
        ("Tax Identification Number 'TNQ88Z7710' appeared in the scan.", "TNQ88Z7710", "TAX_ID"),
        ("My visa number is R6620193 for the trip.", "R6620193", "ID_DOCUMENT"),
        ("Use visa H3390172 for the consular check.", "H3390172", "ID_DOCUMENT"),
        ("Residence permit: ZK-7720-9913", "ZK-7720-9913", "ID_DOCUMENT"),
    ],
)
def test_ids_with_suffixes_and_new_labels_are_masked_whole(masker, text, value, entity):
    out = _one(masker, text)
    for part in value.replace("/", "-").split("-"):
        assert part not in out, part
    before, after = text.split(value)
    token = out.removeprefix(before).removesuffix(after)
    assert out.startswith(before) and out.endswith(after) and TOKEN_RE.fullmatch(token), out
    assert f"<{entity}_" in out, out


def test_a_checksum_id_with_glued_letters_is_one_token(masker):
    """A valid Australian TFN's digits with a suffix: the checksum recognizer's span takes the
    glued letters too (``apply.whole_code``), one token for the whole value."""
    out = _one(masker, "Police report number 661204873-KX was filed on Monday.")
    assert out.count("<") == 1 and "661204873" not in out and "KX" not in out, out


@pytest.mark.parametrize(
    ("text", "value", "kept"),
    [
        ("Meine Steuer-ID ist 58 120 447 391, bitte notieren.", "447 391", " ist <"),
        ("Sozialversicherungsnummer 65 170839 J 004 liegt vor.", "J 004", " liegt vor."),
        ("Le numéro de sécurité sociale est 1 78 02 69 123 456 12.", "456 12", " est <"),
        ("Su número de la seguridad social es 281077412290.", "281077412290", " es <"),
        ("Il codice fiscale è VRDLGU77H18F205Q.", "VRDLGU77H18F205Q", " è <"),
        ("Mijn BSN is 204417128 en mijn IBAN NL91ABNA0417164300.", "204417128", " is <"),
        ("Numer PESEL to 90090515836, numer dowodu AYZ441209.", "AYZ441209", "Numer PESEL"),
        ("Mi NIF es 77120448K y mi NIE Y4471209L.", "Y4471209L", " es <"),
    ],
)
def test_european_labels_in_prose(masker, text, value, kept):
    out = _one(masker, text)
    assert value not in out and kept in out, out
    assert not any(ch.isdigit() for ch in out.replace("_", " ").split("<")[0][-3:])


def test_one_time_codes_are_masked_after_their_label_and_in_the_answer(masker):
    asked, told = masked_cells(
        masker,
        ("assistant", "I sent a verification code to your phone. Can you read it to me?"),
        ("user", "Sure, it's 730418."),
    )
    line = _one(masker, "Your one-time code is 552907; it expires in 10 minutes.")
    assert "730418" not in told and "<CREDENTIAL_" in told
    assert "552907" not in line and line.endswith("; it expires in 10 minutes.")


@pytest.mark.parametrize(
    "text",
    [
        "Order number: 66120334 for your records.",
        "Item no. 77120983 is back in stock.",
        "Invoice #55012 paid. Order ID: 99812771.",
        "Booking reference QW7R2T, seat 22A, gate C14.",
        "Reservation code: LM88120 for two nights.",
    ],
)
def test_ids_of_things_stay_in_clear(masker, text):
    """A bare "number" after a thing's word is no phone context ("order number 66120334")."""
    assert _one(masker, text) == text


def test_a_number_word_after_a_phone_word_is_still_a_phone(masker):
    out = _one(masker, "Call me on number 66120334 tomorrow, or my contact number 07700900461.")
    assert "66120334" not in out and "07700900461" not in out
    assert out.startswith("Call me on number <PHONE_NUMBER_")


def test_ends_with_id_label():
    from agentic_pipeline.masking.detectors.labels import ends_with_id_label

    assert ends_with_id_label("please check your order ")
    assert ends_with_id_label("SKU ")
    assert ends_with_id_label("Policy no.: ")
    assert ends_with_id_label("the Customer")
    assert not ends_with_id_label("call me on ")
    assert not ends_with_id_label("my contact ")


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Tax Identification Number", "TAX_ID"),
        ("visa_number", "ID_DOCUMENT"),
        ("numéro de sécurité sociale", "ID_DOCUMENT"),
        ("Sozialversicherungsnummer", "ID_DOCUMENT"),
        ("verification_code", "CREDENTIAL"),
        ("crime reference", "REFERENCE_ID"),
        ("reservation code", None),
    ],
)
def test_new_labels_name_their_type(label, expected):
    assert label_entity(label, ids_first=True) == expected


def test_ids_in_the_formats_of_agents_logs(masker):
    """A YAML record, a European CSV statement, a Python-repr dict, a JSON payload, a medical
    note and a provider directory line: every id masked, amounts and dates kept."""
    yaml_cell, csv_cell, repr_cell, json_cell, note, directory = masked_cells(
        masker,
        (
            "tool",
            "patient:\n  name: Ilse Marchetti\n  mrn: RT-550917\n  nhs_number: 943 476 5919\n"
            "  insurance:\n    member_id: WB8803317",
        ),
        (
            "tool",
            "Name;IBAN;Steuer-ID;Kundennummer;Betrag\n"
            "Gesa Tiedemann;DE44500105175407324931;61 204 118 395;KD-55120;120,50",
        ),
        ("tool", repr({"codice_fiscale": "BNCLRA82M55L219X", "nif": "B7730921", "note": "ok"})),
        (
            "tool",
            json.dumps({"payee": {"bsn": "318840274", "rekeningnummer": "NL02ABNA0123456789"}}),
        ),
        (
            "user",
            "Seen: Rhian Castellvi, MRN 00918822, DOB 02/11/1958, Dr. Olu Banjo (NPI 1588667638).",
        ),
        ("tool", "Dr. Ana Kovač | NPI: 1639281746 | DEA: BK7712093 | State license 5530-NY"),
    )
    for raw in ("RT-550917", "943 476 5919", "WB8803317"):
        assert raw not in yaml_cell, raw
    for raw in ("DE44500105175407324931", "61 204", "118 395", "KD-55120"):
        assert raw not in csv_cell, raw
    assert csv_cell.endswith(";120,50")
    assert "BNCLRA82M55L219X" not in repr_cell and "B7730921" not in repr_cell
    assert "'note': 'ok'" in repr_cell
    assert "318840274" not in json_cell and "NL02ABNA" not in json_cell
    for raw in ("00918822", "1588667638", "1958"):
        assert raw not in note, raw
    for raw in ("1639281746", "BK7712093", "5530-NY"):
        assert raw not in directory, raw


def test_an_id_given_after_a_request_without_a_question_mark(masker):
    """ "Please share your member ID." asks as much as "Could you share your member ID?"."""
    asked, told, transcript = masked_cells(
        masker,
        ("assistant", "Thanks. Please share your member ID so I can pull up the plan."),
        ("user", "Sure: HVX448120"),
        (
            "tool",
            "[09:02] Agent: Kindly enter the one-time code from the text message.\n"
            "[09:03] Caller: It is 608813.\n[09:04] Agent: Thank you, 2 items found.",
        ),
    )
    assert "HVX448120" not in told and "<INSURANCE_ID_" in told
    assert "608813" not in transcript and transcript.endswith("Thank you, 2 items found.")


def test_birth_places_dates_and_customer_numbers_under_european_labels(masker):
    form, record, prose = masked_cells(
        masker,
        ("tool", "Geburtsort: Rendsburg\nGeburtsdatum: 14.09.1972\nKunde: 5530981"),
        ("tool", json.dumps({"lugar_de_nacimiento": "Teruel", "data_di_nascita": "1969-03-02"})),
        ("user", "Cliente núm. 6620917, por favor."),
    )
    for raw in ("Rendsburg", "1972", "5530981"):
        assert raw not in form, raw
    assert "<LOCATION_" in form and "<DATE_OF_BIRTH_" in form
    assert "Teruel" not in record and "1969" not in record
    assert "6620917" not in prose and "<USER_ID_" in prose


def test_an_id_a_few_words_after_its_label_may_hold_hyphens(masker):
    out = _one(masker, "ugh my policy # got posted online: RV-5530-118 pls help")
    assert "RV-5530-118" not in out and "5530" not in out and "<INSURANCE_ID_" in out
    kept = "My account for the flight RV-5530-118 is fine."
    assert _one(masker, kept) == kept  # a thing's word between: the flight's


@pytest.mark.parametrize(
    "text",
    ["Passport expires 2031-05-01.", "Her passport renewed 2030-11-12 at the office."],
)
def test_a_date_after_an_id_word_is_no_id_for_the_label_recognizers(text):
    from agentic_pipeline.masking.detectors.labels import IdLabelRecognizer
    from agentic_pipeline.masking.detectors.numbers import NationalIdRecognizer

    assert IdLabelRecognizer().analyze(text, []) == []
    assert NationalIdRecognizer().analyze(text, []) == []


def test_passwords_under_their_label_and_dotted_handles(masker):
    answer, form, kept, post = masked_cells(
        masker,
        ("tool", "Agent: Please type your new password.\nCaller: It's quietHeron57!"),
        ("tool", "Login: marsh_wren\nPassword: tallpine9x"),
        ("user", "Password: see the shared vault. Password reset link sent."),
        ("user", "Shout-out to @odile.brennan42 for the photos."),
    )
    assert "quietHeron57" not in answer and "<CREDENTIAL_" in answer
    assert "tallpine9x" not in form and "Password: <CREDENTIAL_" in form
    assert kept == "Password: see the shared vault. Password reset link sent."
    assert "brennan42" not in post and "odile" not in post.lower()


def test_a_code_asked_for_as_a_one_time_code_without_its_full_label(masker):
    (chat,) = masked_cells(
        masker,
        (
            "tool",
            "[10:01] Agent: I texted you a code. Please enter the code here to sign in.\n"
            "[10:02] Caller: The code is 390417.\n"
            "[10:03] Agent: What is the discount code?\n[10:04] Caller: SPRING2025",
        ),
    )
    assert "390417" not in chat and "<CREDENTIAL_" in chat
    assert chat.endswith("SPRING2025")  # a shop's discount code is no secret of the person


def test_a_shops_code_asked_for_after_a_sent_message_stays(masker):
    text = (
        "[11:20] Agent: We sent your receipt. Please provide the coupon code.\n"
        "[11:21] Caller: AUTUMN2025"
    )
    assert _one(masker, text, role="tool") == text


@pytest.mark.parametrize(
    "line",
    [
        "Hosp # 6610374",
        "MR#: 5501928",
        "Med. Rec. No.: 31-774-002",
        "Record no. QN-40917",
        "Matrikelnummer 3318402",
        "matricola: 880127",
    ],
)
def test_record_and_student_numbers_after_their_abbreviated_labels(masker, line):
    out = _one(masker, line, role="tool")
    digits = "".join(c for c in line if c.isdigit())
    assert digits[-4:] not in out, out


def test_record_as_a_word_keeps_its_number(masker):
    text = "The record was 4471 points in the final round."
    assert _one(masker, text) == text


def test_a_nested_objects_words_are_not_its_numbers(masker):
    """Under a ``card``, ``phone`` or ``passport`` key, the number is masked and the words beside
    it (a brand, a phone's type, a status, a country code) stay: they are no number."""
    card, phone = masked_cells(
        masker,
        ("tool", json.dumps({"card": {"brand": "visa", "number": "4929123412341234"}})),
        ("tool", json.dumps({"phone": {"type": "mobile", "number": "4155550188"}})),
    )
    assert json.loads(card)["card"]["brand"] == "visa"
    assert "4929123412341234" not in card
    assert json.loads(phone)["phone"]["type"] == "mobile" and "4155550188" not in phone


def test_an_objects_kind_key_types_its_number(masker):
    """An object that says what document it holds ({"type": "passport", "number": ...},
    {"kind": "driver licence", "value": ...}) has that id under its number or value key,
    whatever its parent's key; a coupon's value is no one's."""
    (out,) = masked_cells(
        masker,
        (
            "tool",
            json.dumps(
                {
                    "docs": [
                        {"type": "passport", "number": "52RT80416", "country": "FRA"},
                        {"kind": "driver licence", "value": "K7730518"},
                        {"type": "coupon", "value": "SPRING24X"},
                    ]
                }
            ),
        ),
    )
    docs = json.loads(out)["docs"]
    assert docs[0]["number"].startswith("<ID_DOCUMENT_") and docs[0]["country"] == "FRA"
    assert docs[1]["value"].startswith("<ID_DOCUMENT_") and docs[2]["value"] == "SPRING24X"


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        # a label with its vehicle or its issuer's initials after it
        ("Numer rejestracyjny samochodu", "VEHICLE_ID"),
        ("Kennzeichen des Fahrzeugs", "VEHICLE_ID"),
        ("Licence FFT", "ID_DOCUMENT"),
        ("Member no. AXA", "INSURANCE_ID"),
        # initials after an account's label may be a currency; after a name label, no id
        ("Account GBP", None),
        ("Name WHO", None),
        ("Arrival date UTC", None),
        # plates of more countries, a patient's id abbreviated
        ("SPZ", "VEHICLE_ID"),
        ("Rendszám", "VEHICLE_ID"),
        ("Pt ID", "MEDICAL_RECORD"),
        # a health card, an Indian health scheme's card, an Indonesian chassis number
        ("Versichertenkarte", "INSURANCE_ID"),
        ("आयुष्मान कार्ड", "INSURANCE_ID"),
        ("Nomor rangka", "VEHICLE_ID"),
    ],
)
def test_a_label_qualified_after_it_and_more_plate_labels(label, expected):
    assert label_entity(label) == expected


def test_qualified_labels_in_a_form_and_a_json_record(masker):
    form = "Inscription course\nLicence FFT : 0451928\nSPZ: 7KL 3306\nPt ID: Q-55012978"
    record = '{"Numer rejestracyjny samochodu": "PO 3R881", "Licence FFT": "0451928"}'
    out = _one(masker, form) + _one(masker, record, role="tool")
    for value in ("0451928", "7KL 3306", "Q-55012978", "PO 3R881"):
        assert value not in out


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # an id word before the label's noun, as Romance and Slavic languages write it
        ("[INFO] registro.salva id_cliente=KT-55190 esito=ok", "KT-55190"),
        ("nr_pracownika: WR-3381", "WR-3381"),
        ("N° de afiliado: AF-70215", "AF-70215"),
        # a compound with its id word, a full-width colon, a Romanian record sheet
        ("Führerscheinnummer: B072K55X901", "B072K55X901"),
        ("登记表\n身份证号： 330106199203154417", "330106199203154417"),
        ("Nr. foaie de observație: 30418", "30418"),
    ],
)
def test_labels_opening_with_an_id_word_and_more_languages(masker, text, value):
    assert value not in _one(masker, text, role="tool")


def test_a_lead_stem_alone_after_id_or_an_everyday_one_is_no_label():
    from agentic_pipeline.masking.detectors.labels import IdLabelRecognizer

    recognizer = IdLabelRecognizer()
    assert recognizer.analyze("afiliado: AF-70215", []) == []
    assert len(recognizer.analyze("Nº afiliado: AF-70215", [])) == 1
    # "id" numbers records of things as often; an everyday word numbers a user story, an order
    for key in ("id_afiliado", "id_documento", "numero_ordem", "Nº de historia", "id_conta"):
        assert label_entity(key) is None, key


@pytest.mark.parametrize(
    "text",
    [
        "On a retrouvé la Twingo RT-618-KP devant la gare.",
        "De bestelbus 41-TKV-8 staat bij de garage.",
        "Zijn motor is VR-702-B, niet de mijne.",
        "La voiture 2-KWT-418 est mal garée.",
        "Permit for QZ71 VKT until May.",  # British shape, letters the DVLA leaves unused
        "주차 위반 차량 47다 8120 확인 바랍니다.",
        "Машина Е 418 КХ 150 стоит у подъезда.",
        "बिक्री: स्कूटर, नंबर RJ 14 QX 7730, पहला मालिक",
        "Parked: GJ-01-KM-4429 near gate 3",
        "Başvurunuz üzerine 35 TRV 802 plakalı aracın cezası silindi.",
    ],
)
def test_plates_of_strict_national_formats_are_masked_without_a_label(masker, text):
    out = _one(masker, text)
    assert "<VEHICLE_ID_" in out, out


def test_a_part_number_of_two_letter_groups_stays(masker):
    assert "AB-12-CD" in _one(masker, "Part no. AB-12-CD is back in stock.")
    assert "2024 EDITION" in _one(masker, "Order the 2024 EDITION today.")
    assert "10월 2024" in _one(masker, "행사는 10월 2024 예정입니다.")  # a month, no Korean plate
    # an Indian plate's shape whose series is a word
    assert "AS 2 OF 2024" in _one(masker, "SCHEDULE AS 2 OF 2024 APPLIES")


@pytest.mark.parametrize(
    ("text", "plate"),
    [
        ("Fleet: [1HGCM82633A004352, 5QWT318] / depot 4", "5QWT318"),
        ("KVR 5120 (OR), VIN 1HGCM82633A004352, 2021 Volvo XC90 T8", "KVR 5120"),
        ("dock K | 1HGCM82633A004352 | TQ-48 LMX | due 03/02", "TQ-48 LMX"),
        # a VIN whose serial holds letters, after a Swedish label
        ("Bilar\nQXV 72B, chassinummer 1FTFW1ET5DFC1S312 / Malmö", "QXV 72B"),
    ],
)
def test_a_plate_in_a_cell_of_a_vins_line_is_masked(masker, text, plate):
    out = _one(masker, text)
    assert plate not in out and "<VEHICLE_ID_" in out and not re.search(r"[A-Z0-9]{17}", out), out
    assert "XC90 T8" in out or "XC90" not in text, out  # a model's name in the sentence stays


def test_a_plate_label_opening_a_cell_of_a_vins_line_stays(masker):
    out = _one(masker, "Prodám vůz, STK do 2028, SPZ 4KT 5520, VIN TMBJJ7NE8J0123456")
    assert "SPZ <VEHICLE_ID_" in out and "4KT 5520" not in out, out


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # the parts a recognizer's pattern left out, glued by "-", "." or "/"
        ('renewal: license_lookup(number="LPN.207731")', "LPN.207731"),
        ("Crew: Odile Marsk (CDL W310-4481-2207), bus 12", "W310-4481-2207"),
        ("Номер читательского билета: ЧБ-0091532", "ЧБ-0091532"),
        # an IFSC without a label, its one digit the fixed zero
        ("Refund to 50100234771, KKBK0FHRTWQ, by Friday", "KKBK0FHRTWQ"),
        ("NHI: QRT4412, seen in clinic", "QRT4412"),
        ("振込先：あおば銀行 本町支店（支店番号 552） 普通 1234567", "552"),
        ('{"fuehrerschein": "K21Q4401873", "frequent_flyer": "QX55120934"}', "K21Q4401873"),
        ('{"fuehrerschein": "K21Q4401873", "frequent_flyer": "QX55120934"}', "QX55120934"),
        ("dr. Ilse Vranken, pecsétszám 40512", "40512"),
        ("Paciente: Odile Marsk — C.C. 1.052.334.871 / EPS Sur", "1.052.334.871"),
    ],
)
def test_an_ids_glued_parts_and_more_labels(masker, text, value):
    out = _one(masker, text)
    bare = TOKEN_RE.sub("", out)
    assert not any(part in bare for part in re.split(r"[-./]", value) if part), out


def test_a_shopping_centre_abbreviated_like_an_id_label_stays(masker):
    # (the label is the point: whether the name model reads "Plaza" as a surname is its own)
    out = _one(masker, "Nos vemos en el C.C. Gran Plaza 2, local 14.")
    assert "C.C. Gran" in out and "_DOCUMENT_" not in out and "ID_NUMBER" not in out, out
    assert "users/" in _one(masker, "See example.org/users/88123 for the form")


@pytest.mark.parametrize(
    "text, value",
    [
        ("Lidmaatschap: relatiecode QKW4471", "QKW4471"),
        ("Oswy Quell, CRN 318Z5521K, called back", "318Z5521K"),
        ("- Ysolde Marrick, RGN, NMC 71Q4418E", "71Q4418E"),
        ('רופא מטפל: ד"ר אורי קוול , מ"ר 44812', "44812"),
        ("Ιατρός παθολόγος, ΑΜ 44812", "44812"),
        ("Αριθμός μητρώου μαθητή: 77310", "77310"),
    ],
)
def test_more_labels_of_customers_registrations_and_pupils(masker, text, value):
    assert value not in _one(masker, text)


def test_a_sort_code_before_its_account_number_is_masked_without_a_label(masker):
    """A statement line's "<sort code> <account>" pair; a date before a time or an amount stays."""
    line = _one(masker, "STANDING ORDERS\nTo Quellmoor lettings  31-47-82 40918273  £650.00")
    assert "31-47-82" not in line and "40918273" not in line
    assert "12-05-19" in _one(masker, "Backup ran 12-05-19 at 02:00, 40 files.")
    assert "12-05-24" in _one(masker, "Build 12-05-24 20240512 passed.")  # a date, no sort code


def test_a_forms_line_read_as_one_keys_value_masks_its_first_field(masker):
    """A form's line turned into one key's value ("Staff no.": "<id>   Next of kin: ...") holds
    the key's id first: it is masked, and the fields after it are read as text."""
    (out,) = masked_cells(
        masker,
        (
            "tool",
            json.dumps(
                {
                    "Staff no.": "KT-51124   Next of kin: Rolf Amsel 020 7946 0555",
                    "Trailer plate": "731 QWR   Start: 19/02/2027",
                }
            ),
        ),
    )
    doc = json.loads(out)
    assert "KT-51124" not in out and "731 QWR" not in out
    assert doc["Staff no."].split(">   ")[1].startswith("Next of kin: <PERSON_")
    assert doc["Trailer plate"].endswith("   Start: 19/02/2027") and "Rolf" not in out


def test_a_record_id_of_a_person_is_masked_whatever_its_shape_and_a_things_stays(masker):
    """A person's record's "id" or a form's "<word> ID" is that person's id even in a loose shape
    (letters and one digit); a thing's record keeps its id, with a name beside it or not."""
    (out,) = masked_cells(
        masker,
        (
            "tool",
            json.dumps(
                {
                    "members": [{"id": "W3XKQPLRZT", "nick": "otter", "real_name": "Ines Vardo"}],
                    "form": {"Name": "Kip Arnholt", "Lodge ID": "518226047   Joined: 2019"},
                    "items": [{"id": "P-88213", "name": "Rain Barrel"}],
                    "receipt": {"Donation ID": "DN-55102", "amount": 20},
                }
            ),
        ),
    )
    doc = json.loads(out)
    assert doc["members"][0]["id"].startswith("<USER_ID_")
    assert doc["form"]["Lodge ID"].startswith("<USER_ID_") and "518226047" not in out
    assert doc["items"][0]["id"] == "P-88213" and doc["receipt"]["Donation ID"] == "DN-55102"


def test_a_records_id_under_a_key_that_names_an_ids_thing_is_that_id(masker):
    """{"claims": [{"id": …}]}: a claim's id, as "claim id" labels one; an order's and a
    ticket's id stay."""
    (out,) = masked_cells(
        masker,
        (
            "tool",
            json.dumps(
                {
                    "claims": [{"id": "QC-7730-118", "status": "open", "amount": 410}],
                    "policies": [{"id": "HX4471902", "tier": "silver"}],
                    "orders": [{"id": "ORD-55120", "total": 18.5}],
                    "tickets": [{"id": "TK-20931", "state": "new"}],
                }
            ),
        ),
    )
    doc = json.loads(out)
    assert doc["claims"][0]["id"].startswith("<INSURANCE_ID_")
    assert doc["policies"][0]["id"].startswith("<INSURANCE_ID_")
    assert doc["orders"][0]["id"] == "ORD-55120" and doc["tickets"][0]["id"] == "TK-20931"


def test_ids_after_dot_leaders_on_file_labels_and_new_id_labels(masker):
    """A form's dot leader stands between a label and its value ("Driver license ....");
    "IDs on file:" is no file's number; a school id and a certificate number have labels."""
    form, listed, record = (
        _one(masker, "Permit form\nDriver license .... Q000-2281-7730\nMember no ..... 44182"),
        _one(masker, "School IDs on file: 44123987, 44123988"),
        masked_cells(
            masker,
            ("tool", json.dumps({"guardian": "Kip Arnholt", "son_school_id": "44123987"})),
            ("tool", json.dumps({"diver": "Kip Arnholt", "cert no.": "Q8812045"})),
        ),
    )
    assert "2281-7730" not in form and "44182" not in form
    assert "44123987" not in listed and "44123988" not in listed
    assert all("44123987" not in out and "Q8812045" not in out for out in record)
    assert _one(masker, "Attach the file 44123987 to the ticket.").endswith(
        "44123987 to the ticket."
    )


def test_a_sort_code_column_is_read_as_a_banks_code_not_a_date(masker):
    """A sort code ("40-11-28") reads as a date of 2040; under a sort-code header it is the
    bank's code."""
    out = _one(
        masker, "payee\tsort_code\taccount\tamount\nKip Arnholt\t40-11-28\t31926819\t420.00", "tool"
    )
    assert "40-11-28" not in out and "420.00" in out


def test_fields_written_as_a_name_and_a_value_are_read_under_their_name(masker):
    """[{"name": "dob", "value": …}]: the value is masked as under a "dob" key, and the field's
    name stays; a field that names nothing personal keeps its value; a person's name under
    "name" is no field's name."""
    fields = [
        {"name": "dob", "value": "1971-03-22"},
        {"field": "Member ID", "value": "QX-88120"},
        {"name": "full_name", "value": "Ines Vardo"},
        {"name": "color", "value": "teal"},
        {"name": "Tamsin Oduya", "value": 93},
    ]
    (out,) = masked_cells(masker, ("tool", json.dumps({"fields": fields})))
    got = json.loads(out)["fields"]
    assert got[0]["value"].startswith("<DATE_OF_BIRTH_") and got[0]["name"] == "dob"
    assert got[1]["value"].startswith("<INSURANCE_ID_") and "Ines Vardo" not in out
    assert got[2]["name"] == "full_name" and got[3] == {"name": "color", "value": "teal"}
    assert "Tamsin" not in out and got[4]["value"] == 93  # a person's score: the name is hers


def test_an_id_shaped_token_of_a_persons_record_is_masked_and_a_things_date_stays(masker):
    """In a person's record (a name and a birth date beside it), an id-shaped string under a key
    that names no thing is that person's id; times, codes with "_", counts and postcodes keep
    their own rules."""
    record = {
        "diver": "Kip Arnholt",
        "born": "1990-04-11",
        "dive card": "Q8812045",
        "signed_at": "2024-05-05T10:00:00Z",
        "plan_code": "PLAN_2024",
        "logged dives": "112",
    }
    (out,) = masked_cells(masker, ("tool", json.dumps(record)))
    got = json.loads(out)
    assert got["dive card"].startswith("<") and "Q8812045" not in out
    assert got["signed_at"] == record["signed_at"] and got["plan_code"] == "PLAN_2024"
    assert got["logged dives"] == "112"


def test_a_vanity_plate_after_a_plate_label_is_masked_in_prose_json_and_columns(masker):
    """A vanity plate is capitals with as little as one digit ("QRNSKY4"): short of an id's shape,
    but a plate label's value. A year after the label, or a word, stays."""
    assert "QRNSKY4" not in _one(masker, "Traded in the wagon; plate QRNSKY4 went with it.")
    out = _one(masker, json.dumps({"plate": "BRM2ZAP", "model_year": "2016"}), "tool")
    assert "BRM2ZAP" not in out and "2016" in out
    table = _one(masker, "unit\tplate\tstatus\nvan 3\tWYND5R\tparked", "tool")
    assert "WYND5R" not in table and "parked" in table
    assert "2019" in _one(masker, "Plate 2019 renewal is due next week.")
    assert "LATER" in _one(masker, "Plate LATER, the form said.")


def test_a_snake_case_key_ending_in_an_id_label_labels_its_value_in_a_log_line(masker):
    """``key=value`` log lines: a key whose last part is a label ("prev_plate", "home_passport_no")
    labels its value; a key ending in a bare id word ("request_id", "batch_no") is a thing's."""
    line = "INFO yard: bay=14 prev_plate=HZV 2207 alt_passport_no: P8841207 request_id=RQ88120455"
    out = _one(masker, line, "tool")
    assert "HZV 2207" not in out and "P8841207" not in out
    assert "RQ88120455" in out and "bay=14" in out
    assert "B-55120" in _one(masker, "WARN batch_no=B-55120 retried", "tool")


def test_chinese_and_japanese_plates_are_masked_in_text_without_spaces(masker):
    """A Chinese plate (a province's character, the city's letter, five or six more) and a
    Japanese one (office, class, kana, number) are masked wherever they stand; an order number
    of more characters after a province's character stays."""
    zh, ja, order = (
        _one(masker, "我的车是苏E·7K2Q9，停在地库"),
        _one(masker, "車両は練馬 330 ほ 41-07 です"),
        _one(masker, "订单号苏E12345678已发货"),
    )
    assert "7K2Q9" not in zh and "41-07" not in ja and "12345678" in order


def test_the_words_of_an_id_label_stay_in_clear_before_its_value(masker):
    """The first word of a label that opens a line ("Nomor polisi:", "Osobní číslo
    zaměstnance:") is no name, even where the name model reads it as one."""
    plate, staff = (
        _one(masker, "Nomor polisi: D 7712 QRT", "tool"),
        _one(masker, "Osobní číslo zaměstnance: 58120", "tool"),
    )
    assert plate.startswith("Nomor polisi: <VEHICLE_ID_") and "7712" not in plate
    assert staff.startswith("Osobní číslo zaměstnance: <USER_ID_"), staff
