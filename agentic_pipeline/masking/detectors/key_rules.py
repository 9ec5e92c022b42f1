"""Key-path rules of structured fields (JSON keys, CSV headers, ``label: value`` lines): a key that
names personal data (``email``, ``phone``, ``first_name``, ``address*``, ``dob``, ``card*``,
``ssn``, ``iban``...) is masked whole whatever its value. Ids named by their label are in
``labels.py``."""

from __future__ import annotations

import re
from functools import lru_cache

from agentic_pipeline.masking.detectors.address_fields import address_label

#: (pattern over the normalised key, entity type), first match wins.
_KEY_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rx), et)
    for rx, et in (
        (r"(?:\w+_)?ip(?:_?address)?|ip_?addr", "IP_ADDRESS"),
        (r"(?:\w+_)?e_?mail(?:_?address)?|email\d*", "EMAIL_ADDRESS"),
        (
            r"(?:\w+_)?(?:phone|mobile|cell|telephone|tel|fax)(?:_?(?:number|no|num))?\d*",
            "PHONE_NUMBER",
        ),
        (r"user_?id|user_?name|username|login|handle|account_?id", "USER_ID"),
        (
            r"(?:\w+_)?(?:first|last|middle|given|family|full|maiden|display|nick|sur)_?names?"
            r"|name|surname|(?:customer|passenger|contact|person|holder|card_?holder|account_?holder"
            r"|traveller|traveler|recipient|sender|guest|patient|owner|employee)_?name|"
            r"cardholder|card_holder|account_holder",
            "PERSON",
        ),
        (
            r"(?:\w+_)?(?:dob|date_?of_?birth|birth_?date|birth_?day|birthdate|birthday|birth_?time)"
            r"|geburtsdatum|date_de_naissance|fecha_de_nacimiento|data_di_nascita|geboortedatum"
            r"|data_urodzenia",
            "DATE_OF_BIRTH",
        ),
        (r"(?:card_?)?last_?(?:four|4)(?:_digits)?|card_?last_?(?:four|4)", "CARD_LAST4"),
        (r"cvv|cvc|cvv2|security_?code|card_?pin|pin", "CARD_SECRET"),
        (
            r"card|card_?(?:number|no|num|pan|expiry|exp\w*|holder\w*)|credit_?card(?:_?(?:number|no))?"
            r"|cc|cc_?(?:number|no|num)|pan|debit_?card(?:_?number)?",
            "CREDIT_CARD",
        ),
        (
            r"(?:\w+_)?ssn(?:_?last_?(?:four|4))?|last_?(?:four|4)_?(?:of_?)?ssn"
            r"|social_?security(?:_?number)?|sin",
            "US_SSN",
        ),
        (r"(?:\w+_)?iban", "IBAN_CODE"),
        (
            r"bank_?account(?:_?number)?|account_?number|routing_?number|sort_?code|bic|swift",
            "BANK_ACCOUNT",
        ),
        (
            r"passport(?:_?(?:number|no))?|driver_?s?_?licen[cs]e(?:_?(?:number|no))?"
            r"|licen[cs]e_?number|national_?id|tax_?id|tin|nino"
            r"|id(?:entity)?_?doc(?:ument)?_?(?:number|no|num|nr)",
            "ID_DOCUMENT",
        ),
        # ISO 20022's abbreviations too ("PstCd", "StrtNm", "BldgNb")
        (r"zip|zip_?code|zipcode|post_?code|postal_?code|pst_?cd", "ZIP_CODE"),
        (
            r"(?:\w+_)?address\w*|street\w*|addr\d*|house_?number|apartment|apt|strt_?nm|bldg_?nb",
            "STREET_ADDRESS",
        ),
        # a city alone is no personal data (a flight's origin); one beside a street or postcode
        # is masked as part of the address (``addresses.address_part``, the JSON walker)
        (
            r"home_?(?:city|town)|hometown|birth_?place|place_of_birth|geburtsort"
            r"|lieu_de_naissance|lugar_de_nacimiento|luogo_di_nascita|geboorteplaats"
            r"|miejsce_urodzenia",
            "LOCATION",
        ),
        (r"password|passwd|secret|api_?key|access_?token|refresh_?token", "CREDENTIAL"),
    )
)
#: Words that say a date is somebody's birth date, in English, the European languages, Russian,
#: Greek, Arabic, Hebrew, Hindi, Bengali, Georgian, Japanese, Chinese, Korean, Vietnamese,
#: Tagalog, Indonesian and Swahili.
BIRTH_WORDS = (
    r"born|birth\s?day|b-?day|(?:date|year) of birth|birth\s?(?:date|year)|d\.?o\.?b\.?|yob|"
    r"geboren|geb\.|geburtsdatum|"
    r"geburtstag|née?|naissance|nacido|nacida|nací|nacimiento|cumpleaños|nato|nata|nascita|"
    r"geboortedatum|urodz\w*|ur\.|født|fødselsdato|född|födelsedatum|syntynyt|syntymäaika|"
    r"nascimento|nascid[oa]|nasceu|nació|nacque|narozen\w*|nar\.|doğum|născut\w*|nașterii|naşterii|"
    r"született|születési|szül\.|"
    r"nascut|nascuda|naixement|dyddiad geni|ganwyd|dogum|"
    r"lahir|tgl\.? lahir|ngày sinh|sinh năm|sinh ngày|tarehe ya kuzaliwa|alizaliwa|"
    r"dzimis|dzimusi|dzimšanas|gimęs|gimusi|gimimo|sündinud|sünniaeg|fæddur|fædd|"
    r"ipinanganak|kapanganakan|kaarawan|"
    r"дата рождения|родил(?:ся|ась)|дата народження|народил(?:ся|ася)|"
    # South Slavic and Bulgarian: "рођен", "rođena", "роден", "rojen", "дата на раждане"
    r"рођен[аo]?|rođen[ao]?|датум рођења|datum rođenja|роден[ао]?|дата на раждане|rojen[ao]?|"
    r"datum rojstva|"
    r"ημ(?:ερομηνία|\.)\s?γέννησης|γεννήθηκε|تاريخ الميلاد|تاریخ تولد|תאריך לידה|วันเกิด|जन्म तिथि|"
    r"生年月日(?:は)?|出生日期|出生年月日|생년월일(?:은|이)?|생일(?:은|이)?|誕生日(?:は)?|生日(?:是|为)?|জন্ম|जन्म|נולדה?|დაბადებული|დაბადების"
)
#: A key made of a birth word and a date word, maybe with an article ("Data de nascimento",
#: "Doğum tarihi", "Születési dátum"), or of one word that is both ("Födelsedatum"): a key of no
#: rule above that names a birth date ("birthday_party_date", "originator_metadata" do not).
_BIRTH_WORD = re.compile(rf"(?i)(?:{BIRTH_WORDS})")
_DATE_WORD = re.compile(
    r"(?i)dat[aeou]m?|dátum|date|fecha|tarihi?|\w*aika|\w*dato|\w*datums?|idő|aeg"
    r"|year|y[ıi]l[ıi]|jahr|ann[ée]e|año|anno|ano|rok|år"  # a birth year ("doğum yılı")
)
_KEY_ARTICLES = frozenset({"de", "di", "do", "da", "of", "the", "du", "del"})
_KEY_WORD = re.compile(r"[^\W\d_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def normalize_key(key: str) -> str:
    """``billingAddress`` / ``Billing-Address`` -> ``billing_address``."""
    return _NON_ALNUM.sub("_", _CAMEL.sub("_", str(key)).lower()).strip("_")


@lru_cache(maxsize=8192)
def key_entity(key: str) -> str | None:
    """Entity type a key names (masked whole whatever the value), else ``None``."""
    k = normalize_key(key)
    for rx, et in _KEY_RULES:
        if rx.fullmatch(k) or (str(key)[:2] in ("X-", "x-") and rx.fullmatch(k[2:])):
            return et  # an HTTP header's own fields carry "X-" ("X-User-Id", "X-Customer-Email")
    if _birth_date_key(key):
        return "DATE_OF_BIRTH"
    return "STREET_ADDRESS" if address_label(key) else None  # "Adresa", "住所"


def _birth_date_key(key: str) -> bool:
    """``key``'s words are a birth word and a date word, maybe an article between, or one word
    that is both (``_BIRTH_WORD``, ``_DATE_WORD``: whole words only), or the key is a birth
    phrase of ``BIRTH_WORDS`` as a whole ("生年月日", "תאריך לידה")."""
    if _BIRTH_WORD.fullmatch(key.strip().replace("_", " ")):  # "дата_рождения"
        return True
    words = [w for w in _KEY_WORD.findall(_CAMEL.sub(" ", key)) if w.lower() not in _KEY_ARTICLES]
    birth = [w for w in words if _BIRTH_WORD.fullmatch(w) or w.lower() == "birth"]
    date = [w for w in words if _DATE_WORD.fullmatch(w)]
    if len(words) == 1:
        return bool(birth and date)
    return len(words) == 2 and len(birth) == 1 and len(date) == 1 and birth != date
