"""Issue #21: labels read in more of the ways forms and logs write them. A label is no name
("NINO", "Hosp." before their values), an id under a label line without a colon, a label and
its value a few words apart ("member ID on file is …"), a birth date written year first or by
Python's ``repr``. Every sentence and value here is written for this test (no corpus value).
"""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.patterns import STREET_RE
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


@pytest.mark.parametrize(
    ("text", "date"),
    [
        # asked for, then given on the next line of a call transcript
        ("Agente: ¿me confirma su fecha de nacimiento?\nCliente: 21 de octubre de 1968.", "21"),
        ("Agent: and your date of birth, please?\nCaller: 5 June 1949", "5 June 1949"),
        # Portuguese and Nordic month names, more birth words
        ("A avó nasceu em 9 de novembro de 1933 em Braga.", "9 de novembro de 1933"),
        ("Farfar föddes... född 14 augusti 1941 i Luleå.", "14 augusti 1941"),
        ("Patiente née le 3 mars 1950 à Lyon.", "3 mars 1950"),
        ('{"Születési dátum": "1963.11.27."}', "1963.11.27"),
        # a birth date under its key in other languages
        ('{"Data de nascimento": "03/07/1972", "Cidade": "Faro"}', "03/07/1972"),
        ('{"Födelsedatum": "1966-02-11"}', "1966-02-11"),
    ],
)
def test_birth_dates_asked_for_in_other_month_names_and_keys(masker, text, date):
    assert date not in _masked(masker, "tool", text)


@pytest.mark.parametrize(
    "text",
    [
        "Agent: which delivery date suits you?\nCaller: 5 June 2027",
        "Bot: Happy birthday! Shall I book a table for the party?\nUser: 21 March 2019",
        "Agent: your date of birth is confirmed. Which day suits you?\nCaller: 14 June 2019",
        "When is the birthday party?\nSaturday 9 May 2099",
    ],
)
def test_a_date_asked_for_that_is_no_birth_date_stays(masker, text):
    date = text.rsplit(" ", 3)[-3:]
    assert " ".join(date) in _masked(masker, "tool", text)


def test_a_label_word_after_a_name_goes_before_an_id_word_or_a_value():
    text = "Payee: Orla Teague Sort code 60-93-15"
    span = (7, 23, "PERSON", 0.6, "m")  # "Orla Teague Sort"
    assert without_labels(text, span) == (7, 18, "PERSON", 0.6, "m")
    text = "Bay 3 Quenby, Aldo PID K-40917"
    assert without_labels(text, (6, 22, "PERSON", 0.6, "m")) == (6, 18, "PERSON", 0.6, "m")
    # a label word that ends the text or a sentence stays where the model put it
    assert without_labels("Ask Aldo Sort", (4, 13, "PERSON", 0.6, "m"))[1] == 13


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Tarjeta sanitaria (CIP): MURC0512998431", "MURC0512998431"),
        ("Re: tenancy ref TEN/55120 — arrears", "TEN/55120"),
        ("Anställd: x   Anst.nr 7731   Personnr saknas", "7731"),
        ("Utbetalning till banken, clearing 8412-7 konto 9911223344", "8412-7"),
        ("학생 번호: QK-2025-7731", "QK-2025-7731"),
        ('najdi_studenta(os_cislo="B22K4410")', "B22K4410"),
        ("C.I. seria XT 448812", "XT 448812"),
        ("Dr. Quennelby (CPSO 71245)", "71245"),
        ("kendaraan bernomor D 4410 QRT telah disetujui", "D 4410 QRT"),
        ("[agent] fordon: XQV 44B chassinr okänt", "XQV 44B"),
        ("login user: 88412 failed twice", "88412"),
        ("escalated by user #52218 after the outage", "52218"),
    ],
)
def test_more_id_labels_and_their_forms(masker, text, value):
    """A label with an abbreviation in brackets before its colon, tenancy references, Swedish
    staff and clearing numbers, Korean and Czech student numbers, a Romanian identity card's
    series and number, a physicians' college registration, plates after a vehicle word and a
    colon, a service's user by number."""
    out = _masked(masker, "user", text)
    assert value not in out, out
    assert not any(part in out for part in value.split() if any(c.isdigit() for c in part)), out


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("Lagerhal B · medarb.nr. VX-3308 · vagt nat", "VX-3308", "USER_ID"),
        ("Halter wechselt, altes Kennz. ST-QW 590 entfällt", "ST-QW 590", "VEHICLE_ID"),
        ("Bitte die eVB-Nr. 4TX8KP2 an die Zulassungsstelle", "4TX8KP2", "INSURANCE_ID"),
        ("Плательщик найден, сч. № 40817810700012345098 закрыт", "40817810700012345098", "BANK"),
        ("Εισαγωγή, αρ. φακέλου ΚΡΤ-70914, θάλαμος 3", "ΚΡΤ-70914", "MEDICAL_RECORD"),
        ("Kopi af: nr dowodu osob. KXW 530916 (ważny)", "KXW 530916", "ID_DOCUMENT"),
        ("Aplikuesi, nr. personal G70415338N, banon në Durrës", "G70415338N", "ID_DOCUMENT"),
        ("Insurance policy no (see the renewal letter): YT-2290-4471", "YT-2290-4471", "INSUR"),
        # Greek "αρ." (number) before a label's own word, as "nr" before a Polish one
        ("Νέα εγγραφή — αρ. μητρώου: ΛΧ-30552, τμήμα Β", "ΛΧ-30552", "USER_ID"),
    ],
)
def test_labels_written_short_and_a_note_in_brackets_before_the_colon(masker, text, value, kind):
    """Labels abbreviated as forms write them (a Danish staff number, a German plate and motor
    insurance confirmation, a Russian account, a Greek file number, a Polish identity card with
    its series, an Albanian personal number), and a note in brackets between a label and its
    colon: each value is masked whole, as its label's type."""
    out = _masked(masker, "user", text)
    assert not any(part in out for part in value.split()), out
    assert f"<{kind}" in out, out


@pytest.mark.parametrize(
    "text",
    [
        "user: 14:45 suits me, thanks",
        "user: order 88120 is still open",
        "user: 3 bags, both checked",
        "user agent string 5.0 on every request",
    ],
)
def test_a_chat_speaker_called_user_says_numbers_that_stay(masker, text):
    """The word "user" labels an id only when an id's shape follows it: a time, a thing's
    number after its word, a count and a version stay."""
    assert _masked(masker, "user", text) == text


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Ημ. γέννησης: 17/08/2020", "17/08/2020"),
        ("ВНИМАНИЕ! Пропала Анна Ловцова, 1952 г.р., ушла из дома", "1952"),
        ("(0010,0030) PatientBirthDate   19720315", "19720315"),
        # dates machines and travel documents write, after a birth word
        ("QUELLBY/ANSEL   GBR 551203318  dob 23OCT86  OK", "23OCT86"),
        ("Patient QUELLBY, ANSEL  DOB 19790823 / Claim ref 4471", "19790823"),
        ("Bydd ein merch (dyddiad geni 07/02/2020) yn dechrau.", "07/02/2020"),
        ('verify(tckn="x", dogum_yili=1987)', "1987"),
    ],
)
def test_birth_dates_under_abbreviated_and_dump_labels(masker, text, date):
    out = _masked(masker, "user", text)
    assert date not in out and "<DATE_OF_BIRTH_" in out, out


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("SSN: 644-55-1203 DOB: 04/17/2006", "DOB:"),
        ("Address: 5 Quill Row, Kelby KB2 4RT Witness: Ambrose Tealby", "Witness:"),
        ("DOB: 06/21/1957 (age 65+ exemption)", "(age 65+ exemption)"),
        ("Geburtsdatum: 09.10.2011 (Mitglied), Erziehungsberechtigte: x", "(Mitglied)"),
    ],
)
def test_a_labelled_value_ends_before_the_next_label_and_a_birth_date_at_the_date(
    masker, text, kept
):
    """A form written on one line: the next "Label:" ends the value; a birth date's value is the
    date, not the note after it."""
    assert kept in _masked(masker, "user", text)


def test_a_birth_date_with_a_roman_month(masker):
    out = _masked(masker, "user", "Zgłoszenie: Tobiasz Wrzos, ur. 14 IX 2012 w Gdańsku")
    assert "14 IX 2012" not in out and "<DATE_OF_BIRTH_" in out, out


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # claims, policies, plates and driving licences in more languages
        ("Kaza bildirimi: hasar dosyası TK-60318 işleme alındı.", "TK-60318"),
        ("보험 청구번호 QH-771904 처리 완료", "QH-771904"),
        ("تم فتح رقم المطالبة BX-39120 بنجاح", "BX-39120"),
        ("Status klaim KL-2024-90317 masih diproses.", "KL-2024-90317"),
        ("Skadeärende hos oss: försäkring HEM-90317-4 gäller.", "HEM-90317-4"),
        ("Il sinistro 2024/553091 è stato aperto ieri.", "2024/553091"),
        ("Conduttore fermato, patente U1T903172 ritirata.", "U1T903172"),
        ("Řidičský průkaz: EK 903172 vydán 2019.", "903172"),
        ("Araç plaka 35 TRV 902 olarak kayıtlı.", "35 TRV 902"),
        ("Depósito feito: n.º da conta 77120-3, ontem.", "77120-3"),
        ("Atendió la Dra. Quimey Arrieta (M.P. 40317) en la guardia.", "40317"),
        # a Greek or Cyrillic series in the value, and the numero sign
        ("δίπλωμα οδήγησης ΚΡ903172 σε ισχύ", "ΚΡ903172"),
        ("συμβόλαιο ΥΓΑ-2023-7719 ανανεώθηκε", "ΥΓΑ-2023-7719"),
        ("Номер картки: ТВ-90317 (терапія)", "ТВ-90317"),
        ("Копия истории болезни № 9031/24 передана лечащему врачу", "9031/24"),
        ("आईएफएससी : QRSB0009031", "QRSB0009031"),
        # the number word in brackets after the label
        ("Le contrôle a relevé le permis de conduire (n° 22KB51930) du chauffeur.", "22KB51930"),
        # a Romanian "registered" and a Ukrainian vehicle number before a plate (its letters
        # after the digits too), a Hindi roll number
        ("Vând un Logan din 2019, înmatriculat CJ 41 WXP, stare bună.", "CJ 41 WXP"),
        ("Власник авто, номер транспортного засобу ВС 7734 ТР, чекає.", "ВС 7734 ТР"),
        ("छात्र का रोल नं. PTU/5521/19 दर्ज किया गया", "PTU/5521/19"),
        # a Korean teacher's certificate (a Hangul letter between its digits)
        ("신규 교사 교원자격번호: 77310-초-5120 (확인 완료)", "77310-초-5120"),
    ],
)
def test_ids_after_labels_of_more_languages(masker, text, value):
    """Claims, policies, plates, driving licences, accounts and medical files labelled in the
    words of more languages; a value's series in Greek or Cyrillic letters is part of it; "№"
    numbers a value as "#" does."""
    out = _masked(masker, "user", text)
    assert value not in out, out
    assert not any(part in out for part in value.split() if any(c.isdigit() for c in part)), out


@pytest.mark.parametrize(
    ("text", "date"),
    [
        (
            "Reminder for the card: Ottilde's birthday falls on the 14th of November.",
            "14th of November",
        ),
        (
            "Domenica si festeggia: il nonno compie ottantacinque anni il 18 novembre.",
            "18 novembre",
        ),
        ("Morfar fyller sjuttio den 4 oktober och vi bjuder på tårta.", "4 oktober"),
        (
            "Save the date, as Uncle Brannoc turning 65 on August 12th wants a quiet lunch.",
            "August 12th",
        ),
        ("Born on the 2nd of February in a small port town.", "2nd of February"),
        ("Nato il 1° febbraio 1947 a Ragusa.", "1° febbraio 1947"),
    ],
)
def test_a_birthday_without_its_year_and_an_ordinal_day(masker, text, date):
    """A day and month after a birthday or birth word or an age being turned is a birth date
    without its year; "1°" is a day as "1st" is."""
    out = _masked(masker, "user", text)
    assert date not in out and "<DATE_OF_BIRTH_" in out, out


@pytest.mark.parametrize(
    "text",
    [
        "The parcel turns up on 3 May, ring twice.",
        "Das Paket wird am 3. Mai geliefert.",
        "Meeting on 9 June about the birth rate figures.",
    ],
)
def test_a_day_and_month_without_a_birthday_stays(masker, text):
    assert "<DATE_OF_BIRTH_" not in _masked(masker, "user", text)


def test_staff_numbers_under_abbreviated_headers_and_a_managers_key(masker):
    """A staff list's "Pers.-Nr." header with its full stop (beside an extension column), a
    semicolon export's "nº trabajador", a crew list's "crew_id" and a record's "manager_id":
    each column's or key's values are staff numbers; the extensions and departments stay."""
    bars, semicolons, crew, record = masked_cells(
        masker,
        (
            "tool",
            "Personalliste Werk Ulm\nPers.-Nr. | Name | Abteilung | Durchwahl\n"
            "31174 | Jonas Terweil | Montage | -117\n31580 | Greta Ambsdorf | Versand | -120",
        ),
        (
            "tool",
            "nº trabajador;nombre;alta\n0041;Rosa Villaverde;01/11/2025\n"
            "0077;Iker Zubiaurre;02/11/2025",
        ),
        ("tool", "crew_id,name,base\nK0419,Tove Brandqvist,Oslo\nK0533,Ilan Mercado,Lima"),
        ("tool", "employee:\n  id: QA-55120\n  manager_id: QA-10442\n  team: Field Service"),
    )
    for value in ("31174", "31580", "Terweil"):
        assert value not in bars, bars
    assert "-117" in bars and "Montage" in bars, bars
    assert "0041" not in semicolons and "0077" not in semicolons, semicolons
    assert "K0419" not in crew and "K0533" not in crew and "Oslo" in crew, crew
    assert "QA-10442" not in record and "Field Service" in record, record


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        (
            "วันเกิด: 9 กรกฎาคม 2531",
            "9 กรกฎาคม 2531",
            "DATE_OF_BIRTH",
        ),  # a Thai month, a Buddhist-era year
        ("Дете: Милан Петровић, рођен 04.03.2016. ЈМБГ следи", "04.03.2016", "DATE_OF_BIRTH"),
        ("Tarikh lahir: 3 Ogos 1984", "3 Ogos 1984", "DATE_OF_BIRTH"),  # a Malay month
        ("la mia autovettura targata FK 402 TR è stata tamponata", "FK 402 TR", "VEHICLE_ID"),
        ("kereta Proton Saga nombor pendaftaran BQT 5081 hilang", "BQT 5081", "VEHICLE_ID"),
        ("min bil (JRX 418) stod på platsen", "JRX 418", "VEHICLE_ID"),
        (
            "Dott. Ruggero Iaccarino — iscr. Ordine n. BA-55120 — studio chiuso",
            "BA-55120",
            "LICENSE",
        ),
        ("hringdu í síma 771 2084 eftir hádegi", "771 2084", "PHONE_NUMBER"),
        ("Mon  Dr. Ayodele Brandt  pager 555-0133", "555-0133", "PHONE_NUMBER"),
        # a Greek identity card's and register's abbreviations name the value's kind
        (
            "Υποβλήθηκε αίτηση με Α.Δ.Τ. ΑΝ 552071 από τον αιτούντα.",
            "ΑΝ 552071",
            "ID_DOCUMENT",
        ),
        (
            "Η Δρ. Ευανθία Κουρή (καρδιολόγος, Α.Μ. 51207) δέχεται Τρίτη.",
            "51207",
            "PROFESSIONAL_LICENSE",
        ),
    ],
)
def test_birth_dates_plates_licences_and_phones_in_more_languages(masker, text, value, kind):
    """Thai, Malay and Serbian months and birth words, an Italian "plated" and a Malay
    registration number before a plate, a plate in brackets after a vehicle word, an Italian
    clinician's register number, an Icelandic phone word and a ward's pager."""
    out = _masked(masker, "user", text)
    assert value not in out and f"{kind}_" in out, out


def test_a_rotas_date_and_weekday_lines_hold_no_street():
    """A house number and its street's name stand on one line: a date ending one line and
    "Tue  Dr. <name>" opening the next are no "Tue Dr." street."""
    text = "ROTA week of 07/14\nMon  Dr. Ayodele Brandt  x\nTue  Dr. Wenzel Harrop   x"
    assert [m.group() for m in STREET_RE.finditer(text)] == []


def test_a_staff_number_equal_to_the_days_year_does_not_withhold_the_episode(masker):
    """A staff number "2026" is masked as a known value; the day's partition "2026-11-28" on every
    row is no leak of it, so the episode is written (``masked_cells`` asserts none withheld)."""
    (table,) = masked_cells(masker, ("tool", "employee id;team\n2026;Montage\n2031;Versand"))
    assert "2026" not in table and "2031" not in table and "Versand" in table, table


def test_staff_numbers_after_matr_and_under_a_czech_abbreviated_header(masker):
    """An Italian payroll's "matr." in prose and in a bank line written in capitals, and a Czech
    staff table's "os. č." header: their values are staff numbers; the extension stays."""
    prose, bank, table = masked_cells(
        masker,
        ("user", "Il dipendente Brusasco (matr. QX-4471) è in ferie fino a lunedì 2210."),
        ("tool", "ACCREDITO EMOLUMENTI MARZO MATR. QX-5512 — 1.880,00 EUR"),
        (
            "tool",
            "os. č. | příjmení a jméno | středisko\n5521 | Kalousek Bořivoj | sklad\n"
            "5538 | Hrubínová Zdeňka | expedice",
        ),
    )
    assert "QX-4471" not in prose and "lunedì 2210" in prose, prose
    assert "QX-5512" not in bank and "1.880,00 EUR" in bank, bank
    assert "5521" not in table and "5538" not in table and "sklad" in table, table
