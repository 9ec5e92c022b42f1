"""Scores of one masking of labelled cells: recall per type, over-masking, values kept.

Rules (the same for ours and for plain Presidio):

* A labelled personal value counts as masked only when no part of it stays in clear: a part
  is a run of letters or digits of 2+ characters ("John", "Doe", "4567" of a phone, "IL" of an
  address); a part is left when the masked cell holds more occurrences of it (case-insensitive,
  word-bounded) than the raw cell had outside the labelled values. JSON cells are compared by
  their string leaves; masking tokens (``<PERSON_1a2b3c4d>``, ``<PERSON>``) are no words.
* A whole postal address (``ADDRESS``) counts when every part is masked (street, unit, city,
  region, postcode); its street line (the part before the first comma) is reported apart, and so
  are the labelled addresses that hold a number and a comma (``ADDRESS postal``: a street or
  postcode with its place). A value labelled as an address that holds no digit ("Paris", "the
  park", "Oak Street") is no postal address (no house number, no postcode): it is reported on
  its own row, ``PLACE labelled address``, since the masking keeps a place named alone by
  design.
* Non-personal words: letters-only words of 3+ characters (runs of ``X`` excepted) of the raw
  cell outside every labelled value except the non-personal ones (organisations, companies,
  locations, which must stay); the share of their occurrences gone after masking. Texts of an
  episode withheld by our masking are left out of this figure, of the kept values and of the
  negatives, for ours and Presidio alike (their values count as masked: they never reach the
  warehouse).
* Non-personal labelled values (``NON_PERSONAL``): the share of occurrences kept whole.
* Negative texts (no labelled value at all, e.g. the DLP hard negatives): the share in which
  anything was masked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .corpora import NON_PERSONAL, LabelledText, is_id, is_personal
from .evaluation import plain_text, value_pattern

#: A masking token of ours (``<PERSON_1a2b3c4d>``) or of plain Presidio (``<PERSON>``).
TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*?(?:_[0-9a-f]{8})?>")
#: A word: 3+ letters, not a run of ``X`` (the hidden digits of "XXXX-XXXX-1234" are no word).
WORD = re.compile(r"(?![xX]+(?![^\W\d_]))[^\W\d_]{3,}")
_PART = re.compile(r"[^\W_]{2,}")


def parts(value: str) -> list[str]:
    """The parts of a value that must not stay in clear: letter or digit runs of 2+, except
    runs of ``X`` (the already hidden digits of "XXX-XX-2409")."""
    runs = (p.lower() for p in _PART.findall(value))
    return list(dict.fromkeys(p for p in runs if p.strip("x")))


def _count(part: str, text: str) -> int:
    return len(value_pattern(part).findall(text))


def postal(value: str) -> bool:
    """A labelled address that is a postal address by issue #21's definition (a street or
    postcode with the place it belongs to: a number and two comma-separated parts), not a place
    named alone ("Paris", "Denver, CO", "the park"), which the masking keeps on purpose."""
    return "," in value and any(c.isdigit() for c in value)


@dataclass
class Tally:
    """Counts of one run (ours or Presidio) over one corpus."""

    n: Counter[str] = field(default_factory=Counter)
    leaked: Counter[str] = field(default_factory=Counter)
    words: int = 0
    words_lost: int = 0
    kept_n: int = 0
    kept: int = 0
    negatives: int = 0
    negatives_touched: int = 0
    episodes: int = 0
    withheld: int = 0
    #: Per type, (text id, value, masked text around it) of each value left in clear.
    misses: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    #: Non-personal words masked (folded), with their count.
    lost: Counter[str] = field(default_factory=Counter)

    def recall(self, kind: str) -> float:
        return 1.0 - self.leaked[kind] / self.n[kind] if self.n[kind] else float("nan")

    def as_dict(self) -> dict[str, object]:
        return {
            "recall": {k: {"n": self.n[k], "leaked": self.leaked[k]} for k in sorted(self.n)},
            "non_personal_words": {"n": self.words, "masked": self.words_lost},
            "non_personal_values": {"n": self.kept_n, "kept": self.kept},
            "negatives": {"n": self.negatives, "touched": self.negatives_touched},
            "episodes": {"n": self.episodes, "withheld": self.withheld},
        }


def _leaks(raw: str, masked: str, values: list[tuple[str, str]]) -> list[bool]:
    """Per labelled personal value (in order), whether a part of it is left in clear."""
    budget: dict[str, int] = {}
    for p in {p for _, v in values for p in parts(v)}:
        inside = sum(_count(p, v) for _, v in values)
        outside = max(0, _count(p, raw) - inside)
        budget[p] = max(0, _count(p, masked) - outside)
    out = []
    for _, v in values:
        hit = [p for p in parts(v) if budget.get(p, 0) > 0]
        for p in hit:
            budget[p] -= 1
        out.append(bool(hit))
    return out


#: The row of a value labelled as an address that has no digit: a place, no postal address.
PLACE = "PLACE labelled address"


def _postal(kind: str, value: str) -> str:
    """``kind``, or ``PLACE`` for an ``ADDRESS`` value without a house number or postcode."""
    return PLACE if kind == "ADDRESS" and not any(c.isdigit() for c in value) else kind


def score_cell(
    doc: LabelledText, raw_cell: str, masked_cell: str, tally: Tally, words: bool = True
) -> None:
    """Add one text's figures to ``tally`` (``raw_cell``/``masked_cell``: the step cell that
    holds the text, before and after masking); ``words``: whether its words count in the
    non-personal word and negative figures (not for texts of a withheld episode)."""
    raw = plain_text(raw_cell)
    masked = TOKEN.sub(" ", plain_text(masked_cell))
    values = doc.values()
    personal = [(_postal(k, v), v) for k, v in values if is_personal(k)]
    for i, ((kind, v), left) in enumerate(
        zip(personal, _leaks(raw, masked, personal), strict=True)
    ):
        tally.n[kind] += 1
        tally.leaked[kind] += left
        if left:
            clear = [p for p in parts(v) if _count(p, masked)] or parts(v)
            at = masked.lower().find(clear[0]) if clear else -1
            ctx = masked[max(0, at - 60) : at + 60].replace("\n", " / ") if at >= 0 else ""
            tally.misses.setdefault(kind, []).append((doc.doc_id, v, ctx))
        if is_id(kind):
            tally.n["ID (all)"] += 1
            tally.leaked["ID (all)"] += left
        if kind == "ADDRESS" and postal(v):
            tally.n["ADDRESS postal"] += 1
            tally.leaked["ADDRESS postal"] += left
        if kind == "ADDRESS":  # the street line alone: the address cut at its first comma
            street = [*personal[:i], (kind, v.split(",")[0]), *personal[i + 1 :]]
            tally.n["ADDRESS street line"] += 1
            tally.leaked["ADDRESS street line"] += _leaks(raw, masked, street)[i]
    if not words:
        return
    # non-personal words: outside every labelled value but the ones that must stay
    labelled = {w.lower() for k, v in values if k not in NON_PERSONAL for w in WORD.findall(v)}
    before = Counter(w.lower() for w in WORD.findall(raw) if w.lower() not in labelled)
    after = Counter(w.lower() for w in WORD.findall(masked))
    tally.words += sum(before.values())
    tally.words_lost += sum(max(0, c - after[w]) for w, c in before.items())
    tally.lost.update({w: c - after[w] for w, c in before.items() if c > after[w]})
    for k, v in values:
        if k in NON_PERSONAL:
            n = _count(v, raw)
            tally.kept_n += n
            tally.kept += min(n, _count(v, masked))
    if not values:
        tally.negatives += 1
        touched = TOKEN.search(plain_text(masked_cell)) is not None
        tally.negatives_touched += touched or sum(before.values()) > sum(
            min(c, after[w]) for w, c in before.items()
        )


def group_types(kinds: Iterable[str]) -> list[str]:
    """Report order: person, contact, addresses, then each id type, ids together, the rest."""
    order = [
        "PERSON",
        "USERNAME",
        "USER_ID",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "ADDRESS",
        "ADDRESS street line",
        "ADDRESS postal",
        PLACE,
        "STREET_ADDRESS",
        "CREDIT_CARD",
        "IBAN_CODE",
        "IP_ADDRESS",
        "DATE_OF_BIRTH",
    ]
    kinds = set(kinds)
    ids = sorted(k for k in kinds if is_id(k))
    rest = sorted(kinds - set(order) - set(ids) - {"ID (all)"})
    return [k for k in order if k in kinds] + ids + (["ID (all)"] if ids else []) + rest


def merge(tallies: Iterable[Tally]) -> Tally:
    """The sum of several tallies (all corpora together)."""
    out = Tally()
    for t in tallies:
        out.n.update(t.n)
        out.leaked.update(t.leaked)
        out.lost.update(t.lost)
        for kind, misses in t.misses.items():
            out.misses.setdefault(kind, []).extend(misses)
        for f in ("words", "words_lost", "kept_n", "kept", "negatives", "negatives_touched"):
            setattr(out, f, getattr(out, f) + getattr(t, f))
        out.episodes += t.episodes
        out.withheld += t.withheld
    return out
