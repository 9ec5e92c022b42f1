"""Login names and social handles (issue #21: usernames at least as plain Presidio finds them):
after a platform's name or a dash, with dots inside, Reddit's ``u/`` form, and a CSV login
column. Every value here is invented for this test."""

import pytest
from conftest import masked_cells

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.detectors.login_names import named_handle_spans, social_spans


@pytest.fixture(scope="module")
def masker():
    with Masker(key="handles-test-key-0123456789abcdef0123456789", n_workers=1) as m:
        yield m


def test_handles_after_platforms_dashes_and_in_reddit_form(masker):
    cells = [
        ("user", "Add me on Skype: tovan.relk"),
        ("user", "user name - pell.arcot.31"),
        ("user", "the thread by u/quill_marrow was useful"),
        ("user", "tag me @senna.vorhees please"),
    ]
    outs = masked_cells(masker, *cells)
    for out in outs:
        assert "<USER_ID_" in out, out
    assert "tovan" not in outs[0] and "pell" not in outs[1]
    assert "quill" not in outs[2] and "vorhees" not in outs[3]


def test_platform_words_and_dashes_without_a_login_stay(masker):
    texts = [
        "I use Skype for calls.",
        "The login - screen is broken.",
        "Instagram and twitter.",
        "Reply to this message to confirm.",
    ]
    assert masked_cells(masker, *[("user", t) for t in texts]) == texts


def test_a_csv_login_column_is_masked_row_by_row(masker):
    csv = "team,login,last_seen\nblue,marrowfen,2026-01-02\nred,t.okwu7,2026-01-03\n"
    (out,) = masked_cells(masker, ("tool", csv))
    assert "marrowfen" not in out and "t.okwu7" not in out
    assert out.startswith("team,login,last_seen\nblue,<USER_ID_") and "2026-01-03" in out


def test_a_csv_user_column_holds_login_names(masker):
    csv = (
        "sub_id;user;email;plan\nQ-2201;moss.arlen;ma@example.org;annual\nQ-2207;thyra;x@y.org;m\n"
    )
    (out,) = masked_cells(masker, ("tool", csv))
    assert "moss.arlen" not in out and ";thyra;" not in out and "Q-2207;<USER_ID_" in out


def test_a_login_after_the_word_user_or_account_in_a_logs_prose(masker):
    logged, words = masked_cells(
        masker,
        ("tool", "audit: user r.hallorann9 exported report (rows=12); SSO account wbrennock off"),
        ("user", "The user agent was odd; account holder confirmed; user admin logged in."),
    )
    assert "r.hallorann9" not in logged and "wbrennock" not in logged
    assert words == "The user agent was odd; account holder confirmed; user admin logged in."


def test_hyphenated_and_dotted_handles_are_masked_whole(masker):
    (out,) = masked_cells(masker, ("user", "@wren-path-42 paid @dana.r-holt for lunch"))
    assert "wren" not in out and "path" not in out and "holt" not in out, out
    assert out.count("<USER_ID_") == 2 and out.endswith(" for lunch")


def test_chat_speakers_shaped_like_login_names_are_masked(masker):
    """A pasted chat transcript: time-stamped speakers and a Slack or Discord copy's header
    lines. Roles and capitalised speakers are not login names (the name model has the latter)."""
    chat = (
        "[09:02] quillfox: who has the keys\n"
        "[09:03] dana.r7: me, by the door\n"
        "[09:04] Support: noted\n"
        "10:05 Status: done, see https://example.org/x\n"
        "wrenpath  9:15 AM\n"
        "lunch?\n"
        "mossbyte_7 — Yesterday at 10:01 PM\n"
        "sure"
    )
    (out,) = masked_cells(masker, ("tool", chat))
    for handle in ("quillfox", "dana.r7", "wrenpath", "mossbyte_7"):
        assert handle not in out, out
    assert "[09:04] Support: noted" in out and "10:05 Status: done" in out
    assert "https://example.org/x" in out and "lunch?" in out


def test_a_login_under_a_user_key_in_a_log_line_and_in_json(masker):
    log = 'ts=2026-05-01T10:00:00Z user=tkessler op=READ usr="z.huang" user=the'
    record = '{"user": "U09XY12AB", "text": "moved the nightstand", "role": "user"}'
    chat = '{"user": "I need a new paperweight", "assistant": "Sure."}'
    outs = masked_cells(masker, ("tool", log), ("tool", record), ("tool", chat))
    assert "tkessler" not in outs[0] and "z.huang" not in outs[0] and "user=the" in outs[0]
    assert "U09XY12AB" not in outs[1] and "moved the nightstand" in outs[1]
    assert '"role": "user"' in outs[1]
    assert outs[2] == chat


def test_a_placeholder_under_a_personal_key_stays_and_a_value_beside_it_is_masked(masker):
    """Where a personal value was removed or never given ("[email protected]", "N/A", "***"),
    nothing identifies anybody: the placeholder stays, in JSON and in a CSV column."""
    record = (
        '{"email": "[email protected]", "phone": "N/A", "ssn": "***-**-****", '
        '"name": "Ilvy Dornquist", "backup_email": "ilvy.d@example.org"}'
    )
    csv = "name,email\nOrrin Vale,N/A\nTessa Moor,[redacted]\n"
    out_json, out_csv = masked_cells(masker, ("tool", record), ("tool", csv))
    for kept in ('"[email protected]"', '"phone": "N/A"', '"***-**-****"'):
        assert kept in out_json, out_json
    assert "Dornquist" not in out_json and "ilvy.d@example.org" not in out_json
    assert ",N/A\n" in out_csv and ",[redacted]\n" in out_csv and "Orrin" not in out_csv


def test_access_log_users_irc_nicks_and_user_keys_written_in_a_text(masker):
    cells = [
        ("tool", '10.9.8.7 - tvelmar [02/Dec/2026:18:40:03 +0000] "GET /api/me HTTP/1.1" 200 91'),
        ("tool", "#guild\n<brisk_otter> who has the keys\n<moss.lantern> I do\n<Admin> noted"),
        ("tool", 'Export →\n{"messages": [{"user": "U09RT5521", "text": "done"}]}'),
        ("tool", "[10:02] PagerDuty: disk alert\n[10:03] ReleaseBot: deployed"),
    ]
    outs = masked_cells(masker, *cells)
    assert "tvelmar" not in outs[0] and "GET /api/me" in outs[0]
    assert "brisk_otter" not in outs[1] and "moss.lantern" not in outs[1]
    assert "<Admin>" in outs[1]  # a word, no nick shape
    assert "U09RT5521" not in outs[2] and '"text": "done"' in outs[2]
    # a brand speaking in a time-stamped line is no nick: only an IRC speaker's place says so
    assert "PagerDuty" in outs[3] and "ReleaseBot" in outs[3]


def test_angle_brackets_that_are_no_chat_stay(masker):
    cells = [
        ("tool", "12:00:01 <job_runner> loaded 500 rows"),  # one line: a log's component
        ("tool", "<table>\n<thead> <tr><th>Plan</th></tr>\n<tbody> <tr><td>Gold</td></tr>"),
        ("tool", "usage:\n  <input-file>   the CSV to read\n  <out_dir>   where to write"),
    ]
    outs = masked_cells(masker, *cells)
    assert "job_runner" in outs[0] and "<thead>" in outs[1] and "<tbody>" in outs[1]
    assert "<input-file>" in outs[2] and "<out_dir>" in outs[2]


def test_a_name_inside_a_login_name_takes_the_whole_login(masker):
    (out,) = masked_cells(masker, ("user", "Requester: oriel.banfrey\nMessage: close my account"))
    assert "banfrey" not in out and "oriel" not in out and "close my account" in out
    # a sentence's last word and its full stop before a name on the next line are no login
    (out,) = masked_cells(masker, ("user", "She has written twice.\nTavener, Odile  2:16 PM\nok"))
    assert "written twice." in out
    (out,) = masked_cells(masker, ("user", "I spoke to Odile Tavener.Then we left."))
    assert "Then we left." in out


def test_one_letter_mentions_matrix_users_and_profile_addresses(masker):
    mention, matrix, profiles, repo = masked_cells(
        masker,
        ("tool", "Works on arm64 too. cc @v-marrowfen who packages it."),
        ("tool", "@quillon:chat.example.org: the co-op needs a signature"),
        ("user", "see linkedin.com/in/tovan-relk-dev or x.com/tovan_r"),
        ("tool", "cloned https://github.com/apache/kafka and instagram.com/p/Cx9/"),
    )
    assert "marrowfen" not in mention and "packages it." in mention
    assert "quillon" not in matrix and "chat.example.org" not in matrix
    assert "tovan" not in profiles and "linkedin.com/in/<USER_ID_" in profiles
    assert repo == "cloned https://github.com/apache/kafka and instagram.com/p/Cx9/"


def test_logins_under_role_keys_and_speakers_without_a_time(masker):
    keys, chat, camel, config = masked_cells(
        masker,
        (
            "tool",
            'msg="queued" reviewer=petra.k\nowner: t.vanleer  modified: 2026-11-03\n'
            "uid=okarun,ou=people",
        ),
        (
            "tool",
            "owlet_brin: the prize is yours\nruneknit42: no way, thanks\nowlet_brin: your address?",
        ),
        (
            "tool",
            "[21:04] xYmoonrakerYx: gg that was wild\n[21:05] TheRealOrlaQuinn: stream tonight",
        ),
        ("tool", "error_message: Connection refused by host\nretry_policy: back off twice\n"),
    )
    for login in ("petra.k", "t.vanleer", "okarun", "owlet_brin", "runeknit42", "xYmoonraker"):
        assert login not in keys + chat + camel, login
    assert "TheRealOrlaQuinn" not in camel and "modified: 2026-11-03" in keys
    assert config == "error_message: Connection refused by host\nretry_policy: back off twice\n"


def test_a_comments_header_names_its_author(masker):
    text = (
        "VintageAmpFixer • 3 days ago\ngreat walkthrough, thanks!\n"
        "↳ nadia_k_88 • 19 hours ago\nsame here\nSunday • 2 days ago we met"
    )
    (out,) = masked_cells(masker, ("user", text))
    assert "VintageAmpFixer" not in out and "nadia_k_88" not in out, out
    assert "Sunday • 2 days ago" in out, out


@pytest.mark.parametrize(
    ("text", "handle"),
    [
        # a signature after a dash closing the post
        ("Great turnout at the river cleanup today, thanks all! — dunmore.ivy", "dunmore.ivy"),
        # in brackets after a name, or after a role and a comma
        ("and thanks to Hal Brody (halbrodyruns) for the route.", "halbrodyruns"),
        ("Cast: Tomas Reyes (tenor, tomreyes.voice), Ana Lind (alto)", "tomreyes.voice"),
        # after a social verb or a chat command
        ("Lost cat near the park, DM brindlepaws if seen.", "brindlepaws"),
        ("/whois grelvanport", "grelvanport"),
        ("Reply to thornquill_8: the noise is next door.", "thornquill_8"),
        ("raid incoming from mossbrandle 🎉", "mossbrandle"),
        # a thread's reply: the handle before its verb and a colon
        ("great thread\nbrindlefox_22 replied: same here lol", "brindlefox_22"),
        ("quietmossreads wrote: agreed, see you at the fair", "quietmossreads"),
        # a payment app's cashtag on its line
        ("Split for the cabin:\n$marrowfin\n$quillbrook_22\nthanks all", "marrowfin"),
        # an audit line's user in Portuguese, an access log after its file's name
        ("[audit] 2026-11-02 10:14 utilizador=marta.quelhas abriu o processo", "marta.quelhas"),
        (
            'access.log: 10.1.2.3 - olek.wisniak [03/Dec/2026:08:12:44 +0000] "GET / HTTP/1.1"',
            "olek.wisniak",
        ),
        # after a team's tag in a chat
        (
            "[Support] kelpwright: which order?\n[Support] fennick_ro: the one from May\n"
            "[Support] kelpwright: ok, found it",
            "kelpwright",
        ),
    ],
)
def test_social_posts_login_names_by_where_they_stand(masker, text, handle):
    (out,) = masked_cells(masker, ("user", text))
    assert handle not in out and "<USER_ID_" in out, out


def test_reblog_speakers_alone_on_their_line():
    text = (
        "orchidmoth:\n  that bakery is the best in town\nsaltmarsh-reader:\n  agreed, rye is great"
    )
    assert [text[a:b] for a, b in social_spans(text)] == ["orchidmoth", "saltmarsh-reader"]


@pytest.mark.parametrize(
    "text",
    [
        "Check the config file — settings.yaml",
        "More at — acmewidgets.com",
        "Order Date (yyyy-mm-dd) must be set - see below",
        "Released in v2.3 — stable",
        "metadata:\n  name: web\nspec:\n  replicas: 3",
        "Follow the steps below (optional)",
        "The team replied: no, not this week.",
        "REFILL REQUEST (faxed) to the pharmacy",
        "echo $HOME and $PATH",
        "$total = $price * 2;",
        "Pay $amount now",
        "(front of the card, scanned) attached",
    ],
)
def test_files_sites_formats_versions_and_yaml_keys_are_no_login_names(text):
    assert social_spans(text) == []


@pytest.mark.parametrize(
    "text, handle",
    [
        ("Portfolio: on GitLab under quennel-makes, updated weekly.", "quennel-makes"),
        ("(fenrik.ostwald auf Instagram)", "fenrik.ostwald"),
        ("微博：@雾岚爱喝茶 欢迎关注", "雾岚爱喝茶"),
        (
            "sshd[4411]: Accepted publickey for oriel.banfa from 10.9.8.7 port 50122 ssh2",
            "oriel.banfa",
        ),
        ("sshd[4412]: Failed password for invalid user zephyn_k from 10.9.8.7 port 2", "zephyn_k"),
    ],
)
def test_login_names_beside_platforms_in_other_scripts_and_in_auth_logs(masker, text, handle):
    (out,) = masked_cells(masker, ("user", text))
    assert handle not in out, out


def test_a_known_name_inside_a_login_name_takes_the_login_name_whole(masker):
    """The person's names, known from the form's label, also start lower-case login names: each
    login name goes whole, not the name with "-sketches" or ".draws" left in clear."""
    text = "Name: Tavrin Oskell\nPortfolio: under tavrin-sketches and oskell.draws"
    (out,) = masked_cells(masker, ("user", text))
    assert "sketches" not in out and "draws" not in out and "Portfolio: under <" in out, out


def test_chat_speakers_after_a_channel_tag_and_a_leaderboards_players(masker):
    chat, board, countries = masked_cells(
        masker,
        (
            "tool",
            "[lobby] orvel_12: gg all\n[lobby] QuinceTorrent: again?\n[lobby] orvel_12: later",
        ),
        ("tool", "season ranks\n1. mossback_7 9,120\n2. VantaHollow 8,870\n3. pebble_runner 8,400"),
        ("tool", "medal table\n1. Norway 16\n2. Germany 12\n3. Canada 9"),
    )
    assert "orvel_12" not in chat and "QuinceTorrent" not in chat and "[lobby]" in chat
    for player in ("mossback_7", "VantaHollow", "pebble_runner"):
        assert player not in board, board
    assert "Norway" in countries and "Germany" in countries


def test_a_list_of_ids_in_brackets_and_a_things_id_after_a_user_label_stay(masker):
    """Payment methods listed in brackets are no "(role, handle)" pair, and a reservation's id
    that the episode's records hold under "reservation_id" stays in clear though a reply writes
    it after "user ID:", answering a question about the user ID; the user's own id is masked."""
    record, _, reply, cards = masked_cells(
        masker,
        ("tool", '{"reservation_id": "Q7XWZP", "user_id": "tevin_qar_4410"}'),
        ("user", "Which bookings are on my user ID?"),
        ("assistant", "I see one reservation on your user ID: Q7XWZP. Shall I change it?"),
        ("assistant", "You have two gift cards (gift_card_5510934, gift_card_7703218)."),
    )
    assert "Q7XWZP" in record and "Q7XWZP" in reply and "tevin_qar_4410" not in record
    assert "gift_card_5510934" in cards and "gift_card_7703218" in cards, cards


def test_chat_mentions_by_id_and_profile_paths_are_login_names():
    """A chat's "<@snowflake>" mention is a user's id, the name in brackets after it the user's
    login name; a URL's "/profile/<handle>/" path segment is one when shaped like a login name,
    and "/users/settings" (a word) stays."""
    text = "New today: <@402218870165323777> (quill.fern) and <@!402218870165324012>"
    assert [text[a:b] for a, b in social_spans(text)] == [
        "402218870165323777",
        "quill.fern",
        "402218870165324012",
    ]
    log = 'GET /profile/oswy.quell-7/settings HTTP/1.1" 200 and GET /users/settings 200'
    assert [log[a:b] for a, b in social_spans(log)] == ["oswy.quell-7"]
    url = "see https://forum.example/api/v1/users/quill_f9/posts."
    assert [url[a:b] for a, b in social_spans(url)] == ["quill_f9"]


def test_a_login_name_after_a_noun_label_or_for_user_is_masked_and_verbs_stay(masker):
    """After "handle" or "username" (nouns only) the next word is the login name, even without a
    colon or a digit; "for user" names one with a digit or a mark. "handle the refund" and
    "for user accounts" are words."""
    roster, log, verb = masked_cells(
        masker,
        ("tool", "Sign-ups: Ines Vardo, handle brightotter, joined 2024"),
        ("tool", "otp: sent code to the phone on file for user quenby77; attempts=2"),
        ("user", "Please handle the refund for user accounts today."),
    )
    assert "brightotter" not in roster and "<USER_ID_" in roster and "joined 2024" in roster
    assert "quenby77" not in log and "attempts=2" in log
    assert verb == "Please handle the refund for user accounts today."


def test_a_login_right_after_a_platforms_name_in_a_team_list():
    text = (
        "Team: Odalys Brenner, tech lead, GitHub quorvik\n"
        "Pim Tessaro, SRE, GitLab ptess-ops, on call"
    )
    assert [text[a:b] for a, b in social_spans(text)] == ["quorvik", "ptess-ops"]
    for stays in ("See the GitHub issue, it is open.", "Open a GitHub issue\nThen ask on Discord"):
        assert social_spans(stays) == []


def test_a_dotted_login_with_a_first_name_stands_alone_in_a_post(masker):
    """A dotted login name holding a listed first name beside a part that is no word, with no
    cue before it; a code's attribute of words, a file's name and an e-mail address stay as
    they are."""
    post = "Bilder vom Grillabend findet ihr bei henrike.zoellnitz 📷"
    assert named_handle_spans(post) == [(post.index("henrike"), post.index(" 📷"))]
    for text in (
        "the total is in bill.amount now",
        "saved as rosalind_quarterly.xlsx",
        "mail maria.wendholt@post.example",
        "use grace.period for that",
    ):
        assert named_handle_spans(text) == [], text
    (out,) = masked_cells(masker, ("user", "Fotos gibt es bei henrike.zoellnitz, danke!"))
    assert "zoellnitz" not in out and "henrike" not in out, out


def test_handles_after_a_message_cue_a_write_to_cue_and_a_short_platform_name():
    """ "Message <handle>", "escribile a <handle>", "su Insta <handle>": handles; "message sent",
    "Message me" stay."""
    for text, handle in (
        ("Pickup only. Message ravenloft_kim or email me", "ravenloft_kim"),
        ("si lo ves escribile a brunella.sosa o llamá al local", "brunella.sosa"),
        ("Foto nuove su Insta ottavio.e.bice", "ottavio.e.bice"),
    ):
        assert [text[a:b] for a, b in social_spans(text)] == [handle], text
    for text in ("message sent to the team", "Message me later", "DM me when free"):
        assert social_spans(text) == [], text
