"""Dates and dates of birth: the month names and date forms of the languages the corpora and
users write in, the birth words' patterns (``key_rules.BIRTH_WORDS``) and the age rules that
make a date somebody's birth date. Read by the recognizers of ``patterns.py``, by the field
labels and by the values after a name (``after_names.py``)."""

from __future__ import annotations

import datetime as dt
import re

from agentic_pipeline.masking.detectors.data_files import data_file
from agentic_pipeline.masking.detectors.key_rules import BIRTH_WORDS
from agentic_pipeline.masking.vocabulary import MONTHS

#: Month names of the main European languages (``vocabulary.MONTHS``' words of four letters or
#: more and the short "may", "mai", "maj", "mei"), and those of ``dates.yaml`` (other languages,
#: their genitives and locatives), as dates of birth are written in them: "2. August 1955",
#: "5 de julio de 1980", "12 marca 1990", "1987. május 23.", "Marso 17, 2011".
MONTH_NAMES: tuple[str, ...] = (
    *sorted(m for m in MONTHS if len(m) > 3 or m in ("may", "mai", "maj", "mei")),
    *(m for group in data_file("dates.yaml")["month_names"] for m in group),
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?|"
    + "|".join(sorted(set(MONTH_NAMES), key=len, reverse=True))
    + ")"
)
#: A date: ISO and year-first with slashes or dots ("1961/07/22", Korean "1961. 7. 22."), day or
#: month first, with a month's name (also "22-Jul-1961"; year first in Hungarian, Latvian and
#: Lithuanian: "1961. július 22.", "1961. gada 22. jūlijā", "1961 m. liepos 22 d.") or a Roman
#: month ("22 VII 1961",
#: Polish and Czech), with spaced dots ("22. 7. 1961", Czech
#: and German), with the year, month and day signs of Japanese, Chinese and Korean (a Japanese
#: era's year too: "平成3年8月14日"), and the
#: arguments of a Python ``datetime.date(1961, 7, 22)`` written by ``repr``.
#: A Chinese or Japanese date and a Korean one, day last ("2019年7月14日", "2014년 6월 2일").
_CJK_DATE = r"\d{4} ?年 ?\d{1,2} ?月 ?\d{1,2} ?日|\d{4}년 ?\d{1,2}월 ?\d{1,2}일"
DATE_PATTERN = (
    r"(?:\d{4}-\d{1,2}-\d{1,2}|\d{4}/\d{1,2}/\d{1,2}|\d{4}\.\d{1,2}\.\d{1,2}"
    r"|(?<=date\()\d{4}, ?\d{1,2}, ?\d{1,2}(?=\))|(?<=datetime\()\d{4}, ?\d{1,2}, ?\d{1,2}"
    r"|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{1,2}\. \d{1,2}\. \d{4}"
    rf"|{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th|er|\.|°|º)? (?:of |de )?{_MONTH}\.?,? (?:de )?\d{{4}}"
    rf"|\d{{1,2}}-{_MONTH}\.?-\d{{2,4}}|\d{{1,2}}/{_MONTH}\.?/\d{{2,4}}"
    r"|\d{4}\. ?\d{1,2}\. ?\d{1,2}\.?(?=\s|$)"
    rf"|\d{{4}}\. ?{_MONTH}\.? ?\d{{1,2}}\.?(?=\s|$|[,;)])|\d{{4}}\. gada \d{{1,2}}\. ?{_MONTH}"
    rf"|\d{{4}} m\. {_MONTH} \d{{1,2}} d\."
    r"|\d{1,2}[ .](?:I{1,3}|IV|VI{0,3}|IX|XI{0,2})[ .]\d{4}"  # a Roman month: "9 III 1984"
    rf"|{_CJK_DATE}"
    r"|(?:明治|大正|昭和|平成|令和) ?(?:\d{1,2}|元) ?年 ?\d{1,2} ?月 ?\d{1,2} ?日)"
)
#: A four-digit year from 1500 (a genealogy's) to 2099.
ANY_YEAR_DIGITS = r"(?:1[5-9]|20)\d\d"
#: A four-digit year that is no part of a date or a longer number, and "about" before one.
_LONE_YEAR = rf"(?<![\w/.-]){ANY_YEAR_DIGITS}(?![\d年년])(?![/.-]?\d)"
_ABOUT = r"(?:abt|about|circa|ca|c)\.?[ \t]?"
#: A birth word anywhere, maybe in the plural ("DOBs", "birthdays"): a text about birth dates.
BIRTH_WORD_RE = re.compile(rf"(?i)(?<!\w)(?:{BIRTH_WORDS})s?(?!\w)")
#: Dates written as machines and airlines write them, read as dates only right after a birth
#: word: compact year first ("19790823", X12's and HL7's) and day, month in capitals and year
#: glued ("23OCT86", a travel document's).
_MACHINE_DATE = (
    r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?!\d)"
    r"|\d{2}(?-i:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)(?:\d{4}|\d{2})(?![\dA-Za-z])"
)
#: A date right after a birth word.
DOB_RE = re.compile(
    rf"(?i)(?<!\w)(?:{BIRTH_WORDS})(?!\w)[^\d\n]{{0,45}}?({DATE_PATTERN}|{_MACHINE_DATE})"
)
#: "b." (born) in brackets or after a comma before a date ("(b. 3 May 1880)", "<name>, b. 3 May
#: 1880"): a birth date when its year is ``ADULT_AGE`` years back at least ("(b. 2021-05-03
#: amendment)" is a section's).
BORN_ABBREVIATION_RE = re.compile(
    rf"(?:(?<=\()|(?<=, ))b\.[ \t]?(?:{_ABOUT})?({DATE_PATTERN}|{_LONE_YEAR})", re.IGNORECASE
)
#: A birth date asked for and given on the next line ("What is your date of birth?" / "Caller:
#: 9 May 2015"), as a call or chat transcript writes it: the birth word in the question's own
#: clause (not "Happy birthday! Shall I book…?"), a date of a past year (``past_year``).
DOB_ANSWER_RE = re.compile(
    rf"(?i)(?<!\w)(?:{BIRTH_WORDS})(?!\w)[^\n?.!]{{0,60}}\?(?:[ \t]*\r?\n){{1,2}}[^\d\n]{{0,30}}?"
    rf"(?<![\w/.-])({DATE_PATTERN})(?![\w/-])"
)


def _date_before(words: str) -> re.Pattern[str]:
    """A date (group 1) and, a few characters on in its sentence, one of ``words`` (a regex
    alternation)."""
    return re.compile(
        rf"(?i)(?<![\w/.-])({DATE_PATTERN})(?![\w/-])[^\d\n.]{{0,12}}?(?<!\w)(?:{words})(?!\w)"
    )


#: The birth word after the date: "Ich bin am 2. August 1955 geboren."
DOB_AFTER_RE = _date_before(r"geboren|born|née?|nato|nata|nacid[oa]|urodzon[ya]")
#: A Chinese, Japanese or Korean date before the word "born" written after it ("<date> 出生",
#: "<date>生まれ", "<date>생"; not "生效", takes effect).
DOB_BEFORE_BORN_RE = re.compile(
    rf"(?<![\d/.-])({_CJK_DATE})"
    r"[ \t]?(?:出生|生まれ|生(?![效產产成活])|출생|생(?![활산]))"
)
#: A birth year before the Russian or Ukrainian abbreviation of "year of birth" ("1952 г.р.",
#: "1952 р.н.").
BIRTH_YEAR_RE = re.compile(r"(?<![\w.])((?:19|20)\d\d)[ \t]?(?:г\.[ \t]?р\.|р\.[ \t]?н\.)")
#: A year alone right after a birth word in its sentence, maybe "about" it ("born 1931", "born
#: in a village near the coast in 1931", "sinh năm 1927", a genealogy's "b. abt 1866"): a birth
#: year.
BIRTH_YEAR_AFTER_RE = re.compile(
    rf"(?i)(?<!\w)(?:{BIRTH_WORDS})(?!\w)[^\d\n.!?]{{0,25}}?(?:{_ABOUT})?({_LONE_YEAR})"
)
#: A day and a month without a year ("the 21st of May", "4 settembre", "May 21"), and the words
#: that make one somebody's birthday before it in its clause: a birth word, a birthday word of
#: the main languages and of other scripts, or a verb of turning an age with the age after it
#: ("turns 65", "compie ottant'anni", "fyller sju"); "wird" and "wordt" are left out, as their
#: parcels and meetings are "delivered on 3 May" as often.
_DAY_MONTH = (
    rf"\d{{1,2}}(?:st|nd|rd|th|er|\.|°|º)? (?:of |de |di )?{_MONTH}(?![\w.]?\d)(?!\w)"
    rf"|{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?(?![\d,/.-])"
)
#: Birthday words of the main languages (also read after a date: ``BIRTHDAY_AFTER_RE``), and
#: of more languages and scripts.
_MAIN_BIRTHDAY_WORDS = (
    r"birthday|geburtstag|cumpleaños|compleanno|anniversaire|verjaardag|urodziny|aniversário"
    r"|födelsedag|fødselsdag|bursdag|syntymäpäivä|születésnap|doğum günü"
)
_BIRTHDAY_WORDS = (
    rf"{_MAIN_BIRTHDAY_WORDS}|narozeniny|ziua de naștere"
    r"|день рождения|день народження|γενέθλια|عيد ميلاد|יום הולדת|जन्मदिन|sinh nhật|ulang tahun"
)
_TURNING = (
    r"(?:turns?|turning)[ \t]+\d{1,3}"  # a number: the parcel "turns up on 3 May"
    r"|(?:compie|compirà|cumple|cumplirá|fête ses|fyller|fylder|täyttää|skończy|kończy|completa"
    r"|faz|fará)[ \t]+[\w'’]+"
)
BIRTHDAY_DAY_RE = re.compile(
    rf"(?i)(?<!\w)(?:{BIRTH_WORDS}|{_BIRTHDAY_WORDS}|{_TURNING})(?!\w)[^\n.!?\d]{{0,30}}?"
    rf"(?<!\w)({_DAY_MONTH})"
)
#: A birthday word right after a date ("am 4. Mai 2018 Geburtstag"): a birth date when its year
#: is past (``dob_answer_recognizer``).
BIRTHDAY_AFTER_RE = _date_before(_MAIN_BIRTHDAY_WORDS)


def past_year(date: str) -> bool:
    """The date's year is before this one."""
    year = _year(date)
    return year is not None and year < dt.date.today().year


#: A whole date (day, month and a four-digit year) standing alone, not part of a version, a time
#: or a longer number (a colon after it only before a space: "…, 1961-12-01: seen for…"); a
#: date written with the day sign ends there ("1961年12月1日生").
WHOLE_DATE_RE = re.compile(
    rf"(?<![\w/.:-])({DATE_PATTERN})(?:(?<=[日일])|(?![\w/-]|:\S|\.\d))", re.IGNORECASE
)
_YEAR = re.compile(r"(?<!\d)(19\d\d|20\d\d)(?!\d)")
#: The youngest age whose whole date of birth is masked without a birth word.
ADULT_AGE = 16


def _year(date: str) -> int | None:
    """The four-digit year written in ``date`` (1900 to 2099), if any."""
    m = _YEAR.search(date)
    return int(m.group()) if m is not None else None


def birth_year_date(date: str) -> bool:
    """The date's year makes it the birth date of somebody at least ``ADULT_AGE`` years old
    (1900 to this year minus ``ADULT_AGE``)."""
    year = _year(date)
    return year is not None and 1900 <= year <= dt.date.today().year - ADULT_AGE


_ANY_YEAR = re.compile(rf"(?<!\d){ANY_YEAR_DIGITS}(?!\d)")


def born_long_ago(date: str) -> bool:
    """The date's year is ``ADULT_AGE`` years back at least (a genealogy's 1880 too)."""
    m = _ANY_YEAR.search(date)
    return m is not None and int(m.group()) <= dt.date.today().year - ADULT_AGE
