"""Names of Japanese, Chinese and Korean letters set off before an honorific ("<name> さん",
"<name> 老师", "<name> 님"): masked by the honorific's place (``names/fields.honorific_values``,
words in ``names/data/honorifics.yaml``), the honorific kept; a role's noun before one ("the
customer") and words glued to an honorific in unspaced text stay; and the speakers of a chat
after an app's tag ("[LINE] <name> :"). Written for this test."""

import pytest

from agentic_pipeline.masking.names.fields import honorific_values, script_speaker_values


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
    ],
)
def test_names_before_an_honorific(text, names):
    assert [text[a:b] for a, b in honorific_values(text)] == names


def test_speakers_after_an_apps_tag_are_a_chat():
    chat = "[LINE] ひな : 蒼太 、写真送って\n[LINE] 佐野 蒼太 : いいよ\n[LINE] ひな : ありがとう"
    found = [chat[a:b] for a, b in script_speaker_values(chat)]
    assert sorted(set(found)) == ["ひな", "佐野 蒼太"]
