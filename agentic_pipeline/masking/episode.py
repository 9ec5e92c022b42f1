"""What one episode knows: its personal values (structured fields, confident detections, NER
agreement) and the votes that make an NER detection an episode-wide value."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass, field

from agentic_pipeline.masking.detectors.presidio_set import masked_types
from agentic_pipeline.masking.names import COMMON_WORDS
from agentic_pipeline.masking.pseudonyms import fold
from agentic_pipeline.masking.router import Route, route

#: Known-entity types propagated to the episode's free text.
PROPAGATE = frozenset(masked_types())
#: Types whose raw values the final scan searches for (short/ambiguous types left out).
SCAN_KNOWN = PROPAGATE - {"CARD_LAST4", "ZIP_CODE"}
_NAME_STOP = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "miss",
        "dr",
        "jr",
        "sr",
        "the",
        "and",
        "of",
        "van",
        "von",
        "de",
        "da",
        "del",
        "la",
        "le",
        "st",
    }
)
NAME_SPLIT = re.compile(r"[\s,.]+")


@dataclass
class Episode:
    """Known entities of one episode. ``strong`` ones (key rules, pattern detections) are matched in
    every string; ``weak`` ones (NER detections) only in free text, so that an NER false positive
    never rewrites an enum or an id."""

    known: dict[str, tuple[str, str]] = field(default_factory=dict)  # fold -> (type, det)
    strong: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)
    matcher: re.Pattern[str] | None = None
    strong_matcher: re.Pattern[str] | None = None
    raw_found: set[str] = field(default_factory=set)
    #: weak (NER-only) values -> the distinct strings that tagged them; two make them known
    weak_votes: dict[str, set[str]] = field(default_factory=dict)
    weak_types: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: values of bare ``name`` keys: a name detection covering one is a structured person name
    name_fields: set[str] = field(default_factory=set)
    #: ``"<key>: <value>"`` texts of values under keys that name a person
    #: (``key_values.labelled_field``) -> where the value starts: analysed, never written and no
    #: string of the episode (``texts``); a person found in the value is a known value
    label_texts: dict[str, int] = field(default_factory=dict)
    #: values under a key naming a thing's id (``product_id``, ``item_id``): such a number is
    #: that thing's id wherever the episode writes it
    thing_ids: set[str] = field(default_factory=set)
    #: names of products' records (``apply.Collector.product_name``), their matcher and longest
    #: length: a person detection inside one of them, where a text writes it, is part of that
    #: product's name ("Garden Hose", "Smart Watch", "Bookshelf")
    thing_names: set[str] = field(default_factory=set)
    thing_matcher: re.Pattern[str] | None = None
    thing_name_len: int = 0
    #: bare digit strings typed as phones or cards by a JSON key or their shape, made known
    #: by ``settle_numbers`` unless the episode uses them as a thing's id
    numbers: dict[str, str] = field(default_factory=dict)

    def add_known(self, value: str, entity_type: str, detector: str, strong: bool = True) -> None:
        """Remember ``value`` (and name parts / date spellings) for propagation.

        Only strong evidence makes an episode-wide value: a structured field, a high-precision
        recognizer, or repeated NER agreement (``vote``); one weak NER hit never does."""
        before = len(self.known)
        self._add(value, entity_type, detector)
        if strong and len(self.known) > before:  # the keys just added are the dict's last ones
            self.strong.update(itertools.islice(reversed(self.known), len(self.known) - before))

    def _add(self, value: str, entity_type: str, detector: str) -> None:
        value = value.strip()
        if entity_type not in PROPAGATE or len(value) < 2:
            return
        if entity_type in ("CARD_LAST4",) and not re.fullmatch(r"\d{4}", value):
            return
        self.known.setdefault(fold(value), (entity_type, detector))
        if entity_type == "PERSON":
            # a name found in a text lends its parts, except a part that the episode's
            # records name a thing by ("Hunter" the upholstery of "Hunter Sterling");
            # a name from a record lends them all
            things = {fold(t) for t in self.thing_names} if detector == "known_entity" else ()
            for part in NAME_SPLIT.split(value):
                f = fold(part)
                if len(part) >= 2 and f not in _NAME_STOP | COMMON_WORDS and f not in things:
                    self.known.setdefault(f, ("PERSON", detector))
        elif entity_type == "STREET_ADDRESS" and "," in value:
            for part in value.split(","):
                part = part.strip()
                if len(part) >= 6 and any(c.isdigit() for c in part):
                    self.known.setdefault(fold(part), ("STREET_ADDRESS", detector))
        elif entity_type == "DATE_OF_BIRTH":
            for alt in date_variants(value):
                self.known.setdefault(fold(alt), ("DATE_OF_BIRTH", detector))

    def is_thing_id(self, value: object) -> bool:
        """The episode's JSON or CSV holds ``value`` under a thing's key (``"item_id":
        "1008292230"``, ``"order_id": "#W2378156"``, with or without its "#")."""
        v = str(value).strip()
        return v in self.thing_ids or f"#{v}" in self.thing_ids

    def in_thing_name(self, text: str, start: int, end: int) -> bool:
        """``text[start:end]`` lies inside one of the episode's thing names (``thing_names``)
        written in ``text``."""
        if self.thing_matcher is None:
            return False
        lo, hi = max(0, start - self.thing_name_len), min(len(text), end + self.thing_name_len)
        return any(
            m.start() <= start and end <= m.end() for m in self.thing_matcher.finditer(text, lo, hi)
        )

    def add_labelled_persons(self, analysis: dict[str, list], min_score: float) -> None:
        """The persons found in the values of ``label_texts`` become known values (the value's
        other types are found in the value itself), unless inside a product's name."""
        for text, value_start in sorted(self.label_texts.items()):
            for start, end, entity, score, *_ in analysis.get(text, ()):
                if (
                    entity == "PERSON"
                    and start >= value_start
                    and score >= min_score
                    and not self.in_thing_name(text, start, end)
                ):
                    self.add_known(text[start:end], "PERSON", "known_entity")

    def settle_numbers(self) -> None:
        """The bare numbers typed as phones or cards become known values, except the ones the
        episode uses as a thing's id: a shop's catalog maps product names to ids that validate
        as phones, and the same ids stand under ``product_id`` in the calls and results."""
        for value in sorted(self.numbers):
            if not self.is_thing_id(value):
                self.add_known(value, self.numbers[value], "key_rule")

    def vote(self, value: str, entity_type: str, source: str) -> None:
        """A weak (NER) detection of ``value`` in the string ``source`` (see ``settle_votes``)."""
        key = fold(value.strip())
        self.weak_votes.setdefault(key, set()).add(source)
        self.weak_types.setdefault(key, (value.strip(), entity_type))

    def settle_votes(self, min_votes: int = 2, min_share: float = 0.6) -> None:
        """Weak values become known when NER tagged them in ``min_votes`` distinct strings and in
        at least ``min_share`` of the free-text strings of the episode that contain them: spaCy
        tags "Houston" or "JFK" as a person in a few of many sentences, a real name in most."""
        free = [fold(t) for t in sorted(self.texts) if route(t) is Route.NER]
        for key in sorted(self.weak_votes):
            votes = self.weak_votes[key]
            if len(votes) < min_votes or key in self.known:
                continue
            rx = re.compile(rf"(?<!\w){re.escape(key)}(?!\w)")
            containing = sum(1 for t in free if rx.search(t))
            if len(votes) >= min_share * max(containing, 1):
                value, et = self.weak_types[key]
                self.add_known(value, et, "known_entity", strong=False)


def date_variants(value: str) -> list[str]:
    try:
        d = dt.date.fromisoformat(value.strip()[:10])
    except ValueError:
        return []
    month = d.strftime("%B")
    return [
        f"{month} {d.day}, {d.year}",
        f"{month} {d.day} {d.year}",
        f"{d.day} {month} {d.year}",
        f"{d.month:02d}/{d.day:02d}/{d.year}",
        f"{d.month}/{d.day}/{d.year}",
        f"{d.day:02d}/{d.month:02d}/{d.year}",
        f"{d.strftime('%b')} {d.day}, {d.year}",
    ]
