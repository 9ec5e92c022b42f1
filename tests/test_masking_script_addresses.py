"""Issue #21 point 3: addresses of the languages the Latin street patterns do not read (Persian,
Arabic, Hindi, Cyrillic, Vietnamese, Indonesian, Filipino, Turkish, Swahili, Thai, Japanese in
Latin letters) masked whole by their address words; a year, a floor or an
order number in a sentence stays.

Every street, city, postcode and sentence here is invented for this test (no corpus value).
"""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.script_addresses import script_address_spans

KEY = "script-addresses-test-key-0123456789abcdef01"


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("نشانی ما: شیراز، بلوار زند، پلاک ۲۲، طبقه ۴", "شیراز، بلوار زند، پلاک ۲۲، طبقه ۴"),
        (
            "العنوان: الرياض، شارع الملز، عمارة 7، شقة 12، الرمز البريدي 12631",
            "الرياض، شارع الملز، عمارة 7، شقة 12، الرمز البريدي 12631",
        ),
        (
            "Giao tới: Số 8 đường Hoa Sữa, Phường Tân Lạc, Quận 1, TP. Vĩnh Hòa nhé",
            "Số 8 đường Hoa Sữa, Phường Tân Lạc, Quận 1, TP. Vĩnh Hòa",
        ),
        (
            "Kirim ke Jl. Kenanga No. 5, RT 02/RW 07, Kel. Cempaka, Surabaya 60231 ya kak",
            "Jl. Kenanga No. 5, RT 02/RW 07, Kel. Cempaka, Surabaya 60231",
        ),
        (
            "पता: मकान नं. 23, गली नं. 9, शिव नगर, कमलपुर 302017",
            "मकान नं. 23, गली नं. 9, शिव नगर, कमलपुर 302017",
        ),
        (
            "ที่อยู่ เลขที่ 12/3 ซอยลาดพร้าว 5 แขวงจอมพล เขตจตุจักร กรุงเทพฯ 10900",
            "เลขที่ 12/3 ซอยลาดพร้าว 5 แขวงจอมพล เขตจตุจักร กรุงเทพฯ 10900",
        ),
        (
            "Адрес: гр. Пловдив, ж.к. Тракия, бл. 34, вх. А, ет. 2, ап. 5",
            "гр. Пловдив, ж.к. Тракия, бл. 34, вх. А, ет. 2, ап. 5",
        ),
        (
            "Purok 2, Brgy. Malinis, Liwanag City, Kalayaan",
            "Purok 2, Brgy. Malinis, Liwanag City, Kalayaan",
        ),
        (
            "Yeni adres Caferağa Mah. Moda Cad. No: 18 D: 3, Serinköy/Aydınlar",
            "Caferağa Mah. Moda Cad. No: 18 D: 3, Serinköy/Aydınlar",
        ),
        ("Barua: S.L.P. 4410, Mwanza, Tanzania", "S.L.P. 4410, Mwanza, Tanzania"),
        # a name before the part that opens the address is no city of it; the town after it is
        (
            "Kargo notu: Sayın Ekin Tarhan, siparişiniz Yıldırım Mah. 88 Sok. No: 3, "
            "Gölbaşı/Kıranlar adresine çıktı",
            "Yıldırım Mah. 88 Sok. No: 3, Gölbaşı/Kıranlar",
        ),
        (
            "Ship to 2-9 Tomioka 4-jo Sakuragi 2-chome, Hinode-ku, Kawabe 040-0011, Japan",
            "2-9 Tomioka 4-jo Sakuragi 2-chome, Hinode-ku, Kawabe 040-0011, Japan",
        ),
        # a Macedonian or Serbian house number after "бр." ("number"), a flat ("стан")
        ("Живее на ул. Дреновска бр. 41/2, 6330 Стругово", "ул. Дреновска бр. 41/2, 6330 Стругово"),
        (
            "Доставити на Булевар Мирослава 7, стан 19, 34117 Рашевац",
            "Булевар Мирослава 7, стан 19, 34117 Рашевац",
        ),
        # an id card's "số <number>" and the words after it open no address; the street's own
        # "số 57" before its word does (and an amount far before a Jalan)
        (
            "Anh nhớ mang thẻ số 030712558816 và giấy khám sức khỏe đến trung tâm tại số 57 "
            "đường Cây Bàng, Phường Lạc Viên, TP. Ngân Khê trước thứ Sáu.",
            "số 57 đường Cây Bàng, Phường Lạc Viên, TP. Ngân Khê",
        ),
        (
            "Bayar 250000 rupiah lewat aplikasi lalu ambil barang di Jl. Kemuning No. 14, Bantul",
            "Jl. Kemuning No. 14, Bantul",
        ),
        # one street word, its name and number, then the town
        ("הפגישה תתקיים בכתובת שדרות הדקלים 23, כפר יונה. נא להגיע", "שדרות הדקלים 23, כפר יונה"),
        ("Пакет оставить: ул. Лесная 9, Вышний Волочёк", "ул. Лесная 9, Вышний Волочёк"),
        # a flat written with a nukta
        (
            "नया पता — फ़्लैट 407, सरोवर अपार्टमेंट, हजरतगंज, सीतापुर 261001",
            "फ़्लैट 407, सरोवर अपार्टमेंट, हजरतगंज, सीतापुर 261001",
        ),
    ],
)
def test_an_address_is_found_whole_by_its_words(text, address):
    spans = [text[s:e] for s, e, *_ in script_address_spans(text)]
    assert spans == [address]


@pytest.mark.parametrize(
    "text",
    [
        "Мы встретились в 2019 г. в Москве, на ул. Тверской, у дома 5",
        "Kat 3'te toplantı var, Daire başkanı geldi",
        "Order No. 12345, shipped via DHL, thanks",
        "Số điện thoại của tôi là 0912 345 678, cảm ơn",
        "من در خیابان اصلی شهر ۳ سال زندگی کردم و بعد به شیراز رفتم",
        "The meeting is in Room 4, City Hall, at 10 am",
    ],
)
def test_a_year_a_floor_or_an_order_number_is_no_address(text):
    assert script_address_spans(text) == []


def test_the_masker_writes_one_token_for_the_address(masker):
    text = "Cliente nuevo. Địa chỉ: Số 31 ngõ 7 Phố Lụa, Phường Cửa Nam, Hà Nội. Cảm ơn!"
    (out,) = masked_cells(masker, ("user", text))
    for part in ("31", "Lụa", "Cửa Nam", "Hà Nội"):
        assert part not in out, (part, out)
    assert out.count("<STREET_ADDRESS_") == 1, out
    assert out.startswith("Cliente nuevo.") and out.endswith(". Cảm ơn!"), out


@pytest.mark.parametrize(
    ("text", "kept", "parts"),
    [
        # address labels of languages the first lists lacked: Basque, Welsh
        ("Helbidea: Lizarreta kalea 9, 2. ezk., 20570 Orbegi", "Helbidea:", ("Lizarreta", "20570")),
        ("Cyfeiriad: 14 Heol y Fedwen, Llanddewin, LL55 4RT", "Cyfeiriad:", ("Fedwen", "LL55")),
    ],
)
def test_an_address_after_a_label_of_more_languages_is_masked(masker, text, kept, parts):
    (out,) = masked_cells(masker, ("user", text))
    assert out.startswith(kept), out
    for part in parts:
        assert part not in out, (part, out)
