"""Masking one string: collecting what to analyse (phase 1), choosing the detections and the
episode's known values that apply, and replacing them with keyed pseudonyms (phase 3)."""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import replace
from typing import Any

from presidio_anonymizer.entities import ConflictResolutionStrategy, RecognizerResult

from agentic_pipeline.masking.csv_cells import csv_table, tabular_values, thing_column, thing_values
from agentic_pipeline.masking.detectors.id_floor import FLOOR_DETECTOR, FLOOR_TYPE
from agentic_pipeline.masking.detectors.id_shapes import whole_id
from agentic_pipeline.masking.detectors.login_names import login_extent
from agentic_pipeline.masking.detectors.numbers import CARD_SHAPE, phone_context_before
from agentic_pipeline.masking.detectors.presidio_set import predefined_types
from agentic_pipeline.masking.detectors.redacted import (
    HIDDEN_DIGITS,
    REDACTED_DETECTOR,
    placeholder_value,
)
from agentic_pipeline.masking.detectors.things import THING_BEFORE
from agentic_pipeline.masking.engine import Span
from agentic_pipeline.masking.episode import NAME_SPLIT, SCAN_KNOWN, Episode
from agentic_pipeline.masking.json_walker import (
    last_key,
    rejoin,
    text_pieces,
    walk,
    written_back,
)
from agentic_pipeline.masking.key_values import (
    IDENTIFIER,
    bare_number,
    free_name,
    key_value_end,
    labelled_field,
)
from agentic_pipeline.masking.names import (
    COMMON_WORDS,
    is_name_pair,
    listed_name,
    name_gazetteer,
    not_a_name_word,
)
from agentic_pipeline.masking.pseudonyms import TOKEN_RE, fold
from agentic_pipeline.masking.router import Route, route
from agentic_pipeline.masking.tables import AuditRecord
from agentic_pipeline.masking.text_view import TextView, map_spans, text_view
from agentic_pipeline.masking.vocabulary import english_compound, is_vocabulary, is_word_char

GUARD = "guard"
#: Zipf frequency from which a word of a product's name is vocabulary ("Thermostat" 3.1; the
#: rarest words of ``vocabulary``'s lists are at 3): a product's name has one, a person's none.
THING_WORD_ZIPF = 3.0


class Collector:
    """Phase-1 visitor: gather known entities and strings to analyse."""

    def __init__(self, ep: Episode, to_analyse: dict[str, Route]) -> None:
        self.ep = ep
        self.to_analyse = to_analyse

    def leaf(self, path: str, value: Any, entity: str | None) -> Any:
        if (cut := key_value_end(value, entity)) is not None:
            queue_text(value[cut:], self.ep, self.to_analyse)  # the next fields, as text
            return self.leaf(path, value[:cut], entity)
        if entity is not None and not placeholder_value(value):  # "email": "N/A": nobody's
            if entity == "PERSON" and isinstance(value, str) and free_name(path, value):
                queue_text(value, self.ep, self.to_analyse)
                self.ep.name_fields.add(value)
            elif bare_number(value, entity):
                self.ep.numbers.setdefault(str(value), entity)  # unless a thing's id
            elif isinstance(value, str | int | float):
                self.ep.add_known(str(value), entity, "key_rule")
        elif entity is None:
            if isinstance(value, str | int) and thing_column(last_key(path) or ""):
                self.ep.thing_ids.add(str(value).strip())
            if isinstance(value, str):
                queue_text(value, self.ep, self.to_analyse)
                field = labelled_field(last_key(path), value)
                if field is not None:
                    self.to_analyse.setdefault(field, Route.NER)
                    self.ep.label_texts[field] = len(field) - len(value.strip())
        return value

    def too_deep(self, path: str, subtree: Any) -> Any:
        return subtree

    def bad_json(self, path: str, text: str) -> Any:
        queue_text(text, self.ep, self.to_analyse)
        return text

    def key(self, path: str, key: str) -> str:
        queue_text(key, self.ep, self.to_analyse)  # a personal value used as a key
        return key

    def product_name(self, value: Any) -> None:
        """The name of a product's record (``json_walker``) is a thing's name in the whole
        episode (``Episode.thing_names``) when a word of it is vocabulary that no name list has
        ("Garden Hose", "Smart Thermostat", a closed compound "Nightstand"; never "Marta
        Vellacott" or "Ilse Brandvold", whatever record holds them)."""
        if isinstance(value, str) and any(
            (is_vocabulary(w, THING_WORD_ZIPF) or english_compound(w)) and not listed_name(w)
            for w in NAME_SPLIT.split(value)
            if w
        ):
            self.ep.thing_names.add(value.strip())

    def product_option(self, value: str) -> None:
        """A key or value of a product's options ("material": "glass", "compatibility": "Amazon
        Alexa") is a thing's name in the whole episode, unless it reads like a person's name
        alone: listed names, none of them vocabulary."""
        words = [w for w in NAME_SPLIT.split(value) if w]
        a_name = all(listed_name(w) and not is_vocabulary(w, THING_WORD_ZIPF) for w in words)
        if words and not a_name:
            self.ep.thing_names.add(value.strip())


def listed_value(value: str) -> bool:
    """Some word of ``value`` is a first or last name of the gazetteer ("Desk Lamp" is not)."""
    firsts, lasts = name_gazetteer()
    return any(fold(w) in firsts or fold(w) in lasts for w in NAME_SPLIT.split(value) if w)


def queue_text(text: str, ep: Episode, to_analyse: dict[str, Route]) -> None:
    r = route(text)
    if r is not Route.SKIP:
        to_analyse.setdefault(text, r)
        ep.texts.add(text)
        if r is Route.NER and "\n" in text:
            table = csv_table(text)
            for value, et in tabular_values(text, table):
                ep.add_known(value, et, "key_rule")
            if table is not None:  # a thing's column ("order_id", "sku"): those ids are things'
                ep.thing_ids.update(thing_values(table))


def _cut_token(text: str, start: int, end: int) -> bool:
    """``start:end`` begins or ends inside a run of letters and digits."""
    return (start > 0 and text[start - 1].isalnum() and text[start].isalnum()) or (
        end < len(text) and text[end - 1].isalnum() and text[end].isalnum()
    )


class Applier:
    """Phase-2 visitor: replace leaves, recording the audit."""

    def __init__(self, mp: Partition, ep: Episode, row: int, column: str) -> None:
        self.mp, self.ep, self.row, self.column = mp, ep, row, column

    def leaf(self, path: str, value: Any, entity: str | None) -> Any:
        fld = f"{self.column}.{path}"
        if (cut := key_value_end(value, entity)) is not None:
            rest = self.mp.mask_text(value[cut:], self.ep, self.row, fld)
            return self.leaf(path, value[:cut], entity) + rest
        if entity is not None and bare_number(value, entity):
            if self.ep.is_thing_id(value):
                entity = None  # a catalog's "Tea Kettle": "9832717871": the product's id
        if entity is not None:
            blank = isinstance(value, str) and (not value.strip() or TOKEN_RE.fullmatch(value))
            if blank or placeholder_value(value):  # a placeholder as the collector kept it
                return value
            if entity == "PERSON" and isinstance(value, str) and free_name(path, value):
                return self.mp.mask_text(value, self.ep, self.row, fld)  # a tool/product name
            tok = self.mp.masker.token(value, entity)
            self.mp.record(self.row, fld, entity, "key_rule", 1.0, tok)
            if entity in SCAN_KNOWN:
                self.ep.raw_found.add(str(value))
            return tok
        if isinstance(value, str):
            thing = thing_column(last_key(path) or "") or self.ep.is_thing_id(value)
            return self.mp.mask_text(value, self.ep, self.row, fld, thing=thing)
        return value

    def too_deep(self, path: str, subtree: Any) -> Any:
        tok = self.mp.masker.token(f"{self.column}.{path}", "TRUNCATED")
        self.mp.record(self.row, f"{self.column}.{path}", "TRUNCATED", GUARD, 1.0, tok)
        return tok

    def bad_json(self, path: str, text: str) -> Any:
        self.mp.record(self.row, f"{self.column}.{path}", "UNPARSEABLE", GUARD, 1.0, None)
        return self.mp.mask_text(text, self.ep, self.row, f"{self.column}.{path}")

    def key(self, path: str, key: str) -> str:
        """A key is schema, masked only where it is a personal value (``{"Ann Lee": "owner"}``)."""
        if route(key) is Route.SKIP:  # "email", "flight_number", "MIA": schema, not a value
            return key
        return self.mp.mask_text(key, self.ep, self.row, f"{self.column}.{path}.<key>")


class Partition:
    """State of one ``mask_steps`` call."""

    def __init__(self, masker: Any) -> None:  # a ``mask.Masker`` (no import: no cycle)
        self.masker = masker
        self.records: list[AuditRecord] = []
        self.analysis: dict[str, list[Span]] = {}
        #: normalised views (``text_view``) of the strings met, computed once per string
        self.views: dict[str, TextView | None] = {}
        #: (episode, text, thing) -> (masked text, audit rows without row and field): a string
        #: repeated in an episode (a tool result quoted again, an enum) is masked once
        self._masked: dict[tuple[int, str, bool], tuple[str, list[tuple], Episode]] = {}
        #: (episode, column, JSON text) -> (masked text, audit records, episode): ``apply_cell``
        self._applied: dict[tuple[int, str, str], tuple[str, list[AuditRecord], Episode]] = {}

    def apply_cell(self, item: tuple[str, Any], raw: str, ep: Episode, row: int, col: str) -> str:
        """Phase 3 of one cell: ``item`` is its plan (``("text", text)``, ``("json" | "python",
        parsed)``, ``("mixed", embedded_structures)`` or ``("huge", text)``), ``raw`` its text.
        A JSON cell repeated in its episode (the task goal on every row) is walked once: the same
        masked text, and the same audit rows (field, type, detector, score, token) recorded
        again with each row's number."""
        kind, value = item
        if kind == "huge":
            tok = self.masker.token(value, "TRUNCATED")
            self.record(row, col, "TRUNCATED", GUARD, 1.0, tok)
            return tok
        if kind == "text":
            return self.mask_text(value, ep, row, col)
        if kind == "mixed":  # a text with objects inside it: each part masked as what it is
            pieces = [self.mask_text(p, ep, row, col) for p in text_pieces(raw, value)]
            inner = [self.apply_cell((k, obj), raw[a:b], ep, row, col) for a, b, k, obj in value]
            return rejoin(pieces, inner)
        done = self._applied.get((id(ep), col, raw))
        if done is not None:
            self.records.extend(replace(r, row=row) for r in done[1])
            return done[0]
        start = len(self.records)
        masked = walk(value, Applier(self, ep, row, col), max_depth=self.masker.max_depth)
        out = written_back(masked, value, kind, raw)
        self._applied[(id(ep), col, raw)] = (out, self.records[start:], ep)  # ep: id stays
        return out

    def view(self, text: str) -> TextView | None:
        """``text_view(text)``, computed once per string."""
        if text not in self.views:
            self.views[text] = text_view(text)
        return self.views[text]

    def record(self, row: int, fld: str, et: str, det: str, score: float, tok: str | None) -> None:
        self.records.append(AuditRecord(row, fld, et, det, score, tok))

    def mask_text(self, text: str, ep: Episode, row: int, fld: str, thing: bool = False) -> str:
        """Mask one free-text string with its detections and the episode's known entities;
        ``thing``: the string is the value of a key naming a thing (``item_id``), whose loose
        id-shaped detections (``LOOSE_ID_TYPES``) are that thing's id."""
        if not text or not text.strip():
            return text
        # the episode's known values are settled before phase 3 starts: same inputs, same result
        key = (id(ep), text, thing)
        done = self._masked.get(key)
        if done is None:
            done = self._masked[key] = (*self._mask_text(text, ep, thing), ep)  # ep: id stays
        for audit in done[1]:
            self.record(row, fld, *audit)
        return done[0]

    def _mask_text(self, text: str, ep: Episode, thing: bool) -> tuple[str, list[tuple]]:
        """``mask_text``'s masked text and its audit rows ``(type, detector, score, token)``."""
        audit: list[tuple] = []
        m = self.masker
        spans: list[Span] = [
            whole_words(text, s)
            for s in self.analysis.get(text, ())
            if s[3] >= m.min_score
            and plausible(text, s)
            and not (
                s[2] in LOOSE_ID_TYPES
                and s[4] not in LABELLED_DETECTORS
                and (thing or ep.is_thing_id(text[s[0] : s[1]]))
            )
            and not (s[2] == "PERSON" and ep.in_thing_name(text, s[0], s[1]))
            # a value the episode's records hold under a thing's key is that thing's id, whatever
            # label a reply wrote before it ("your user ID: <reservation id>")
            and not (s[4] in LABELLED_DETECTORS and ep.is_thing_id(text[s[0] : s[1]]))
        ]
        is_ner = route(text) is Route.NER
        if is_ner and len(text) > m.pool.config.max_ner_chars:  # NER read only its start
            audit.append(("NER_LIMITED", GUARD, 1.0, None))
        matcher = ep.matcher if is_ner else ep.strong_matcher
        if matcher is not None:
            # a floor span (``id_floor``) gives way to what the episode knows of the value
            detected = {(s[0], s[1]) for s in spans if s[4] != FLOOR_DETECTOR}
            view = self.view(text)  # known values written full-width, %XX-encoded, ...
            folded = fold(view.text if view else text)  # same length: positions carry over
            hits = [
                (hit.start(), hit.end(), *ep.known.get(hit.group(), ("PERSON", "known_entity")))
                for hit in matcher.finditer(folded)
            ]
            addresses = [(s[0], s[1]) for s in spans if s[2] == "STREET_ADDRESS"]
            for a, b, et, _ in map_spans(view, hits):
                if (a, b) in detected:
                    continue  # the recognizer's own detection keeps the credit in the audit
                if et == "STREET_ADDRESS" and any(s <= a and b <= e for s, e in addresses):
                    continue  # a known street inside its whole address: one token per address
                if et == "PERSON":  # a known name inside a login name: the login name whole
                    a, b = login_extent(text, a, b)
                spans.append((a, b, et, 1.0, "known_entity"))
        if not spans:
            return text, audit
        taken = [(t.start(), t.end()) for t in TOKEN_RE.finditer(text)]  # sorted, disjoint
        chosen: list[Span] = []
        for sp in sorted(spans, key=priority):
            keep = HIDDEN_DIGITS if sp[4] == REDACTED_DETECTOR else ""  # "****7712" whole
            for a, b in uncovered(text, sp[0], sp[1], taken, keep):
                chosen.append((a, b, *sp[2:]))
                bisect.insort(taken, (a, b))
        if not chosen:
            return text, audit
        chosen.sort()
        results = [RecognizerResult(et, s, e, sc) for s, e, et, sc, _ in chosen]
        out = m.anonymizer.anonymize(
            text=text,
            analyzer_results=results,
            operators=m.operators_for({sp[2] for sp in chosen}),
            conflict_resolution=ConflictResolutionStrategy.MERGE_SIMILAR_OR_CONTAINED,
            merge_entities_with_spaces=False,
        )
        for s, e, et, sc, det in chosen:
            raw = text[s:e]
            audit.append((et, det, sc, m.token(raw, et)))
            # searched by the final scan only when it is an episode-wide value: a low-score
            # detection (a lone capitalised gazetteer name) is masked where it stands only
            strong = det != "SpacyRecognizer" and fold(raw) in ep.strong
            if et in SCAN_KNOWN and strong:  # NER finds are not searched in ids and enums
                ep.raw_found.add(raw)
        return out.text, audit


#: The "@" of an email address, as written or encoded (``%40``, ``&#64;``, full-width).
_AT_SIGN = re.compile(r"@|%40|&#64;|&#x40;|＠")
#: What separates URL parts before an address ("…/find?email=ann@x.org"); "&" of an HTML entity
#: ("ann&#46;lee&#64;x.org") is part of the address.
_URL_SEPARATOR = re.compile(r"[/?=:]|&(?!#?\w{1,8};)")
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "our", "your", "my", "its"})
#: Entity types made of words: a span of these is widened to whole words.
_WORD_TYPES = frozenset({"PERSON", "STREET_ADDRESS", "LOCATION"})
#: Detectors whose phone numbers need no further context check (``IntlPhoneRecognizer`` applies
#: its own: context words, separators, or a national trunk prefix valid in its region).
_TRUSTED_PHONE = frozenset({"known_entity", "key_rule", "IntlPhoneRecognizer"})


def _is_id_char(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def whole_words(text: str, span: Span) -> Span:
    """Widen a word-typed span that starts or ends inside a word to the whole word, so a name is
    never cut in half ("Bernhar" + "ðsson"); a span with a digit (an id, a number) cut inside a
    run of ASCII letters and digits to the whole run, and over the code's parts glued to it
    (``id_shapes.whole_code``)."""
    s, e, et, sc, det = span
    if et == "EMAIL_ADDRESS":  # "…/search?email=ann@x.org": the address, not the URL before it
        at_sign = _AT_SIGN.search(text, s, e)
        cuts = list(_URL_SEPARATOR.finditer(text, s, at_sign.start())) if at_sign else []
        return (cuts[-1].end(), e, et, sc, det) if cuts else span
    if et not in _WORD_TYPES:  # an id cut inside its token ("US1330000" of "US13300001212..."):
        if not any(c.isdigit() for c in text[s:e]):
            return span
        while s > 0 and _is_id_char(text[s - 1]) and _is_id_char(text[s]):  # the whole token
            s -= 1
        while e < len(text) and _is_id_char(text[e]) and _is_id_char(text[e - 1]):
            e += 1
        s, e = whole_id(text, s, e, et)  # "6612-380-417-QW", "4417 <number> 38": whole
        return (s, e, et, sc, det) if (s, e) != span[:2] else span
    if det == "SpacyRecognizer" and "\n" in text[s:e]:  # "Jenny\nAddress": cut at the line
        first = text[s:e].strip("\n").split("\n", 1)[0]
        s = text.index(first, s) if first else s
        e = s + len(first)
    while s > 0 and is_word_char(text[s - 1]) and is_word_char(text[s]):
        s -= 1
    while e < len(text) and is_word_char(text[e]) and is_word_char(text[e - 1]):
        e += 1
    if et == "PERSON":  # a name that is part of a login name ("anna.kowalska", "j_smith_77")
        s, e = login_extent(text, s, e)
    return (s, e, et, sc, det)


def plausible(text: str, span: Span) -> bool:
    """Precision filter on detections: a spaCy PERSON must not be a lower-case word, common
    vocabulary, a field label ("Phone:") or an identifier; a phone number written as a bare digit
    run (an item or order id) needs a phone word before it."""
    s, e, et, _, det = span
    value = text[s:e]
    if et == "PERSON" and det == "SpacyRecognizer":
        words = [w for w in NAME_SPLIT.split(value) if w]
        if not words or IDENTIFIER.match(value) or fold(words[0]) in _DETERMINERS:
            return False  # "The Desk Lamp" is a thing
        if all(w.islower() for w in words) and not (
            len(words) == 2 and is_name_pair(words[0], words[1])
        ):
            return False  # lower-case: a name only as a listed first name + surname
        if all(fold(w) in COMMON_WORDS for w in words) or (value.isupper() and len(value) <= 4):
            return False  # vocabulary, or a code such as an airport ("JFK")
        if text[e : e + 1] == ":" and len(words) == 1 and not_a_name_word(words[0]):
            return False  # a field label ("Phone:"); a speaker ("Tom: ...") stays a name
    if et == "PHONE_NUMBER" and det not in _TRUSTED_PHONE and value.isdigit():
        return phone_context_before(text, s)
    if (et in LOOSE_ID_TYPES and det not in LABELLED_DETECTORS) or det == CARD_SHAPE:
        if _cut_token(text, s, e):
            return False  # a checksum that holds by chance inside a longer code ("1Z7W4F5903...")
        return THING_BEFORE.search(text, max(0, s - 40), s) is None  # "item 8812093345"
    return True


#: Id types whose recognizers accept a bare digit run or a loose shape (Presidio's NHS, bank,
#: passport, licence, TFN, Aadhaar... patterns): such a detection right after the label of a
#: *thing* ("item 8812093345", "order no. 551209") is that thing's id, not a person's. Found
#: by a person's label, or strong (email, card, IBAN, SSN, IP), a type is never vetoed.
LOOSE_ID_TYPES = frozenset({*predefined_types(), FLOOR_TYPE}) - {
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "CREDIT_CARD",
    "IBAN_CODE",
    "IP_ADDRESS",
    "CRYPTO",
    "MAC_ADDRESS",
    "US_SSN",
}


LABELLED_DETECTORS = frozenset(
    {"IdLabelRecognizer", "FieldLabelRecognizer", "key_rule", "known_entity"}
)


def priority(span: Span) -> tuple[float, int, str, str, int, int]:
    """Total order of detections (first wins): score, length, entity type, detector, start, end.

    Without the last four keys, tied detections kept their input order and the audit (which type
    and detector a replacement is credited to) could differ between runs."""
    start, end, entity_type, score, detector = span
    return (-score, -(end - start), entity_type, detector, start, end)


def uncovered(
    text: str, start: int, end: int, taken: list[tuple[int, int]], keep: str = ""
) -> list[tuple[int, int]]:
    """Pieces of ``[start, end)`` not covered by ``taken`` (trimmed to letters, digits and the
    characters of ``keep``, >= 2 chars), so a lower-priority span that partly overlaps a better
    one still masks the rest.

    ``taken`` holds disjoint intervals sorted by start: only the ones overlapping ``[start, end)``
    are looked at (bisection), so a string with thousands of detections stays linear.
    """
    j = bisect.bisect_left(taken, (end,)) - 1  # the last interval starting before ``end``
    overlapping = []
    while j >= 0 and taken[j][1] > start:  # disjoint and sorted: their ends increase too
        overlapping.append(taken[j])
        j -= 1
    pieces, pos = [], start
    for s, e in reversed(overlapping):
        if s > pos:
            pieces.append((pos, s))
        pos = max(pos, e)
    if pos < end:
        pieces.append((pos, end))
    out = []
    for a, b in pieces:
        while a < b and not _kept(text[a], keep):
            a += 1
        while b > a and not _kept(text[b - 1], keep):
            b -= 1
        if b - a >= 2:
            out.append((a, b))
    return out


def _kept(ch: str, keep: str) -> bool:
    """A character a span keeps at its edges: a letter, a digit, a combining mark (the vowel
    sign that ends "रानी", which ``isalnum`` leaves out) or one of ``keep``."""
    return ch.isalnum() or ch in keep or unicodedata.category(ch).startswith("M")
