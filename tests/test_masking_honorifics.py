"""Names of Japanese, Chinese and Korean letters set off before an honorific ("<name> さん",
"<name> 老师", "<name> 님"): masked by the honorific's place (``names/fields.honorific_values``,
words in ``names/data/honorifics.yaml``), the honorific kept; a role's noun before one ("the
customer") and words glued to an honorific in unspaced text stay; and the speakers of a chat
after an app's tag ("[LINE] <name> :"). Written for this test."""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.names.fields import honorific_values, script_speaker_values


@pytest.fixture(scope="module")
def masker():
    with Masker(key="honorifics-test-key-0123456789abcdef01234567", n_workers=1) as m:
        yield m


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("昨日は 森川 さんと 公園 に行きました。", ["森川"]),
        ("紹介元： 高城 奈緒 医師", ["高城 奈緒"]),
        ("谢谢 周悦 老师的帮助", ["周悦"]),
        ("오늘 한지율 님 덕분에 잘 끝났어요", ["한지율"]),
        ("서도윤님께 보내드립니다", ["서도윤"]),
        ("고객 님, 안녕하세요", []),
        ("お客 様へのお知らせ", []),
        ("这是我的老师", []),
        ("현장 연락처: 편도훈 팀장, 내선 12", ["편도훈"]),  # a family name no list holds
        ("영업팀 팀장 회의는 금요일", []),  # a team's lead
        # a staff list's position before a name; Chinese physicians' grades after one
        ("교직원 명단\n교감 송민재 내선 31\n보건교사 문하린 내선 35", ["송민재", "문하린"]),
        ("门诊：周三 韩立诚 副主任医师，周五 邵佳 主治医师", ["韩立诚", "邵佳"]),
        ("교사 회의는 목요일", []),
        # a customer, a member and a student addressed by name; "our" before one is no name
        ("박지후 고객님, 청구가 접수되었습니다.", ["박지후"]),
        ("윤서아 학생에게 알립니다", ["윤서아"]),
        ("우리 고객님께 감사드립니다", []),
        ("대학 학생회 회의", []),
        ("전체 학생에게 공지", []),
    ],
)
def test_names_before_an_honorific(text, names):
    assert [text[a:b] for a, b in honorific_values(text)] == names


def test_speakers_after_an_apps_tag_are_a_chat():
    chat = "[LINE] ひな : 蒼太 、写真送って\n[LINE] 佐野 蒼太 : いいよ\n[LINE] ひな : ありがとう"
    found = [chat[a:b] for a, b in script_speaker_values(chat)]
    assert sorted(set(found)) == ["ひな", "佐野 蒼太"]


def test_korean_names_before_a_position_and_names_after_titles_of_more_scripts(masker):
    """A Korean name of three syllables (a family name first) before a position; a department's
    noun before one stays. Names after a salutation in Tamil, Amharic, Bengali and Nepali, and a
    Hindi patient's name before a comma and the age."""
    cells = [
        ("tool", "현장 연락처\n윤재희 과장 · 내선 2204\n총무 과장 회의 안내"),
        ("user", "அன்புள்ள திருமதி பூங்கொடி சேகர் அவர்களுக்கு,\nஉங்கள் விண்ணப்பம் ஏற்கப்பட்டது."),
        ("user", "ውድ ወ/ሮ ትዕግስት ደምሴ፣\nማመልከቻዎ ደርሶናል።"),
        ("user", "প্রিয় মৌটুসী দেবনাথ,\nআপনার আবেদন গৃহীত হয়েছে।"),
        ("user", "आदरणीय गोविन्द भट्टराई ज्यू,\nतपाईंको निवेदन प्राप्त भयो।"),
        ("tool", "ओपीडी पर्चा\nरोगी: निर्मला जोशी, आयु 47\nनिदान: खांसी"),
    ]
    outs = masked_cells(masker, *cells)
    for out, name in zip(
        outs, ("윤재희", "பூங்கொடி", "ትዕግስት", "মৌটুসী", "गोविन्द", "निर्मला"), strict=True
    ):
        assert name not in out and "<PERSON_" in out, out
    assert "총무 과장" in outs[0] and "आयु 47" in outs[5]


def test_a_thai_title_glued_to_the_name_after_a_salutation_stays_out_of_it():
    from agentic_pipeline.masking.names.fields import script_title_values

    text = "เรียน คุณพรรณทิพา แก้วมณี\nทางบริษัทได้รับเอกสารของท่านแล้ว"
    assert [text[a:b] for a, b in script_title_values(text)] == ["พรรณทิพา แก้วมณี"]


def test_cjk_staff_roles_are_labels_of_the_name_after_them(masker):
    """A head teacher's, a manager's or the person in charge's role before a colon, or before a
    space after the organisation's name, labels the name after it, as "manager:" does in
    English; the organisation before the role stays."""
    cells = [
        ("tool", "동아리 연락망\n교감: 남궁 진\n보건교사: 탁수빈 — 내선 310"),
        ("tool", "ご相談窓口\n担当： 三浦 千尋（045-555-0187）"),
        ("tool", "账户变更通知\n客户经理： 欧阳倩\n电话： 010-5555-0176"),
        ("tool", "診療情報提供書\n青葉整形外科 院長 三浦 千尋"),
    ]
    outs = masked_cells(masker, *cells)
    for out, name in zip(outs, ("탁수빈", "千尋", "欧阳倩", "千尋"), strict=True):
        assert name not in out and "<PERSON_" in out, out
    assert "青葉整形外科 院長" in outs[3]
