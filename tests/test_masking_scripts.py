"""Names and birth dates written in scripts that no name list holds (Japanese, Chinese, Korean,
Cyrillic, Arabic): a person label decides the name, a birth word or an old year the date. The
sentences are written for these tests."""

from __future__ import annotations

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.names.fields import (
    person_key,
    script_label_values,
    script_list_values,
    script_speaker_values,
    script_title_values,
)
from agentic_pipeline.masking.router import Route, route

KEY = b"k" * 32


@pytest.fixture(scope="module")
def masker():
    with Masker(key=KEY, n_workers=1) as m:
        yield m


def _values(text: str) -> list[str]:
    return [text[a:b] for a, b in script_label_values(text)]


def test_person_labels_of_other_scripts_and_their_values():
    assert person_key("患者氏名") and person_key("お名前") and person_key("фио")
    assert not person_key("紹介先") and not person_key("住所")
    text = "受付票\n患者氏名：高橋 由紀 様\n住所：港区\n担当医：森 和也 先生\n"
    assert _values(text) == ["高橋 由紀", "森 和也"]
    assert _values("ФИО: Белова Ирина Олеговна\nГород: Самара") == ["Белова Ирина Олеговна"]
    assert _values("이름: 박서연\n주소: 서울") == ["박서연"]
    assert _values("الاسم: ليلى حداد") == ["ليلى حداد"]
    # a Latin name is the name model's to decide, a digit is no name, a shared label holds
    # companies as often
    assert _values("氏名：Ines Vidal") == []
    assert _values("患者：第3病棟") == []
    assert _values("Customer: ООО Северный Ветер") == []


def test_labelled_names_and_birth_dates_in_other_scripts_are_masked(masker):
    jp, zh, ko, ru = masked_cells(
        masker,
        ("tool", "紹介状\n患者氏名：高橋 由紀 様\n生年月日：1984年11月2日\n紹介先：北山病院"),
        ("user", "姓名：陈志远"),
        ("tool", "이름: 박서연\n생년월일: 1992년 7월 19일"),
        ("tool", "ФИО: Белова Ирина Олеговна\nДата рождения: 04.08.1975"),
    )
    assert "高橋" not in jp and "由紀" not in jp and "1984" not in jp
    assert "様" in jp and "北山病院" in jp  # the honorific and the hospital stay
    assert "陈志远" not in zh
    assert "박서연" not in ko and "1992" not in ko
    assert "Белова" not in ru and "1975" not in ru


def test_a_transfers_parties_telugu_names_and_a_long_arabic_name_after_labels():
    """Sender, recipient and payee labels of Ukrainian, Persian and Japanese, Telugu's name
    label, and an Arabic name of five words (a chain of fathers' names) after a name label."""
    assert _values("Отримувач: Коваль Марина Петрівна") == ["Коваль Марина Петрівна"]
    assert _values("فرستنده: نیلوفر رحیمی") == ["نیلوفر رحیمی"]
    assert _values("受取人名：スズキ ケンタ") == ["スズキ ケンタ"]
    assert _values("పేరు: రామ కృష్ణ రావు") == ["రామ కృష్ణ రావు"]
    assert _values("الاسم الكامل: عبد الله بن سالم القحطاني") == ["عبد الله بن سالم القحطاني"]
    # a transfer's parties in Hebrew and Hindi
    assert _values("מוטב: עומר ברזני") == ["עומר ברזני"]
    assert _values("भेजने वाला: सरिता मेहरोत्रा") == ["सरिता मेहरोत्रा"]


def test_a_company_after_a_person_label_or_a_closing_stays(masker):
    """A payer that is a company: its legal form opens the value and its name is quoted
    ("ООО «…»"), no person's; an Indonesian insurer signing a letter stays; the person paid is
    masked."""
    assert _values("Плательщик: АО «Тихая Заводь»") == []
    ru, id_ = masked_cells(
        masker,
        ("tool", "Платёж № 31\nПлательщик: ООО «Ясный Берег»\nПолучатель: Карпова Дина Олеговна"),
        ("user", "Klaim Anda sudah kami proses.\nHormat kami,\nAsuransi Cemara Lestari"),
    )
    assert "Ясный Берег" in ru and "Карпова" not in ru, ru
    assert "Asuransi Cemara Lestari" in id_, id_


def test_labels_of_more_languages_and_an_equals_sign(masker):
    """Person labels of Thai, Persian and Korean letters (``labels.yaml`` ``person``), a
    key written with "=", and birth dates of a Japanese era, in Persian digits, after a Catalan
    birth word and before a German birthday word of a past year."""
    assert _values("แพทย์: สมชาย ใจดี") == ["สมชาย ใจดี"]
    assert _values("نام بیمار: سارا کاظمی") == ["سارا کاظمی"]
    assert _values("이름= 정하윤") == ["정하윤"]
    jp, fa, ca, de, party = masked_cells(
        masker,
        ("tool", "患者氏名：森 和也 様\n生年月日：平成3年8月14日"),
        ("tool", "تاریخ تولد: ۱۳۷۲/۰۹/۲۱"),
        ("user", "Inscripció de l'Arnau, nascut el 12 de gener de 2015."),
        ("user", "Jonte hat am 4. Mai 2018 Geburtstag, er wird acht."),
        ("user", "Wir feiern am 4. Mai 2026 Geburtstag im Garten."),
    )
    assert "平成3年" not in jp and "۱۳۷۲" not in fa and "2015" not in ca and "2018" not in de
    assert party == "Wir feiern am 4. Mai 2026 Geburtstag im Garten."  # this year's party


def test_an_old_date_before_a_colon_and_a_space_is_a_birth_date(masker):
    (line, times) = masked_cells(
        masker,
        ("user", "Hearing test for Corwin Ashdale, 1958-06-30: mild loss on the left."),
        ("tool", "run at 2026-03-04:12:00:00"),
    )
    assert "1958-06-30" not in line and "<DATE_OF_BIRTH_" in line
    assert "2026-03-04" in times


def test_text_written_without_spaces_goes_to_the_full_analysis():
    assert route("姓名：陈志远") is Route.NER
    assert route("INV-2291") is Route.REGEX


def test_speakers_of_a_chat_in_other_scripts_but_a_forms_labels():
    line_export = "10:15\t田中 花\t明日は？\n10:16\t鈴木 一郎\t14時\n10:17\t田中 花\tはい"
    chat = "陈 明：明天 寄到 哪里？\n李 婷：寄到 公司\n陈 明：好的"
    form = "氏名：山田 太郎\n電話：03-0000-0000\n電話：03-0000-0001\n備考：なし"

    def speakers(text: str) -> list[str]:
        return [text[a:b] for a, b in script_speaker_values(text)]

    assert sorted(speakers(line_export)) == ["田中 花", "田中 花", "鈴木 一郎"]
    assert sorted(speakers(chat)) == ["李 婷", "陈 明", "陈 明"]
    assert speakers(form) == []
    assert _values("口座名義：ヤマダ　タロウ") == ["ヤマダ　タロウ"]


def test_frequent_words_of_other_letters_are_no_names_and_salutations_stay(masker):
    """Russian, Greek and Arabic words frequent in their language and in no name list are
    vocabulary ("Прошу", "Σου"); names of those letters are listed and stay names; a salutation
    before a name is a title, no part of it."""
    ru, el = masked_cells(
        masker,
        ("tool", "Директору от Сафоновой Дарьи Игоревны\nЗАЯВЛЕНИЕ\nПрошу предоставить отпуск."),
        ("user", "Αγαπητή Ευτέρπη,\nΣου στέλνω τα έγγραφα αύριο."),
    )
    assert "Прошу предоставить отпуск." in ru and "Сафоновой" not in ru
    assert el.startswith("Αγαπητή <PERSON_") and "Σου στέλνω" in el and "Ευτέρπη" not in el


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("寄到 南京市鼓楼区中山北路 118 号 2 幢 3 单元 601 谢谢", ("中山北路", "118", "601")),
        ("寄到 成都市武侯区人民南路88号5号楼1201室 就行", ("人民南路", "1201")),
        (
            "收件地址：江苏省 苏州市 姑苏区 干将路 166号 2幢 501室",
            ("江苏省", "姑苏区", "干将路", "501室"),
        ),
        (
            "住所：〒604-8151 京都府京都市中京区錦小路通 4-7 ハイツ錦 305",
            ("錦小路通", "604-8151", "305"),
        ),
        ("주소는 경상남도 창원시 의창구 원이대로 45, 302호 입니다", ("원이대로", "302호")),
    ],
)
def test_chinese_japanese_and_korean_addresses_are_masked_whole(masker, text, parts):
    """Numbers and places set off by spaces, the building, unit and room after the house number,
    a Japanese postcode before it and three Korean district levels are parts of one address."""
    (out,) = masked_cells(masker, ("user", text))
    for part in parts:
        assert part not in out, (part, out)
    assert out.count("<STREET_ADDRESS_") == 1, out


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("환자성명: 문가람", "문가람"),
        ("রোগীর নাম: নাফিসা তাবাসসুম", "নাফিসা তাবাসসুম"),
        ("اسم الطفل: ريان المهيري", "ريان المهيري"),
        ("ФИО: Зорина Мила   Город: Самара", "Зорина Мила"),
        # a party of a lease, a loan or a prescription; a note in brackets after the name
        ("임대인: 변 지호 (연락처 별도)", "변 지호"),
        ("借款人: 褚子涵", "褚子涵"),
        ("処方医: 早瀬 遼 （内科）", "早瀬 遼"),
    ],
)
def test_a_label_whose_head_noun_names_a_person(text, name):
    assert _values(text) == [name]


def test_a_file_name_label_names_no_one():
    assert _values("파일 이름: 보고서") == []


@pytest.mark.parametrize(
    ("text", "name", "kept"),
    [
        ("السيد/ ماجد الزعابي المحترم، تحية طيبة", "ماجد الزعابي", "المحترم"),
        ("جناب آقای کاوه نیک\u200cنام", "کاوه نیک\u200cنام", "آقای"),
        ("प्रिय श्री कुणाल भटनागर, नमस्ते", "कुणाल भटनागर", "श्री"),
        ("ข้าพเจ้า นพ. วีระ แก้วมณี ขอรับรองว่า", "วีระ แก้วมณี", "ขอรับรองว่า"),
        ("ডা. নুসরাত করিম", "নুসরাত করিম", "ডা."),
        # a letter's closing, the writer's name on the next line or after a comma
        ("با سپاس،\nکاوه رستمی", "کاوه رستمی", "با سپاس"),
        ("בכבוד רב,\nנועה לביא, רכזת", "נועה לביא", "רכזת"),
        ("सादर, विक्रम सेठी", "विक्रम सेठी", "सादर"),
    ],
)
def test_a_name_after_a_title_of_another_script_is_masked_whole(masker, text, name, kept):
    (out,) = masked_cells(masker, ("user", text))
    assert not any(w in out for w in name.split()) and kept in out, out


@pytest.mark.parametrize(
    "text", ["مع تحياتي، فريق الدعم", "С уважением,\nкоманда поддержки", "С уважением,\nКоманда"]
)
def test_a_team_signing_after_a_closing_is_no_name(text):
    assert script_title_values(text) == []


def test_chinese_and_korean_speakers_written_as_one_word():
    zh = "张立伟： 帮我看下 报名表\n周敏： 好的\n张立伟： 谢谢"
    assert [zh[a:b] for a, b in script_speaker_values(zh)] == ["张立伟", "张立伟", "周敏"]
    ko = "박지훈: 엄마, 서류 좀 보내줘\n엄마: 알았어\n박지훈: 고마워"
    assert [ko[a:b] for a, b in script_speaker_values(ko)] == ["박지훈", "박지훈"]
    # a form's labels are no chat, and a word whose first character is no family name no name
    assert script_speaker_values("地址： 北京\n电话： 123\n备注： 无") == []
    assert script_speaker_values("老婆： 好\n老公： 嗯\n老婆： 走") == []


def test_names_a_cjk_list_writes_before_an_id_label_or_after_a_person_label():
    """A class list, a staff roll: a Chinese or Korean one-word name or a Japanese family and
    given name at a line's head before an id's label, and a one-word name after a person's
    label and a space; words that are no name stay, and so does a line whose head is no name."""
    zh = "通讯录\n刘子涵 学号 20240117 家长 刘建华 13912345678"
    assert [zh[a:b] for a, b in script_list_values(zh)] == ["刘子涵", "刘建华"]
    ja = "社員名簿\n山田 太郎 社員番号 A1203 内線 3104"
    assert [ja[a:b] for a, b in script_list_values(ja)] == ["山田 太郎"]
    ko = "명단\n김하늘 학번 20231145"
    assert [ko[a:b] for a, b in script_list_values(ko)] == ["김하늘"]
    assert script_list_values("注意\n请勿 学号 外借\n第一 学号 必填") == []


def test_the_officers_of_an_association_under_their_cjk_titles_are_persons(masker):
    """A club's vice-chair, treasurer or secretary under their Japanese, Chinese or Korean
    title and a colon is a person; a label that only starts with a title ("会計年度", the
    fiscal year) keeps its value."""
    (out,) = masked_cells(
        masker, ("tool", "役員名簿\n副会長： 佐々木美穂\n会計： 石川由美\n会計年度： 2026年")
    )
    assert "佐々木美穂" not in out and "石川由美" not in out and "会計年度： 2026年" in out


def test_chinese_and_korean_names_before_a_colon_and_a_phone_are_a_contact_list():
    """One speaker line each, no chat: a one-word name before its phone number is a contact
    list's entry; a label before a phone ("电话：", "연락처:") is none."""
    zh = "兴趣班 联系表\n郑晓东 ： 138 2210 4476\n袁丽娟 ： 137 5509 1182"
    assert [zh[a:b] for a, b in script_speaker_values(zh)] == ["郑晓东", "袁丽娟"]
    ko = "비상 연락처\n정하윤: 010-2281-5530"
    assert [ko[a:b] for a, b in script_speaker_values(ko)] == ["정하윤"]
    assert script_speaker_values("电话：138 2210 4476\n연락처: 010-2281-5530") == []


def test_japanese_officers_under_their_title_without_a_colon(masker):
    """A club's officers list: the title, a space, a family and a given name; a title before a
    word that is no name ("会長 挨拶", the chair's address) keeps it."""
    (out,) = masked_cells(
        masker, ("tool", "町内会 連絡先\n会長 坂口 真一 090-4412-7781\n会計 石塚 典子\n会長 挨拶")
    )
    for raw in ("坂口", "真一", "石塚", "典子"):
        assert raw not in out, out
    assert "会長 挨拶" in out


def test_a_contact_lists_names_in_scripts_with_no_letter_case():
    """A list of names before a dash, a tab or an ideographic space and a phone number or an
    e-mail: a Korean or Chinese one-word name, a Japanese family and given name after a group's
    number, a name of Arabic or Cyrillic letters with a listed given name or surname; a service's
    line ("customer service", "hotline") and a phone's label are no name."""
    text = (
        "연락처\n윤서진 — 010-7720-4413\n"
        "班 名簿\n5組\u3000松井 香織\u3000080-2231-9047\n"
        "لجنة\nسميرة المنصوري — samira.m@example.net\nخدمة العملاء — 0522 441730\n"
        "Отдел\nВадим Карпенко — +7 915 330 2281\nГорячая линия — 8 800 200 4417\n"
        "電話\u300003-4471-2290"
    )
    found = [text[a:b] for a, b in script_list_values(text)]
    assert found == ["윤서진", "松井 香織", "سميرة المنصوري", "Вадим Карпенко"], found


def test_a_contact_lists_name_with_a_department_between_it_and_the_phone():
    """A staff list's line: a name, a department or a role, then a phone number or an e-mail;
    a list of departments' phones has no name."""
    text = (
        "教师名单\n李婉清\u3000外语系\u3000138-5550-2741\n"
        "韩立新\u3000体育部\u3000han.lx@example.edu\n"
        "سالم عبد الله النعيمي — مدير المبيعات — +971 50 555 3817\n"
        "部门电话\n后勤处\u3000010-5550-3321\n财务处\u3000010-5550-3322"
    )
    found = [text[a:b] for a, b in script_list_values(text)]
    assert found == ["李婉清", "韩立新", "سالم عبد الله النعيمي"], found


def test_a_chinese_name_written_with_a_space_in_running_text():
    """A family name and a given name with a space between, set off by spaces or quotes, as a
    hand-written text or a JSON value has it; spaced words whose first is no family name
    stay."""
    text = '昨天开会时 韩 立新 提了三个问题。\n{"医生": "龚 雪梅"}\n今天 天气 很好'
    assert [text[a:b] for a, b in script_list_values(text)] == ["韩 立新", "龚 雪梅"]


def test_one_word_names_in_the_cells_of_a_staff_lines_middle():
    """A staff list that writes the staff number first: the name is a cell between commas in a
    line with a phone or an e-mail; a frequent word that opens with a family name ("周末") and a
    line with no contact value keep theirs."""
    text = (
        "值班表\n编号 Q-3308 ， 谭一鸣 ，仓储部，电话 135 5501 2874\n"
        "编号 Q-3311，邵雨晴，客服部，shao.yq@example.cn\n"
        "周末，高级，手机 135 5501 2874\n编号 Q-3315 ， 邓子墨 ，已离职"
    )
    found = [text[a:b] for a, b in script_list_values(text)]
    assert found == ["谭一鸣", "邵雨晴"], found
