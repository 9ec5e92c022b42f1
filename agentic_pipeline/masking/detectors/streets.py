"""European street lines and postcodes (US/UK street lines are ``patterns.STREET_RE``).

``pyap``/``usaddress`` are NOT used: pyap covers US/CA/GB only (unmaintained since 2020) and
usaddress is a US-only CRF parser needing an address-shaped input; the regex families here cover
the European formats too, at regex speed. Families without a street word of their own ("words +
house number") are checked against calendar words, countries, stop words and vocabulary.
"""

from __future__ import annotations

import re

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.address_blocks import (
    EIRCODE,
    NOT_STREET,
    after_street_spans,
    block_spans,
    looks_like_year,
    prose_postcode_spans,
    region_words,
)
from agentic_pipeline.masking.detectors.data_files import alternation, data_file
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import LW as _LW
from agentic_pipeline.masking.vocabulary import (
    MONTHS,
    is_place,
    is_place_or_calendar,
    is_vocabulary,
)
from agentic_pipeline.masking.vocabulary import STOP_WORDS as _STOP
from agentic_pipeline.masking.vocabulary import UP as _UP

_WORD = rf"[{_UP}{_LW}][{_UP}{_LW}'’.-]*"
#: A word of a street name after an address word: capitalised, or a lower-case particle ("Via
#: della Spiga"); never a sentence's end ("the weekend. I'll") nor "is"/"of".
_STREET_WORD = (
    rf"(?:[{_UP}][{_UP}{_LW}'’-]*\.?|(?:de|del|della|delle|dei|degli|dello|dal|dalla|dalle|dai|"
    r"dagli|di|da|do|"
    r"dos|das|du|des|aux|au|la|le|les|el|los|las|van|von|der|den|ter|ten|het|am|an|im|nad|pod|na|"
    r"u|y|e|"
    r"i|"
    # a king's, a prince's or a duke's title in the genitive, South Slavic ("Булевар краља …")
    r"краља|кнеза|војводе|цара|краљице|деспота|kralja|kneza|vojvode|cara|kraljice)(?![\w'’])|"
    rf"[ld]['’][{_UP}][{_UP}{_LW}'’-]*)"
)
_D = data_file("addresses.yaml")
#: What may follow a house number after a hyphen ("61-II", "212-bis"), data of addresses.yaml.
HOUSE_SUFFIX = alternation(_D["house_suffixes"])
#: A number word with its full stop or colon before a house number ("nr. 8", "No: 58", "Nº 12";
#: "No 5" without one is a title's: "Symphony No 5").
_HOUSE_WORD = r"(?:(?:[Nn][ro]|NR|NO)[.:]|[Nn][º°]\.?|(?:д|буд|дом)\.)"
#: A house number: "12", "12 a", "12-14", "12/3", a Dutch "221-H", an Austrian house, staircase
#: and door ("214/2/9"), a Finnish or Swedish house, staircase and door ("27 B 3"), a storey or
#: second house after a hyphen or a space ("61-II", "212-bis", "217 bis"), maybe after a number
#: word ("nr. 8", "No: 58").
_HOUSE = (
    rf"(?:{_HOUSE_WORD}[ \t]*)?"
    # a letter after the number, but a unit word's ("12 m. 3": the flat's "mieszkanie")
    r"\d{1,5}(?:[ \t][A-H][ \t]\d{1,3}(?![\w.,]\d)|\s?[a-zA-Z](?![\w:]|\.[ \t]*\d)"
    r"|-[A-Za-z](?![\w-]))?"
    r"(?:\s?[/-]\s?\d{1,4}[a-zA-Z]?)?"
    r"(?:/\d{1,3}(?![\d/]))?"
    rf"(?:-(?:{HOUSE_SUFFIX})(?![\w-]))?"
    r"(?:[ \t](?:bis|ter|quater)(?!\w))?"  # a second house of the number ("217 bis")
)
_EU_PREFIX = (
    r"Via|Viale|Piazza|Piazzale|Corso|Largo|Vicolo|Strada|Contrada|Borgo|Canale|Incrocio|Rotonda|"
    r"Salita|Stretto|Calle|C/|Avenida|Avda\.?|Trg|"
    r"Av\.|Paseo|Plaza|Camino|Carrer|Carretera|Rambla|Ronda|Travesía|Rua|Travessa|Largo|Rue|rue|"
    r"Avenue|avenue|Boulevard|boulevard|Bd|bd|Chemin|chemin|Allée|allée|Impasse|impasse|Quai|quai|"
    r"Place|place|Route|route|Cours|cours|Square|square|ul\.|ulica|Ulica|al\.|Al\.|Aleja|aleja|pl\.|"
    r"Plac|plac|Am|An der|Auf dem|Im|Zum|Zur|Rynek|Náměstí|náměstí|Ulice|Straße|Strasse|Ctra\.|"
    # Greek and Cyrillic street words ("πλατεία Λεμονιάς 17", "ул. Ленина 5")
    r"οδός|Οδός|οδ\.|πλατεία|Πλατεία|πλ\.|λεωφόρος|Λεωφόρος|λεωφ\.|Λεωφ\.|ул\.|улица|"
    r"пр\.|проспект|пер\.|переулок|бул\.|булевард|просп\.|наб\.|ш\.|вул\.|вулиця|пров\.|"
    # Portuguese "R" (Rua) before a capitalised word of 3+ letters ("R Tomé Varela 9")
    rf"R\.?(?=[ \t]+[{_UP}][{_LW}]{{2}})|" + alternation(_D["street_prefixes"])
    # and those of the data file (Polish "os.", Greek "Odos", Romanian "Calea")
)
_EU_SUFFIX = (
    r"straße|strasse|str\.|weg|gasse|allee|platz|ring|damm|ufer|chaussee|steig|pfad|markt|"
    r"straat|laan|plein|gracht|kade|singel|dijk|hof|dreef|veld|pad|baan|steeg|plantsoen|gade|vej|"
    r"gatan|vägen|gata|veien|alléen|allé|vegur|stígur|braut|"
    r"vegen|tie|katu|utca|út|tér|ská|ova|ní|cká|boulevard|park|kai|berg|feld|garten"
)
#: French street words after the house number ("12, rue de la Paix"), data of addresses.yaml.
_FRENCH = alternation(_D["french_street_words"])
#: Turkish street words after the street's name ("Gazi Bulvarı", "İnönü Caddesi", "318 Sok.").
_TURKISH = r"Bulvarı|Bulvari|Blv\.|Caddesi|Cadde|Cad\.|Cd\.|Sokak|Sokağı|Sok\.|Sk\.|Yolu"
#: Words of a numbered street ("Calle 14", "Carrera 9"), data of addresses.yaml.
_NUMBERED_STREET = alternation(_D["numbered_street_words"])
#: A preposition and article opening a street's name ("Unter den"), data of addresses.yaml.
_PREPOSITIONS = alternation(_D["street_prepositions"]).replace(r"\ ", r"[ \t]+")
#: A gap between the columns of a table printed as text: never inside a street line.
_COLUMN_GAP = re.compile(r"[ ]{3,}|\t")
#: First words of a "Word 12" line that is not a street.
_NOT_STREET = (
    "Flight|Seat|Gate|Room|Order|Item|Total|Step|Page|Chapter|Table|Figure|Version|Terminal|"
    "Platform|Level|Floor|Row|Section|Day|Week|Year|Option|Question|Line|Part|Phase|Round|Trial|"
    "Task|Episode|Batch|Number|Case|Price|Amount|Quantity|Score|Rating|Bags|Passengers|Adults|"
    "Children|Nights|Hours|Minutes|Reservation|Ticket|Train|Bus|Bay|Stage|Level|Grade|Size|"
    "Model"
)
_NOT_STREET_WORDS = frozenset(w.lower() for w in _NOT_STREET.split("|")) | NOT_STREET
EU_STREET_RES: tuple[re.Pattern[str], ...] = (
    # "Via Roma 12", "Calle de Alcalá 3", "ul. Długa 5", "Avenida Pardelas 42"
    # (the name's words are capitalised or particles: "Avenue at 7 PM" is no street)
    re.compile(
        rf"(?<!\w)(?:{_EU_PREFIX})\s+(?:{_STREET_WORD}\s+){{0,4}}?{_STREET_WORD},?\s+{_HOUSE}"
        r"(?!\w)"
    ),
    # "12, rue de la Paix", "3 bis avenue Foch"
    # (the street's words are capitalised or particles: "71 Rue de Vaubrel street in Orlane"
    # stops before "street")
    re.compile(
        rf"(?<![\w.,])\d{{1,4}}(?:\s?(?i:bis|ter))?,?[ \t]+(?i:{_FRENCH})"
        rf"(?:[ \t]+{_STREET_WORD}){{0,4}}"
        rf"[ \t]+[{_UP}][{_UP}{_LW}'’-]*(?!\w)"
    ),
    # "Hauptstraße 3", "Lindrainstrasse 108", "Keizersgracht 12a", "Vaba põik 14", a given name
    # and particles before the word ("Jan van Galenstraat 4", "Pieter de Hooghlaan 9")
    re.compile(
        rf"(?<!\w)(?:[{_UP}]{_WORD}[ \t]+(?:(?:van|de|der|den|ter|ten|het|von|zu)[ \t]+){{0,2}})?"
        rf"[{_UP}][{_UP}{_LW}'-]*(?i:{_EU_SUFFIX})\s+{_HOUSE}"
        r"(?!\w)"
    ),
    # post-office boxes (a number before "/" and digits is a ratio: "BP 120/80" is a blood pressure)
    # maybe with the post office's five-digit code after a hyphen (Kenya: "P.O. Box 4120-00200")
    re.compile(
        r"(?i)(?<!\w)(?:P\.?\s?O\.?\s?Box|Postfach|Boîte postale|BP|Apartado"
        r"(?: de correos)?|Casella postale|Skrytka pocztowa)\s+\d{1,6}(?:-\d{5}(?![\w-]))?"
        r"(?!\w|\s*/\s*\d)"
    ),
    # "4417 53rd Street", "22 E 14th St", "310 West 82nd Street"
    re.compile(
        r"(?<![\w.,])\d{1,6}\s+(?:(?:[NSEW]|NE|NW|SE|SW|North|South|East|West)\.?\s+)?"
        r"\d{1,3}(?:st|nd|rd|th)\s+(?:Street|St|Avenue|Ave|Road|Rd|"
        r"Drive|Dr|Lane|Ln|Boulevard|Blvd|Place|Pl|Way|Terrace|Court|Ct)\b\.?"
    ),
    # a line that is only a street and a house number ("Molentuinbaan 178", "Vizes rakpart 86.")
    re.compile(
        rf"(?m)^[^\w\n]*((?!(?:{_NOT_STREET})\b)[{_UP}][{_LW}'’-]{{2,}}(?:-[{_UP}][{_LW}'’-]+)*"
        rf"(?:[ \t]+[{_UP}{_LW}][{_LW}'’.-]*){{0,3}}[ \t]+\d{{1,4}}[a-z]?\.?)"
        r"(?:,?[ \t]+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|#)[ \t]*[A-Za-z-]*\d[\w-]*)?[ \t]*$"
    ),
    # "Brezovčeva 93, Lipno": a capitalised word and a house number before ", City"
    re.compile(
        rf"(?<![\w.,])[{_UP}][{_LW}'’-]{{2,}}(?: [{_UP}][{_LW}'’-]+)? \d{{1,4}}[a-z]?"
        rf"(?=, [{_UP}])"
    ),
    # "512 Tkalcovská 1208": number, one to three capitalised words, number
    re.compile(
        rf"(?<![\w.,])\d{{1,5}}[ \t]+(?:[{_UP}][{_LW}'’-]+[ \t]+){{1,3}}\d{{1,5}}[a-z]?"
        r"(?![\w.,])"
    ),
    # "Vaba põik 14" / "Hoog St 5": capitalised word(s) then a house number, after an address word
    # (or a side of it: "on the far end of Westerzijl 28")
    re.compile(
        rf"(?i:(?<!\w)(?:address|adresse|indirizzo|dirección|adres|live at|lives at|"
        rf"living at|live on|lives on|is on|is at|located at|corner of|ship to|shipped to|"
        rf"deliver to|delivered to|send it to|post it to|mail it to|moved to|move to|"
        rf"drops? (?:you|me|us) off at|pick (?:you|me|us) up at|"
        rf"wohne in der|wohnhaft|side of)"
        rf"\b:?\s+)"
        rf"((?:{_STREET_WORD}[ \t]+){{1,4}}{_HOUSE})(?!\w)"
    ),
    # a street word after the name: "Kelemeni u. 79.", "Tordai kapu 38", "Dunajska cesta 5"
    re.compile(
        rf"(?<!\w)[{_UP}][{_LW}'’-]+(?:[ \t]+[{_UP}{_LW}][{_LW}'’-]+)?[ \t]+(?:u\.|utca|útja|út|"
        rf"tér|körút|krt\.|rakpart|rkp\.|sétány|fasor|köz|kapu|cesta|ulica|Aqq\.|aqq\.)[ \t]+"
        # maybe a Hungarian floor and door after the house ("39. 2/5.", "8. III/2.")
        rf"{_HOUSE}\.?(?:[ \t]+(?:\d{{1,2}}|[IVX]{{1,4}})\.?/\d{{1,3}}\.?)?(?!\w)"
    ),
    # a street-type word standing alone after the name: "Vilbeler Platz 23", "Nieuwe Baan 4"
    re.compile(
        rf"(?<![\w.,])[{_UP}][{_LW}'’-]+[ \t]+(?:Straße|Strasse|Platz|Weg|Allee|Gasse|Damm|Ufer|"
        r"Markt|Straat|Laan|Plein|Gracht|Kade|Singel|Dijk|Baan|Steeg|Gade|Vej|Gatan|Vägen|Veien|"
        rf"Katu|Utca|Tér|Str\.)[ \t]+{_HOUSE}(?!\w)"
    ),
    # a whole address line: "Concordia 6558, Pine Hollow, 4100" (the city and postcode after it
    # make it a street even when its words are vocabulary of some language)
    re.compile(
        rf"(?<![\w.,])[{_UP}][{_LW}'’-]{{2,}}(?: [{_UP}][{_LW}'’-]+)? \d{{1,5}}[a-z]?"
        rf"(?=,[ \t]+[{_UP}\d][^,\n]{{1,40}},[ \t]+(?:\d{{4,5}}(?:-\d{{3}})?|\d{{2}}-\d{{3}}|"
        r"\d{3} \d{2}|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}|[A-Z]\d[A-Z] ?\d[A-Z]\d)(?![\w-]))"
    ),
    # the same with the house number first: "81 Marathonos, Agia Varvara, 2640"
    re.compile(
        rf"(?<![\w.,])\d{{1,5}}[a-z]? [{_UP}][{_LW}'’-]+(?: [{_UP}{_LW}][{_LW}'’-]+){{0,3}}"
        rf"(?=,[ \t]+[{_UP}\d][^,\n]{{1,40}},[ \t]+(?:\d{{4,5}}(?:-\d{{3}})?|\d{{2}}-\d{{3}}|"
        r"\d{3} \d{2}|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}|[A-Z]\d[A-Z] ?\d[A-Z]\d)(?![\w-]))"
    ),
    # a separate lower-case street word after the name (Nordic, Baltic, Finnish, Turkish):
    # "Halvard Brekkes vei 187", "Kuusemetsa tee 69", "Kongens gade 3"
    re.compile(
        rf"(?<!\w)[{_UP}][{_LW}'’-]+(?:[ \t]+[{_UP}][{_LW}'’-]+){{0,2}}[ \t]+(?:vei|veien|vegen|"
        r"vej|vejen|gata|gatan|gate|väg|vägen|gade|stræde|allé|plass|torg|tee|põik|tn\.?|mnt\.?|"
        rf"iela|gatvė|g\.|tänav|puiestee|tie|katu|kuja|sokak|sokağı|caddesi|{_TURKISH})[ \t]+"
        rf"{_HOUSE}(?!\w)"
    ),
    # a name and house number before the word "street" or "St.": "Egekrogen 55 street in
    # Vejlby", "enter on Aromo 9127 St."
    re.compile(
        rf"(?<![\w.,])[{_UP}][{_LW}'’-]*(?:[ \t]+[{_UP}][{_LW}'’-]+){{0,2}}[ \t]+\d{{1,5}}[a-z]?"
        r"(?=[ \t]+(?:street\b|St\.))"
    ),
    # a numbered street, the house's number after "No." or "#", maybe the streets it lies between
    # (Mexico, Colombia: "Calle 14 No. 205 x 21 y 23", "Carrera 9 # 41-17")
    re.compile(
        rf"(?<!\w)(?:{_NUMBERED_STREET})[ \t]+\d{{1,3}}[A-Z]?(?:[ \t]+[Bb]is)?[ \t]+"
        r"(?:No\.?|N[º°o]\.?|#)[ \t]?\d{1,5}[A-Z]?(?:-\d{1,3})?"
        r"(?:[ \t]+(?:x|entre)[ \t]+\d{1,3}[A-Z]?[ \t]+[ye][ \t]+\d{1,3}[A-Z]?)?(?![\w-])"
    ),
    # a preposition and article before the name, right before a 4-5 digit postcode and its town
    # ("Unter den Eichen 4, 31157 Tarnau", "Aan de Vaart 12\n7411 Doren")
    re.compile(
        rf"(?<![\w.,])(?:{_PREPOSITIONS})[ \t]+[{_UP}][{_LW}'’-]+(?:[ \t]+[{_UP}][{_LW}'’-]+)?"
        rf"[ \t]+{_HOUSE}(?!\w)(?=,?[ \t]*(?:\r?\n[ \t]*)?(?:[A-Z]{{1,2}}-)?\d{{4,5}}[ \t]+[{_UP}])"
    ),
    # Italian "via" in lower case, as a sentence writes it ("in via Lucerna 9"): an English
    # word too ("via Route 9"), so its name's words are checked (``_WORD_NUMBER_RES``)
    re.compile(rf"(?<!\w)via\s+(?:{_STREET_WORD}\s+){{0,3}}?{_STREET_WORD},?\s+{_HOUSE}(?!\w)"),
    # Japanese and Chinese addresses, maybe after a Japanese postcode ("〒NNN-NNNN"): a
    # prefecture or province, a city, ward or county or both (maybe set off by spaces), then the
    # block numbers ("…区南青山5-12-3", "…3丁目7番12号") or a road and its number ("…路88号"),
    # then the building, unit and room ("3幢1单元502", "5号楼1201室", a building's name and room
    # number); numbers may be set off by spaces.
    # Without spaces the words before it may join it (a few characters at most)
    re.compile(
        r"(?:〒[ \t]?\d{3}[-－]\d{4}[ \t]*)?"
        r"(?:[一-龥]{1,3}(?:都|道|府|県|省|市)[ \t]?)?"
        r"(?:[一-龥ぁ-んァ-ン]{1,4}(?:市|区|區|町|村|郡|县|縣)[ \t]?){1,2}"
        r"(?:[一-龥ぁ-んァ-ン]{0,8}?[ \t]?\d{1,4}(?:[-－−]\d{1,4}){1,2}(?:[ \t]?号)?"
        # the same written with its words ("一番町3丁目7番12号", "…2丁目15番地")
        r"|[一-龥ぁ-んァ-ン]{0,8}?[ \t]?\d{1,4}丁目[ \t]?\d{1,4}(?:番地?|[-－−])"
        r"(?:[ \t]?\d{1,4}号?)?"
        r"|[一-龥]{1,8}?(?:路|街|道|巷|弄)[ \t]?\d{1,5}[ \t]?号)"
        r"(?:[ \t]?\d{1,5}[ \t]?(?:号楼|號樓|幢|栋|棟|座|单元|單元|楼|樓|层|層|室|号室|号))*"
        r"(?:[ \t]?(?:[ァ-ヶー一-龥]{1,12}[ \t]?)?\d{2,5}(?:[ \t]?(?:室|号室))?(?![\d号]))?"
    ),
    # Korean road-name addresses: a city or province, one to three districts, a road and its
    # number, maybe the building's block, the floor and the flat ("…로 166, 1104호")
    re.compile(
        r"[가-힣]{1,8}(?:특별시|광역시|특별자치시|도|시)"
        r"(?:[ \t]?[가-힣]{1,8}(?:구|군|시|읍|면)){1,3}"
        r"[ \t]?[가-힣\d]{1,10}(?:로|길)[ \t]?\d{1,4}(?:-\d{1,4})?"
        r"(?:,?[ \t]?\d{1,4}(?:동|층|호))*"
    ),
    # a Turkish numbered street, maybe after its neighbourhood, the house after "No:" (needed:
    # "call 3 Sk. 5 times" is none) and maybe the flat ("Bahçe Mah. 318 Sok. No: 12 D: 4")
    re.compile(
        rf"(?<!\w)(?:[{_UP}][{_LW}'’-]+(?:[ \t]+[{_UP}][{_LW}'’-]+)?[ \t]+"
        rf"(?:Mahallesi|Mah\.|Mh\.),?[ \t]+)?\d{{1,5}}\.?[ \t]+(?:{_TURKISH})[ \t]+"
        rf"(?:No|NO)[.:][ \t]*{_HOUSE}"
        r"(?:[ \t]+(?:D|Daire|Kat|K)[.:]?[ \t]*\d{1,3})?(?!\w)"
    ),
)
#: The families of ``EU_STREET_RES`` without a street word of their own ("words + house
#: number") and the "-ring"/"-weg" suffix family ("During 2019" ends in "ring"): their words are
#: checked by ``_street_words`` (positions in ``EU_STREET_RES``; new families go at its end).
_WORD_NUMBER_RES = frozenset({2, 5, 6, 7, 8, 14, 17})
#: Families whose context is a whole address line or a street word of their own: their words may
#: be vocabulary but no label, calendar word or country.
_ADDRESS_LINE_RES = frozenset({11, 12, 13})
_LETTERS_RE = re.compile(rf"[{_UP}{_LW}]+")
#: The house number ending a street candidate (its number word and staircase letter are no
#: street words: "No: 58", "3 A 2").
_TRAILING_HOUSE_RE = re.compile(rf"[ \t,]+{_HOUSE}\.?$")


def _norwegian_gate(span: str) -> bool:
    """ "Arnes gate 71": the word before "gate" is a genitive that is no English word (not
    "Boarding gate 12", "Arrivals gate 3")."""
    before = span.rsplit(" gate ", 1)[0].split()[-1]
    return before.endswith("s") and not is_vocabulary(before, 3.0, ("en",))


def _street_words(span: str, vocabulary: bool = True) -> bool:
    """The words of a "words + number" street candidate can name a street: none is a month or
    weekday ("May 27"), a country or nationality ("Australia 2405"), a capitalised English stop
    word ("During 2019", "Of The 70s") or a non-street label ("Size 10"), and they are not all
    common English vocabulary."""
    words = _LETTERS_RE.findall(_TRAILING_HOUSE_RE.sub("", span))
    if not words:
        return False
    for w in words:
        f = fold(w)
        if is_place_or_calendar(w) or (f in _NOT_STREET_WORDS and not _norwegian_gate(span)):
            return False
        if w[0].isupper() and f in _STOP:
            return False
    return not vocabulary or not all(is_vocabulary(w) for w in words)


def _country_or_city(text: str, m: re.Match[str]) -> bool:
    """A country before a postcode at a line's end ("Czech Republic 582 41", "Malta (North)
    2036"), or a city that is no label or calendar word and whose number is no year ("Gniezno
    61-478", not "Copyright 2019", "Order 12345")."""
    line = text[text.rfind("\n", 0, m.start()) + 1 : m.start("country")] + m["country"]
    words = _LETTERS_RE.findall(line)
    if any(is_place(" ".join(words[-k:])) for k in (1, 2, 3) if len(words) >= k):
        return True
    code = m["code"]
    if not region_words(m["country"]):
        return False
    return not looks_like_year(code)


#: A date's day or month right before a number: "May 20th, 2024", "3 March 2024", "20th, 2024".
_DATE_BEFORE_RE = re.compile(
    rf"(?i)(?:(?<![\w])(?:{'|'.join(sorted(MONTHS, key=len, reverse=True))})\.?"
    r"(?:[ \t]+\d{1,2}(?:st|nd|rd|th)?)?|(?<!\d)\d{1,2}(?:st|nd|rd|th))[ \t]*,?[ \t]*$"
)


def _year_of_a_date(text: str, start: int, end: int) -> bool:
    """The 4-digit number ``text[start:end]`` is the year of a date written before it."""
    if not looks_like_year(text[start:end]):
        return False
    return _DATE_BEFORE_RE.search(text, max(0, start - 20), start) is not None


#: Postcodes, each with the context that makes it one (a city after it, or a comma/state before).
_CITY = rf"(?=,?[ \t]+(?:(?:la|le|les|el|els|los|las|de|den|het|l['’])[ \t]*)?[{_UP}][{_LW}'’-]+)"
POSTCODE_RES: tuple[re.Pattern[str], ...] = (
    # UK
    re.compile(r"(?<![\w-])(?:[A-Z]{1,2}\d[A-Z\d]?|GIR) ?\d[ABD-HJLNP-UW-Z]{2}(?![\w-])"),
    # Canada
    re.compile(
        r"(?<![\w-])[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d"
        r"(?![\w-])"
    ),
    # Netherlands, before the city
    re.compile(rf"(?<![\w-])[1-9]\d{{3}} ?(?!SA|SD|SS)[A-Z]{{2}}(?![\w-]){_CITY}"),
    # DE/FR/IT/ES/FI/... five digits before the city ("10115 Berlin", "75001 Paris")
    re.compile(rf"(?<![\w.,/-])\d{{5}}(?![\w.,/-]){_CITY}"),
    # PL "00-950 Miastko", PT "1000-001 Vilarelho"
    re.compile(
        rf"(?<![\w.,/-])\d{{2}}-\d{{3}}(?![\w-]){_CITY}|(?<![\w.,/-])\d{{4}}-\d{{3}}(?![\w-])"
    ),
    # CH/AT/BE/DK/NO four digits before the city, after a comma or line break (Norway's and
    # Denmark's may start with 0: "0153 Oslo"), and the SE/CZ/SK/GR "NNN NN" ("917 01 <City>")
    re.compile(rf"(?:(?<=, )|(?<=,)|(?<=\n))(?:\d{{4}}|\d{{3}} \d{{2}})(?![\w.,/-]){_CITY}"),
    # a postcode closing an address line: "Brugg, 8021", "ORLANE, 13001", "Lipno, 2343", an
    # Eircode after a district's number ("Dublin 8, D08 …")
    re.compile(
        rf"(?:(?<=[{_UP}{_LW}], )(?:\d{{4,5}}|\d{{4,5}}-\d{{3}}|\d{{2}}-\d{{3}}|\d{{3}} \d{{2}}|"
        rf"[1-9]\d{{3}} ?[A-Z]{{2}})|(?<=\w, ){EIRCODE})"
        r"(?=$|[\s,;?!)\"]|\.(?!\d))"
    ),
    # a postcode after a country or county name at the end of a line ("Australia 4671")
    # ("Malta (North) 4155", "Gniezno  61-478"); its word is no label or calendar word
    re.compile(
        rf"(?<![\w-])(?P<country>[{_UP}](?:[{_LW}]+|[{_UP}]{{3,}}))"
        rf"(?:[ \t]+\([^()\n]{{1,30}}\))?[ \t]+"
        r"(?P<code>\d{4,5}|\d{3} \d{2}|[1-9]\d{3} ?[A-Z]{2}|\d{2}-\d{3}|\d{4,5}-\d{3})"
        r"(?=[ \t]*$|[ \t]*\n)",
        re.MULTILINE,
    ),
    # a postcode after its name: "my zip code is 5211", "PLZ: 10115", "code postal 75001"
    re.compile(
        r"(?i:(?<!\w)(?:zip(?:\s?code)?|post(?:al)?\s?code|postcode|plz|postleitzahl|eircode|"
        r"code\s+postal|c[oó]digo\s+postal|cap|c\.p\.)(?:\s+(?:is|was|ist|est|es|è))?)"
        r"\W{0,3}(\d{3,5}(?:[- ]\d{2,4})?|\d{2}-\d{3}|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}|"
        rf"[1-9]\d{{3}} ?[A-Z]{{2}}|{EIRCODE})(?![\w-])"
    ),
    # US ZIP after a state code ("Austin, TX 78701") or a city and comma ("Seattle, 98101")
    # (the state code is a word of its own and no label: not "ORDER 12345", "ID 12345")
    re.compile(r"(?<![\w-])(?P<city>[A-Z]{2}) (?P<code>\d{5}(?:-\d{4})?)(?![\w-])"),
    re.compile(r"(?<=[^\W\d_], )\d{5}(?:-\d{4})?(?=$|[\s,.;)])"),
    # a postcode closing a line that is only a city and a two-letter region ("Budapest BU 1045",
    # "Vlierden NB 5076 PB")
    # (or a region code of one to three letters: "Oostduinkerke VWV 8433", "Muel Z 50450",
    # "Villar de Olmos J 23391", "ΛΑΚΑΤΑΜΙΑ (ΚΑΤΩ) NI 2101"); its words are checked
    re.compile(
        rf"^[^\w\n]*(?P<city>(?:(?:[{_UP}][{_UP}{_LW}'’-]+|\([^()\n]{{1,30}}\)|de|del|la|le|nad|"
        rf"pod)[ \t]+){{1,4}})(?:\d{{1,2}}[ \t]+)?[A-Z]{{1,3}}[ \t]+"
        r"(?P<code>\d{4,5}|[1-9]\d{3} ?[A-Z]{2}|\d{3} \d{2}|\d{2}-\d{3})(?=[ \t]*$)",
        re.MULTILINE,
    ),
    # Australian postcode after a state ("BRINDLEFORD NSW 2318")
    re.compile(
        r"(?<=\b(?:NSW|VIC|QLD|TAS|ACT) )\d{4}(?![\w-])|(?<=\b(?:WA|SA|NT) )\d{4}(?=[ \t]*$)", re.M
    ),
)


def _street_ok(i: int, m: re.Match[str]) -> bool:
    """The words of a match of ``EU_STREET_RES[i]`` can name a street (``_street_words``)."""
    g = 1 if m.re.groups else 0
    # a hyphenated compound ending in its street word is one ("Sankt-Anna-Platz 91")
    compound = i == 2 and "-" in m.group(g).split()[0]
    if i in _WORD_NUMBER_RES and not _street_words(m.group(g), not compound):
        return False
    # Norwegian "gate" is an English word too: "Arnes gate 71", not "Boarding gate 5"
    return i not in _ADDRESS_LINE_RES or _street_words(m.group(g), False)


def _street_match(i: int, rx: re.Pattern[str], text: str, m: re.Match[str]) -> re.Match[str] | None:
    """``m`` if its words can name a street, else the same family's match from the next word
    of it on, if that one can: the optional given name of "Jan van Galenstraat 4" took the word
    before the street ("Miete Januar Fontanestr. 12": the month rejected the longer match)."""
    g = 1 if rx.groups else 0
    gaps = list(_COLUMN_GAP.finditer(m.group(g)))
    if not gaps and _street_ok(i, m):
        return m
    if gaps:  # "P-12   Ilse Brand   4 Rue ...": the street starts after the last column gap
        nxt: re.Match[str] | None = gaps[-1]
    elif i == 2:
        nxt = re.search(r"\s+", m.group(g))
    else:
        return None
    m2 = rx.match(text, m.start(g) + nxt.end()) if nxt else None
    ok = m2 is not None and m2.end(g) == m.end(g) and not _COLUMN_GAP.search(m2.group(g))
    return m2 if ok and _street_ok(i, m2) else None


#: Position in ``POSTCODE_RES`` of the postcode closing an address line ("Brugg, 8021").
_CLOSING_POSTCODE = 6


class StreetLineRecognizer(LocalRecognizer):
    """European street lines and postcodes (US/UK lines are ``street_address_recognizer``)."""

    def __init__(self) -> None:
        super().__init__(
            supported_entities=["STREET_ADDRESS", "ZIP_CODE"], name="StreetLineRecognizer"
        )

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report street lines (0.7) and postcodes (0.6): the line patterns' first, then those
        that the shape of the address around them makes ones (``address_blocks``)."""
        found: list[tuple[int, int, str]] = []
        for i, rx in enumerate(EU_STREET_RES):
            for m in rx.finditer(text):
                m = _street_match(i, rx, text, m)
                if m is not None:
                    g = 1 if rx.groups else 0
                    found.append((m.start(g), m.end(g), "STREET_ADDRESS"))
        for i, rx in enumerate(POSTCODE_RES):
            for m in rx.finditer(text):
                g = "code" if "code" in rx.groupindex else 1 if rx.groups else 0
                if i == _CLOSING_POSTCODE and looks_like_year(m.group(g)):
                    continue  # "University of X, 2019": a year (after a street: the joiner's)
                if "city" in rx.groupindex and not region_words(m.group("city")):
                    continue
                if "country" in rx.groupindex and not _country_or_city(text, m):
                    continue
                if _year_of_a_date(text, m.start(g), m.end(g)):
                    continue
                found.append((m.start(g), m.end(g), "ZIP_CODE"))
        found += prose_postcode_spans(text)
        found += after_street_spans(text, found)
        found += block_spans(text, found)
        found += after_street_spans(text, found)
        wanted = {"STREET_ADDRESS", "ZIP_CODE"} if not entities else set(entities)
        return [
            RecognizerResult(t, s, e, 0.7 if t == "STREET_ADDRESS" else 0.6)
            for s, e, t in sorted(set(found))
            if t in wanted
        ]
