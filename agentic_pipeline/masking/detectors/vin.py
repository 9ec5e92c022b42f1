"""Vehicle identification numbers (VINs, ISO 3779) found by their check digit, and number plates
written in groups after their label.

A VIN names its keeper (GDPR: personal data). North American and Chinese VINs carry a check digit
in position 9 (a transliteration of each character, weighted, modulo 11; 49 CFR 565.15): a 17-char
token of the VIN alphabet (no I, O, Q) with letters and digits whose check digit holds is masked
without a label, in prose, JSON values and CSV cells. Other countries' VINs have no check digit:
a token of the same structure (letters among the first eleven characters, a serial mostly of
digits at the end) is masked where it stands at a lower score, and after its label ("VIN",
"Fahrgestellnummer", ``labels.yaml``) whatever its shape.

A number plate has no check digit and a shape per country; after a vehicle label ("Kennzeichen",
"Targa", ``VEHICLE_ID`` of ``labels.yaml``), maybe a few words and a colon after it ("Plate of
the van:"), its groups of capitals and digits are one value ("B MK 4721", "4821 KTR", "KA 05 MX
2291"), where the id label recognizer's value ends at a space before letters. In prose, a plate
a few words after the label, in the same sentence ("the plate on the van read KRT 5528"), is
masked where it stands (``NEAR_PLATE_SCORE``): in groups or one token of capitals and two digits
or more, five characters or more, no year or time in it; so is one a few words after a vehicle's
word ("the van", "fordonet": ``vehicle_words`` of ``labels.yaml``), and a plate of a strict
national format anywhere (British "AB12 CDE", French "AB-123-CD", Belgian, Dutch side codes).

Our own code: python-stdnum (2.2) has no VIN module, and the check is a fixed public table.
"""

from __future__ import annotations

import bisect
import re

from presidio_analyzer import LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.detectors.data_files import alternation, data_file
from agentic_pipeline.masking.detectors.label_lists import id_words, labels_of_type
from agentic_pipeline.masking.vocabulary import STOP_WORDS, zipf

ENTITY = "VEHICLE_ID"
#: A VIN's score: above spaCy's (0.85) and the labels' (0.87): a check digit is validation.
SCORE = 0.9
#: A VIN's structure without a valid check digit (Europe, Japan...): masked where it stands,
#: never propagated through the episode.
SHAPE_SCORE = 0.5
#: A number plate's score: an id after its label (``labels.LABEL_SCORE``).
PLATE_SCORE = 0.87
#: A plate a few words after its label: masked where it stands (``labels.NEAR_LABEL_SCORE``).
NEAR_PLATE_SCORE = 0.6
#: How many words of the same sentence may stand between a vehicle label and a plate in prose.
_NEAR_WORDS = 6
_VALUES = {
    **{str(d): d for d in range(10)},
    **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
    **dict(zip("JKLMN", range(1, 6), strict=True)),
    "P": 7,
    "R": 9,
    **dict(zip("STUVWXYZ", range(2, 10), strict=True)),
}
_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
#: A number plate in groups: two to four groups of capitals and digits, one space or hyphen
#: between them.
_PLATE = re.compile(r"[A-Z0-9]{1,4}(?:[ -][A-Z0-9]{1,5}){1,3}(?![\w-])")
#: A group of letters this frequent in a main European language is a word ("12 MAY 2024").
_WORD_ZIPF = 3.0
#: A time of day in capitals ("9 AM", "10.30 PM"): no plate.
_TIME = re.compile(r"\d{1,2}(?:[:.]\d\d)?[ -]?[AP]M")
#: One token of a plate written without groups ("KRT5528", "7TRW204"): capitals and digits.
_ONE_TOKEN = re.compile(r"[A-Z0-9]{5,8}(?![\w-])")
#: A word of the sentence between a vehicle label and a plate in prose, maybe with its comma.
_PROSE_WORD = re.compile(r",?[ \t]+[^\W\d_][\w'’]*,?(?=[ \t])")
#: What stands between the label or a word and the next word: maybe a comma or a colon ("fordon:
#: <plate>"), then blanks, maybe a bracket ("bilen (<plate>)"); or a log line's "="
#: ("vehicle=<plate>").
_GAP = re.compile(r"[ \t]*[,:]?[ \t]+\(?|=")
#: A year (1900-2099) as one group of a value: a model year or a date, no plate's group.
_YEAR = re.compile(r"(?:19|20)\d\d")


_VEHICLE_IDS: list[str] = labels_of_type(ENTITY)
_VEHICLE_WORDS: list[str] = data_file("labels.yaml")["vehicle_words"]
_VEHICLE_LABELS = rf"(?<!\w)(?:{alternation(_VEHICLE_IDS)})"


#: A vehicle label, then id words (``labels.yaml``) or a few words and a colon, then the
#: separator: a plate's value follows.
_PLATE_LABEL = re.compile(
    rf"(?i:{_VEHICLE_LABELS}(?:[ \t]*(?:{id_words()}|#))?"
    r"(?:(?:[ \t]+[^\W\d_]+){1,3}[ \t]*:|[ \t]*[:=#]?))[ \t]*"
)
#: A vehicle label or a vehicle's word as a word of a sentence: a plate may follow a few words on.
_VEHICLE_LABEL = re.compile(rf"(?i:(?<!\w)(?:{alternation(_VEHICLE_IDS + _VEHICLE_WORDS)})(?!\w))")
#: Plates of strict national formats, without a label: British of the current system (two
#: letters, the age identifier 02-29 or 51-79, a space, three letters: "AB12 CDE"; the letters
#: the DVLA leaves unused are accepted, as a bad check digit is for an id), French SIV
#: ("AB-123-CD", no I, O or U), Belgian ("1-ABC-123"), the Dutch side codes of three groups with
#: a group of three ("AB-123-C", "12-ABC-3", ...), South Korean (two or three digits, one of
#: the Hangul syllables plates use, four digits: "12가 3456"), Russian (a letter, three
#: digits, two letters of the twelve Cyrillic ones that look Latin, the region: "А 123 ВС 77"),
#: Turkish before "plakalı" ("06 KB 4471 plakalı araç"), Chinese (a province's character, the
#: city's letter, five or six letters and digits: "粤B·D12345"), Japanese (the office, the class,
#: a kana, the number: "品川 300 あ 12-34") and Indian (``_INDIAN_PLATE``).
#: In the development corpora every French, Belgian and Dutch match was a labelled plate (7 of
#: 7).
#: The Hangul syllables of South Korean plates' use class.
_KOREAN_PLATE_SYLLABLES = (
    "가나다라마거너더러머버서어저고노도로모보소오조구누두루무부수우주아바사자배하허호"
)
#: The codes of India's states and union territories that open its plates ("KA 05 MX 2291").
_INDIAN_STATES = "|".join(data_file("labels.yaml")["indian_plate_states"])
#: The one-character abbreviations of China's provinces that open its plates.
_CHINESE_PROVINCES = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼"
_STRICT_PLATE = re.compile(
    r"(?<![\w-])(?:[A-Z]{2}(?:0[2-9]|[12]\d|5[1-9]|[67]\d) [A-Z]{3}"
    rf"|\d{{2,3}}[{_KOREAN_PLATE_SYLLABLES}] ?\d{{4}}"
    r"|[АВЕКМНОРСТУХ] ?\d{3} ?[АВЕКМНОРСТУХ]{2} ?\d{2,3}"
    r"|\d{2} ?[A-Z]{1,3} ?\d{2,4}(?=[ \t]+plaka)"  # Turkish, before "plakalı"
    r"|[A-HJ-NP-TV-Z]{2}-\d{3}-[A-HJ-NP-TV-Z]{2}|[1-9]-[A-Z]{3}-\d{3}"
    r"|[A-Z]{2}-\d{3}-[A-Z]|[A-Z]-\d{3}-[A-Z]{2}|\d{2}-[A-Z]{3}-\d|\d-[A-Z]{3}-\d{2}"
    r"|[A-Z]{3}-\d{2}-[A-Z]|[A-Z]-\d{2}-[A-Z]{3}|\d-[A-Z]{2}-\d{3}|\d{3}-[A-Z]{2}-\d)(?![\w-])"
)
#: Chinese and Japanese plates (see above): in text written without spaces, after any letter.
_CJK_PLATE = re.compile(
    rf"(?<![{_CHINESE_PROVINCES}A-Za-z0-9])[{_CHINESE_PROVINCES}][A-Z][·•. ]?[A-HJ-NP-Z0-9]{{5,6}}"
    r"(?![A-Za-z0-9])"
    r"|(?<![\u4e00-\u9fff0-9])[\u4e00-\u9fff]{1,4} ?\d{2,3} ?[\u3041-\u3096] ?"
    r"(?:\d{1,2}-\d{2}|・{1,3}\d{1,3})(?![0-9])"
)
#: An Indian plate: the state's code, the district's number, one to three letters of the series,
#: four digits ("KA 05 MX 2291"); a series that is a stop word ("AS 2 OF 2024") is none.
_INDIAN_PLATE = re.compile(
    rf"(?<![\w-])(?:{_INDIAN_STATES})[ -]?\d{{1,2}}[ -]?"
    r"(?P<series>[A-Z]{1,3})[ -]?\d{4}(?![\w-])"
)


def plate_end(text: str, start: int) -> int | None:
    """The end of a number plate written in groups at ``start`` (after a plate label), or None:
    a digit and a letter in it, no group of three or more letters that is a word."""
    m = _PLATE.match(text, start)
    if m is None or not (re.search(r"\d", m.group()) and re.search(r"[A-Z]", m.group())):
        return None
    if _TIME.fullmatch(m.group()):
        return None
    words = [g for g in re.split(r"[ -]", m.group()) if len(g) >= 3 and g.isalpha()]
    return None if any(zipf(g.lower()) >= _WORD_ZIPF for g in words) else m.end()


def _prose_plate(text: str, start: int) -> int | None:
    """The end of a plate in prose at ``start``: in groups (``plate_end``) or one token, with a
    letter, two digits or more and five characters or more, and no group that is a year."""
    end = plate_end(text, start)
    if end is None:
        m = _ONE_TOKEN.match(text, start)
        end = m.end() if m and re.search(r"[A-Z]", m.group()) else None
    if end is None:
        return None
    groups = re.split(r"[ -]", text[start:end])
    chars = "".join(groups)
    if len(chars) < 5 or sum(c.isdigit() for c in chars) < 2:
        return None
    return None if any(_YEAR.fullmatch(g) for g in groups) else end


def _strict_plates(text: str) -> list[tuple[int, int]]:
    """Plates of strict national formats, wherever they stand (``_STRICT_PLATE``)."""
    indian = (m for m in _INDIAN_PLATE.finditer(text) if m["series"].lower() not in STOP_WORDS)
    cjk = _CJK_PLATE.finditer(text) if not text.isascii() else ()
    return [m.span() for m in (*_STRICT_PLATE.finditer(text), *indian, *cjk)]


def near_plates(text: str) -> list[tuple[int, int]]:
    """Plates up to ``_NEAR_WORDS`` words after a vehicle label in the same sentence ("the plate
    on the van read KRT 5528", "registered under KRT5528")."""
    out = []
    for m in _VEHICLE_LABEL.finditer(text):
        pos = m.end()
        for _ in range(_NEAR_WORDS + 1):
            gap = _GAP.match(text, pos)
            at = gap.end() if gap else pos
            if gap and (end := _prose_plate(text, at)) is not None:
                out.append((at, end))
                break
            w = _PROSE_WORD.match(text, pos)
            if w is None:
                break
            pos = w.end()
    return out


#: A 17-character token of the VIN alphabet (upper case, as VINs are written).
_CANDIDATE = re.compile(r"(?<![\w-])[A-HJ-NPR-Z0-9]{17}(?![\w-])")
#: Where a cell of a record's line starts: the line's start or a separator, then blanks.
_CELL_START = re.compile(r"(?:^|[/|,;(\[\t])[ \t]*", re.MULTILINE)
#: Where a cell ends: blanks, then the line's end or a separator.
_CELL_END = re.compile(r"[ \t]*(?:$|[/|,;)\]\t(])", re.MULTILINE)


def plates_beside_vins(text: str, vins: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Plates that fill a cell of a line holding a VIN: a vehicle's record ("[<VIN>, <plate>]",
    "<plate> (<state>), VIN <VIN>"), in prose's plate shape (``_prose_plate``); a cell that opens
    with a vehicle label ("SPZ <plate>") is the label's (``_PLATE_LABEL``)."""
    out = []
    lines: list[tuple[int, int]] = []
    for a, _ in vins:  # sorted: a VIN on the line found last needs no search
        if not lines or a >= lines[-1][1]:
            lines.append(_line(text, a))
    for line_start, line_end in lines:
        for m in _CELL_START.finditer(text, line_start, line_end):
            end = _prose_plate(text, m.end())
            if end is None or end > line_end or not _CELL_END.match(text, end):
                continue
            if _VEHICLE_LABEL.match(text, m.end()):
                continue
            i = bisect.bisect_left(vins, (end,))  # the VINs are sorted and disjoint
            if i == 0 or vins[i - 1][1] <= m.end():
                out.append((m.end(), end))
    return out


#: A plate label or a word of parking: the text's lines may open with plates.
_PARKING = re.compile(
    rf"(?i:{_VEHICLE_LABELS}|(?<!\w)(?:{alternation(data_file('labels.yaml')['parking_words'])}))"
    r"(?!\w)"
)
#: Where a line's first cell starts: the line's start, blanks, maybe a bullet.
_LINE_START = re.compile(r"^[ \t]*(?:[-*•·][ \t]+)?", re.MULTILINE)
#: Where a line's first cell ends: a column's gap (two blanks, a tab, a bar) or the line's end.
_FIRST_CELL_END = re.compile(r"(?:[ ]{2,}|[ ]*[\t|][ \t]*)(?=\S)|[ \t]*$", re.MULTILINE)


def line_plates(text: str) -> list[tuple[int, int]]:
    """Plates opening the first cell of two lines or more of a text that names plates or parking
    (``_PARKING``): a parking scanner's lines, a fleet's list ("<plate>  level 2 valid"), in
    prose's plate shape (``_prose_plate``). A vehicle's word alone is not enough: a garage's
    invoice lists its parts' numbers so."""
    if _PARKING.search(text) is None:
        return []
    out = []
    for m in _LINE_START.finditer(text):
        end = _prose_plate(text, m.end())
        if end is not None and _FIRST_CELL_END.match(text, end):
            out.append((m.end(), end))
    return out if len(out) >= 2 else []


def _line(text: str, at: int) -> tuple[int, int]:
    """The bounds of the line holding ``at``."""
    end = text.find("\n", at)
    return text.rfind("\n", 0, at) + 1, len(text) if end < 0 else end


def check_digit(vin: str) -> str:
    """The check digit (``0``-``9`` or ``X``) of a 17-character VIN."""
    total = sum(_VALUES[c] * w for c, w in zip(vin, _WEIGHTS, strict=True)) % 11
    return "X" if total == 10 else str(total)


def vin_shape(token: str) -> bool:
    """A VIN's structure: 17 characters of the VIN alphabet, two letters or more among the
    first eleven (a maker's code, a model; a run of digits is no VIN), five digits or more,
    three digits or more among the last six (the serial, which small makers write with
    letters)."""
    return (
        _CANDIDATE.fullmatch(token) is not None
        and sum(c.isalpha() for c in token[:11]) >= 2
        and sum(c.isdigit() for c in token) >= 5
        and sum(c.isdigit() for c in token[-6:]) >= 3
    )


def is_vin(token: str) -> bool:
    """A VIN of that structure whose check digit holds."""
    return vin_shape(token) and check_digit(token) == token[8]


class VinRecognizer(LocalRecognizer):
    """VINs as ``VEHICLE_ID``: with a valid check digit (``SCORE``), or of a VIN's structure
    only (``SHAPE_SCORE``); number plates after their label (``PLATE_SCORE``)."""

    def __init__(self) -> None:
        super().__init__(supported_entities=[ENTITY], name="VinRecognizer")

    def load(self) -> None:  # noqa: D102
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report every VIN-shaped token, checked ones at the higher score, every number plate
        in groups after its label, and plates in prose (after a vehicle's word, British ones
        anywhere) at the lower score."""
        if entities and ENTITY not in entities:
            return []
        plates = (
            (m.end(), end)
            for m in _PLATE_LABEL.finditer(text)
            if (end := plate_end(text, m.end())) is not None
        )
        labelled = list(dict.fromkeys(plates))
        vins = [m for m in _CANDIDATE.finditer(text) if vin_shape(m.group())]
        beside = plates_beside_vins(text, [m.span() for m in vins]) if vins else []
        return (
            [
                RecognizerResult(ENTITY, *m.span(), SCORE if is_vin(m.group()) else SHAPE_SCORE)
                for m in vins
            ]
            + [RecognizerResult(ENTITY, a, b, PLATE_SCORE) for a, b in labelled]
            + [
                RecognizerResult(ENTITY, a, b, NEAR_PLATE_SCORE)
                for a, b in dict.fromkeys(
                    [*near_plates(text), *_strict_plates(text), *beside, *line_plates(text)]
                )
                if not any(x <= a < y for x, y in labelled)
            ]
        )
