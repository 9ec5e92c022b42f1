"""Login names by where they stand, beside the labelled ones of ``labels.py`` ("username: x").

* A login name under a key that holds one in logs and exports: ``user=quietfern`` in a log line,
  ``"user": "U07ZT3RQ9"`` in JSON (``handle_keys`` of ``labels.yaml``).
* A login name that speaks in a chat transcript pasted into a log (a tool result, a ticket): the
  speaker of a time-stamped line ("[10:14] quietfern: ...", "09:41 - r.okafor: ..."), and the
  header line of a copied Slack or Discord message, a handle and a time alone ("quietfern
  11:48 PM", "quietfern — Today at 7:42 PM"), and an IRC-style speaker ("<quietfern> hi") in
  a text of two such lines at least (``nick_spans``).
* The user of a web server's access log line ("10.0.0.7 - quietfern [03/Dec/2026:…") and of
  an authentication log's ("Accepted publickey for quietfern from …").
* A name that is part of a login name widens to it ("<name>.dunleavy", ``login_extent``; a
  lower-case one with hyphens too: "<name>-builds").
* Social posts' login names by where they stand (``social_spans``): a signature after a dash, a
  handle in brackets after a name, after "DM", "Message", "write to" or "/whois", beside a
  platform's name ("<handle> on Instagram", "on GitHub under <handle>"), a reblog chain's
  speakers, a leaderboard's players.
* A dotted login name standing alone that holds a listed first name beside a part no language
  has as a word ("<given>.<surname>" in a post; ``named_handle_spans``): no code's attribute
  ("bill.amount": all words), no file's or site's name.
* In a chat whose lines carry a channel's tag ("[lobby] <handle>: gg"), its speakers whatever
  the length of their message, and, once a login name speaks twice, the other speakers that are
  no word of a language.

Only a value shaped like a login name is one (``login_name``): a digit or ``_ . -`` inside, or a
lower-case word that no main European language has. A capitalised speaker is the name model's to
decide (``names/features.py``, its ``speaker`` feature); a role ("agent:", "Dad:") and a chat's
message text under a "user" key are vocabulary and stay."""

from __future__ import annotations

import mimetypes
import re
from functools import lru_cache

from agentic_pipeline.masking.detectors.data_files import alternation, data_file
from agentic_pipeline.masking.detectors.key_rules import normalize_key
from agentic_pipeline.masking.detectors.redacted import placeholder_value
from agentic_pipeline.masking.vocabulary import LANGUAGES, STOP_WORDS, zipf

ENTITY = "USER_ID"
#: The score of a login name found by where it stands.
SCORE = 0.6

#: What stands before a chat line's speaker: a time stamp, bracketed or not, maybe after a date
#: ("[10:18 AM] ", "14:05 - ", "12/03/26, 14:05 - ", "[2026-03-12 09:41] ", "9.05 pm "); a
#: period separates hours from minutes only before am/pm ("12.50" is a price as often).
_AM_PM = r"[ \t]*[AaPp]\.?[Mm]\.?"
SPEAKER_PREFIX = re.compile(
    r"[ \t]*[\[(]?(?:\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4},?[ \t]+)?"
    rf"\d{{1,2}}(?::\d{{2}}(?::\d{{2}})?(?:{_AM_PM})?|\.\d{{2}}{_AM_PM})"
    r"[\])]?[ \t]*[-–—]?[ \t]*"
)
#: A login name's characters: a letter or digit at both ends, ``_ . -`` inside.
_HANDLE = r"(?P<handle>[A-Za-z0-9][\w.-]{1,38}[A-Za-z0-9])"
_HANDLE_VALUE = re.compile(_HANDLE)
#: The speaker of a time-stamped chat line, before its colon (not a URL's "://").
_SPEAKER_LINE = re.compile(rf"(?m)^{SPEAKER_PREFIX.pattern}{_HANDLE}[ \t]*:(?!//)")
#: A copied message's header: a handle and its time alone on a line ("Today at", "Yesterday at"
#: as Discord writes it).
_HEADER_LINE = re.compile(
    rf"(?m)^[ \t]*{_HANDLE}[ \t]+(?:[-–—][ \t]*)?(?:(?:Today|Yesterday)(?:[ \t]+at)?[ \t]+)?"
    rf"\d{{1,2}}:\d{{2}}(?:{_AM_PM})?[ \t]*$"
)
#: A comment's header as social sites and video platforms print it: a handle, maybe after a
#: reply arrow, then a bullet and the comment's age ("↳ <handle> • 20 hours ago", "<handle> · 3h").
_AGE = r"\d{1,3}[ \t]?(?:[smhdwy]|mo|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|years?)"
_COMMENT_HEADER = re.compile(
    rf"(?m)^[ \t]*(?:[↳>][ \t]*)?{_HANDLE}[ \t]+[•·][ \t]+(?:{_AGE}(?:[ \t]+ago)?|just now)\b"
)
#: A word of a main European language at least this frequent (Zipf) is vocabulary, no login
#: name ("admin", "kernel"): wordfreq's small lists start at 3.
_WORD_ZIPF = 3.0


def login_name(speaker: str) -> bool:
    """``speaker`` is shaped like a login name: a digit or ``_ . -`` inside ("tamsin.v",
    "NorthKestrel42"), words run together with two capitals inside or after a lower-case head
    ("TheRealOrlaQuinn", "xXmoonrakerXx"), or lower-case letters that are no stop word and no
    word of the main European languages ("quietfern")."""
    if any(c.isdigit() or c in "_.-" for c in speaker):
        return any(c.isalpha() for c in speaker)
    if _CODE_NAME.search(speaker):
        return False  # "NullPointerException", "ModuleNotFoundError": a program's names
    if len(_CAMEL_STEP.findall(speaker)) >= 2 or _LOWER_THEN_UPPER.match(speaker):
        return True  # "TheRealOrlaQuinn", "xXmoonrakerXx": words run together, no name
    return speaker.islower() and speaker not in STOP_WORDS and zipf(speaker) < _WORD_ZIPF


#: A lower-case letter before a capital inside a word ("McDonald" has one, "TheRealOrlaQuinn"
#: three), and a word that opens in lower case before a capital ("xXmoonraker", not "iPad").
_CAMEL_STEP = re.compile(r"[a-z][A-Z]")
_LOWER_THEN_UPPER = re.compile(r"[a-z]{1,2}[A-Z][a-z]+[A-Z]")  # not "iPhone", "jQuery"
#: A program's class or exception name, no login ("…Error", "…Exception", "…Warning").
_CODE_NAME = re.compile(r"(?:Error|Exception|Warning|Handler|Service|Manager|Factory)$")


@lru_cache(maxsize=1)
def handle_keys() -> frozenset[str]:
    """The keys that hold a login name in logs and exports (``handle_keys`` of ``labels.yaml``)."""
    return frozenset(normalize_key(k) for k in data_file("labels.yaml")["handle_keys"])


def handle_value(value: str) -> bool:
    """A value under a handle key is a login name: shaped like one (``login_name``), not made of
    words alone ("platform-team", "ci-bot") and no placeholder ("unassigned", "none")."""
    return login_name(value) and not _all_words(value) and not placeholder_value(value)


def handle_under_key(key: str, value: object) -> bool:
    """``value`` under ``key`` is a login name: a handle key over one word shaped like one
    (``"user": "U07ZT3RQ9"``; not ``"user": "<a message>"``)."""
    return (
        isinstance(value, str)
        and normalize_key(key) in handle_keys()
        and _HANDLE_VALUE.fullmatch(value) is not None
        and handle_value(value)
    )


@lru_cache(maxsize=1)
def _key_value_re() -> re.Pattern[str]:
    """``key=value`` or ``key: value`` of a handle key in a log line or a listing (``owner:
    t.vance``), the value maybe quoted, or its JSON written in a text (``"user": "U04QX7731"``)."""
    keys = "|".join(sorted(map(re.escape, handle_keys()), key=len, reverse=True))
    return re.compile(
        rf"(?i)(?<![\w.-])(?:(?:{keys})=|(?:{keys}):[ \t]+|[\"'](?:{keys})[\"'][ \t]*:[ \t]*)"
        rf"[\"']?{_HANDLE}(?![\w@])"
    )


#: The user of a web server's access log line (Common Log Format: host, ident, user, [time]),
#: maybe after the log file's name ("access.log: <host> - <user> [<time>]").
_ACCESS_LOG_USER = re.compile(
    rf"(?m)^[ \t]*(?:[\w.-]+:[ \t]+)?[\w.:-]+[ \t]+\S+[ \t]+{_HANDLE}[ \t]+"
    rf"\[\d{{1,2}}/\w{{3}}/\d{{4}}:"
)
#: The user of a system's authentication log line (sshd, PAM): "Accepted publickey for <user>
#: from", "Failed password for invalid user <user> from", "session opened for user <user>".
_AUTH_LOG_USER = re.compile(
    rf"(?:\b(?:Accepted|Failed)[ \t]+[\w-]+[ \t]+for[ \t]+(?:invalid[ \t]+user[ \t]+)?"
    rf"|\b[Ii]nvalid[ \t]+user[ \t]+|\bsession[ \t]+(?:opened|closed)[ \t]+for[ \t]+user[ \t]+)"
    rf"{_HANDLE}(?=[ \t]+from[ \t]|[ \t]*\(|[ \t]*$)",
    re.M,
)
#: An IRC-style chat line's speaker in angle brackets ("<quietfern> on my way"), maybe after a
#: time stamp: one space, then the message (not a tag: "<thead> <tr>", "<input-file>   Path").
_NICK_LINE = re.compile(rf"(?m)^(?:{SPEAKER_PREFIX.pattern})?[ \t]*<{_HANDLE}> (?=[^\s<])")
#: The fewest such lines that make a text a chat transcript (one is a log's component as often).
MIN_NICK_LINES = 2


#: A chat line's speaker without a time stamp ("fern_77: anyone up?", "chloe.v : bonjour"),
#: maybe after a channel's or team's tag ("[Ops] fern_77: …"): a handle, a colon and words;
#: read only in a text of ``MIN_NICK_LINES`` such lines whose speakers are login names (one is a
#: log's ``key: value`` as often).
_BARE_SPEAKER_LINE = re.compile(
    rf"(?m)^[ \t]*(?:\[[^\]\n]{{1,20}}\][ \t]*)?{_HANDLE}[ \t]?:[ \t]+(?=\S+[ \t]+\S)"
)


#: The same line after a channel's tag, whatever the message's length ("[chat] <handle>: gg").
_TAGGED_SPEAKER_LINE = re.compile(
    rf"(?m)^[ \t]*\[[^\]\n]{{1,20}}\][ \t]*{_HANDLE}[ \t]?:[ \t]+(?=\S)"
)


def speaker_spans(text: str) -> list[tuple[int, int]]:
    """The speakers of a chat transcript's lines written without a time stamp, each shaped like
    a login name with a part no language has or a digit ("fern_77", "owlet_brin"; not
    "error_message", "max_tokens"), in a text where two such speakers speak and one of them on
    two lines at least; in such a chat, the other speakers that are no words of a language too
    ("<Word><Word>: gg")."""
    if ":" not in text:
        return []
    found: dict[str, list[tuple[int, int]]] = {}
    others: dict[str, list[tuple[int, int]]] = {}
    seen: set[int] = set()
    for rx in (_BARE_SPEAKER_LINE, _TAGGED_SPEAKER_LINE):
        for m in rx.finditer(text):
            h = m.group("handle")
            if m.start("handle") in seen or _all_words(h):
                continue
            seen.add(m.start("handle"))
            (found if login_name(h) else others).setdefault(h, []).append(m.span("handle"))
    if not any(len(spans) >= MIN_NICK_LINES for spans in found.values()):
        return []  # a login name speaks twice at least: a chat, not a log's "key: value" lines
    return chat_spans({**others, **found})


#: Where social posts put a login name (``social_spans``): a signature after a dash closing a
#: line ("… — <handle>"); a handle in brackets after a capitalised name or a role and a comma
#: ("<Name> <Surname> (<handle>)", "(soprano, <handle>)"; the role in words, not an id:
#: "(gift_card_…, gift_card_…)" is a list of ids); a handle after a social verb or a chat
#: command ("DM <handle>", "posted by <handle>", "reply to <handle>", "raid from <handle>",
#: "/whois <handle>"); a cashtag; a reblog's
#: speaker alone on its line before a colon, the post's words on the next line ("<handle>:\n
#: <words>").
_SIGNATURE = re.compile(rf"(?m)(?:^|[ \t])[—–-]{{1,2}}[ \t]*@?{_HANDLE}[ \t]*$")
_BRACKETED = re.compile(
    rf"(?:[A-Z][\w'’-]+[ \t]+[A-Z][\w'’-]+[ \t]*\("
    rf"|\([^\W\d_][^()\n,\d_]{{0,29}},[ \t]*)@?{_HANDLE}\)"
)
_CUE = re.compile(
    rf"(?i)(?:(?<![\w/])(?:dm|pm|follow|message|msg|posted[ \t]+by|shared[ \t]+by"
    rf"|photos?[ \t]+by|h/t"
    # "write to <handle>" in the main European languages
    rf"|escr[ií]b[eií]le[ \t]+a|scrivi[ \t]+a|[ée]cris[ \t]+[àa]|schreib(?:t)?[ \t]+an?"
    rf"|(?:in[ \t]+)?repl(?:y|ying)[ \t]+to|raid(?:ed)?(?:[ \t]+incoming)?[ \t]+(?:from|by))"
    rf"|(?<![\w/])/(?:whois|msg|dm|invite|kick|ban|mute))[ \t]+@?{_HANDLE}(?![\w@])"
)
#: A thread's handle before the verb of its reply, then a colon ("<handle> replied: lol").
_VERB_CUE = re.compile(
    rf"(?m)(?:^|(?<=[\s(]))@?{_HANDLE}[ \t]+"
    r"(?:replied|wrote|commented|responded|reposted|retweeted|posted|said)(?=[ \t]*:)"
)
#: A payment app's cashtag ("$<handle>" in a transfer list), not a shell or template variable
#: (upper case, "${…}") nor one of a line of code ("=", ";", "{" on its line).
_CASHTAG = re.compile(rf"(?m)(?<![\w$])\$(?=[a-z]){_HANDLE}(?=[ \t]*(?:$|[,.!?)]))(?![^\n]*[=;{{])")
_REBLOG = re.compile(rf"(?m)^[ \t]*{_HANDLE}[ \t]?:[ \t]*\r?\n[ \t]*(?=[^\s:]+[ \t]+\S+[ \t]+\S)")


@lru_cache(maxsize=1)
def platforms() -> frozenset[str]:
    """Social, code and chat platforms (``platforms`` of ``labels.yaml``), lower case."""
    return frozenset(str(p).lower() for p in data_file("labels.yaml")["platforms"])


@lru_cache(maxsize=1)
def _platform_cues() -> tuple[re.Pattern[str], ...]:
    """A handle before "on <platform>" in the main European languages ("<handle> auf
    Instagram"), after "<platform> under / as" ("on GitHub under <handle>"), and right after
    the platform's name as a list's entry ends, before a line's end, a comma, a bracket or a
    bar ("GitHub <handle>, SRE"; "GitHub issue" is a word, no handle)."""
    names = alternation(platforms())
    on = r"(?:on|auf|sur|en|su|op|na|em|no|på|w|в)"
    under = r"(?:under|as|als|sous|como|come|jako)"
    return (
        re.compile(rf"(?<![\w@.])@?{_HANDLE}[ \t]+{on}[ \t]+(?i:{names})(?![\w])"),
        re.compile(rf"(?i:(?<![\w.])(?:{names}))[ \t]+{under}[ \t]+@?{_HANDLE}(?![\w@])"),
        re.compile(rf"(?i:(?<![\w.])(?:{names}))[ \t]+@?{_HANDLE}(?=[ \t]*(?:$|[,;)|/]))", re.M),
    )


#: A leaderboard's line: a rank, a handle and its score ("2. <handle> 13,905", "#3 <handle> 870
#: pts"); read in a text of ``MIN_RANKED_LINES`` such lines.
_RANKED_LINE = re.compile(
    rf"(?m)^[ \t]*(?:\d{{1,3}}[.)]|#\d{{1,3}})[ \t]+@?{_HANDLE}[ \t]+\d[\d,. ]*"
    rf"(?:[ \t]*(?i:pts|points|xp|elo|wins?))?[ \t]*$"
)
MIN_RANKED_LINES = 3
#: A handle's letters: three at least ("v2.3" is a version).
_LETTERS = re.compile(r"[^\W\d_]")


def social_spans(text: str) -> list[tuple[int, int]]:
    """The login names of social posts by where they stand (``_SIGNATURE``, ``_BRACKETED``,
    ``_CUE``, ``_VERB_CUE``, a platform beside them; reblog speakers in a text of two; a
    leaderboard's players that are no words): shaped like a login name and not words alone
    (``handle_value``), in lower case, three letters at least, no part of two letters after the
    first (a date's format: "yyyy-mm-dd"); and chat mentions by id and profile paths
    (``mention_and_profile_spans``)."""
    spans = [
        m.span("handle")
        for rx in (_SIGNATURE, _BRACKETED, _CUE, _VERB_CUE, _CASHTAG, *_platform_cues())
        for m in rx.finditer(text)
        if _social_handle(m.group("handle"))
    ]
    spans += mention_and_profile_spans(text)
    ranked = list(_RANKED_LINE.finditer(text))
    if len(ranked) >= MIN_RANKED_LINES:  # a leaderboard's players: no word of a language
        spans += [m.span("handle") for m in ranked if not _ranked_word(m.group("handle"))]
    reblogs = [m for m in _REBLOG.finditer(text) if _social_handle(m.group("handle"))]
    if len({m.group("handle") for m in reblogs}) >= 2:
        spans += [m.span("handle") for m in reblogs]
    return spans + named_handle_spans(text)


#: Lower-case parts of three letters at least joined by dots or underscores (a number may end
#: it), standing alone: not inside an address, a path, a call or a longer dotted name.
_DOTTED = re.compile(
    r"(?<![\w@./:#$-])(?P<handle>[^\W\d_A-Z]{3,}(?:[._][^\W\d_A-Z]{3,})+(?:[._]?\d{1,4})?)"
    r"(?![\w@/(-]|\.\w)"
)


def named_handle_spans(text: str) -> list[tuple[int, int]]:
    """Dotted login names that hold a listed first name and a part no language has as a word
    ("<given>.<surname>", "<given>_and_<given>"), not a file's or a site's name."""
    if "." not in text and "_" not in text:
        return []
    # the name lists' package imports this module (``names.features``): read them here
    from agentic_pipeline.masking.names.lexicon import listed_names

    firsts = listed_names()[0]
    spans = []
    for m in _DOTTED.finditer(text):
        handle = m.group("handle")
        parts = [p for p in re.split(r"[._\d]+", handle) if p]
        if (
            any(p in firsts for p in parts)
            and not all(_any_word(p) for p in parts)
            and not ("." in handle and _file_or_site(handle))
        ):
            spans.append(m.span("handle"))
    return spans


#: A chat platform's mention of a user by id ("<@402218870165323777>", Discord's snowflake of
#: 17 to 20 digits), maybe with the user's name in brackets after it ("(<handle>)").
_MENTION = re.compile(r"<@!?(?P<id>\d{17,20})>(?:[ \t]*\((?P<handle>[^\s()]{2,40})\))?")
#: A profile's login name in a URL's path ("GET /profile/<handle>/settings", "/users/<handle>").
_PROFILE_PATH = re.compile(
    rf"/(?:profiles?|users?|u|members?|people|accounts?)/{_HANDLE}(?=[/?#\s\"'.,;:)\]]|$)",
    re.I,
)


def mention_and_profile_spans(text: str) -> list[tuple[int, int]]:
    """User ids of chat mentions and the names beside them, and login names in a profile's URL
    path shaped like one (``login_name``: a digit, ``_ . -`` or an unknown word)."""
    spans = []
    for m in _MENTION.finditer(text):
        spans.append(m.span("id"))
        if m.group("handle") and login_name(m.group("handle")):
            spans.append(m.span("handle"))
    spans += [m.span("handle") for m in _PROFILE_PATH.finditer(text) if login_name(m["handle"])]
    return spans


def _ranked_word(entry: str) -> bool:
    """A leaderboard's entry that is a word of a language ("Germany"), no player's handle (one
    of words joined by ``_ . -`` is a handle: "toast_reaper")."""
    return entry.isalpha() and _all_words(entry)


def _social_handle(handle: str) -> bool:
    """A social post's login name: see ``social_spans``; no file's name ("notes.txt", by its
    type's extension) and no web site's ("acme.com"); one of letters alone is no word of any
    frequency in wordfreq's large lists ("(faxed)", "scan, parsed)" are words)."""
    parts = re.split(r"[_.-]+", handle)
    return (
        handle == handle.lower()
        and len(_LETTERS.findall(handle)) >= 3
        and not any(len(p) == 2 and p.isalpha() for p in parts[1:])
        and not ("." in handle and _file_or_site(handle))
        and (not handle.isalpha() or not _any_word(handle))
        and handle_value(handle)
    )


@lru_cache(maxsize=4096)
def _any_word(word: str) -> bool:
    """``word`` is in wordfreq's large list of English or of a main European language."""
    from wordfreq import zipf_frequency

    return any(zipf_frequency(word, lang) > 0 for lang in LANGUAGES)


def _file_or_site(handle: str) -> bool:
    """``handle`` (with a dot) names a file by its type's extension or a web site."""
    suffix = handle.rsplit(".", 1)[1]
    return mimetypes.guess_type(handle)[0] is not None or suffix in _SITE_SUFFIXES


_SITE_SUFFIXES = frozenset(data_file("labels.yaml")["site_suffixes"])


def chat_spans(found: dict[str, list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """The spans of ``found`` (speaker -> where it speaks) when they make a chat: two speakers,
    one of them on ``MIN_NICK_LINES`` lines at least ("step_1:", "step_2:" speak once each; a
    log's one prefix repeated is one speaker); none otherwise."""
    if len(found) < 2 or not any(len(spans) >= MIN_NICK_LINES for spans in found.values()):
        return []
    return [span for spans in found.values() for span in spans]


def _all_words(handle: str) -> bool:
    """Every part of ``handle`` (between ``_ . -``) is a word of a main European language or a
    stop word ("error_message", "log.level"), none is an initial and none has a digit; a given
    name and one more part joined by a dot or an underscore are a person's login however
    frequent its words ("grace.hill"; not "error_message", "ci-bot": a word list's given names,
    without the common words)."""
    from agentic_pipeline.masking.names.lexicon import name_gazetteer  # names read detectors

    parts = [p for p in re.split(r"[_.-]+", handle) if p]
    if len(parts) == 2 and "-" not in handle and parts[0].lower() in name_gazetteer()[0]:
        return False
    return all(
        len(p) > 1  # an initial ("z.huang") is a login's, no word
        and not any(c.isdigit() for c in p)
        and (p.lower() in STOP_WORDS or zipf(p.lower()) >= _WORD_ZIPF)
        for p in parts
    )


#: A login name after the word that names it in a log's prose ("audit: user <handle> exported",
#: "SSO account <handle> disabled"); the handle is one when ``login_name`` says so ("user
#: agent", "account holder" are words).
_USER_WORD = re.compile(rf"(?i:(?<![\w.-])(?:user|account|login|username))[ \t]+{_HANDLE}(?![\w@])")


def login_name_regexes() -> tuple[re.Pattern[str], ...]:
    """The places a login name stands, each with its ``handle`` group: a handle key's
    ``key=value``, the word "user" or "account" before it in a log's prose, a chat line's speaker,
    a copied message's header, a comment's header, an access log's or an authentication log's
    user (see module doc); the ``handle`` is one when ``login_name`` says so."""
    return (
        _key_value_re(),
        _USER_WORD,
        _SPEAKER_LINE,
        _HEADER_LINE,
        _COMMENT_HEADER,
        _ACCESS_LOG_USER,
        _AUTH_LOG_USER,
    )


def nick_spans(text: str) -> list[tuple[int, int]]:
    """The IRC-style speakers of a chat transcript ("<quietfern> hi"): a text of at least
    ``MIN_NICK_LINES`` such lines; each speaker shaped like a login name (``login_name``)."""
    found = list(_NICK_LINE.finditer(text)) if "<" in text else []
    if len(found) < MIN_NICK_LINES:
        return []
    return [m.span("handle") for m in found if login_name(m.group("handle"))]


#: A login name's parts after and before a name in it, joined by dots or underscores with no
#: space ("anna.kowalska", "j_smith_77").
_TAIL = r"(?:[{j}][^\W\d_A-Z][^\W_]*|[{j}]\d[^\W_]*)+(?![^\W_])"
_LOGIN_TAIL = re.compile(_TAIL.format(j="._"))
#: The same with hyphens too, after a name written in lower case ("<name>-builds"; a capitalised
#: name's hyphen joins a double-barrelled name, ``names.joins.with_hyphen_halves``).
_LOWER_LOGIN_TAIL = re.compile(_TAIL.format(j="._-"))
_LOGIN_HEAD = re.compile(r"(?<![\w.])[^\W_]+(?:[._][^\W_]+)*[._]\Z")


def login_extent(text: str, start: int, end: int) -> tuple[int, int]:
    """``start:end`` (a name) widened to the login name it is part of: "<name>.dunleavy" whole,
    not a name's token before ".dunleavy" in clear."""
    tail = _LOWER_LOGIN_TAIL if text[start : start + 1].islower() else _LOGIN_TAIL
    if (m := tail.match(text, end)) is not None:
        end = m.end()
    if (m := _LOGIN_HEAD.search(text, max(0, start - 40), start)) is not None:
        start = m.start()
    return start, end
