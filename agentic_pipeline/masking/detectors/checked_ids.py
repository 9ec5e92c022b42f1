"""Personal ids found without a label by their country's check digits (python-stdnum).

A form row whose label was lost, a value in a list, an id pasted in a chat: "12.531.909-2",
"85.07.30-033.28", "00000000 0 ZZ4" carry their check digits, and their written form says which
country's id they may be. Each id of ``checked_ids.yaml`` counts where it stands when it has its
country's written shape and python-stdnum validates it. Shapes of digits alone are absent: a
mod-10 check passes one order number in ten.

python-stdnum (maintained, offline) holds the check of each country's id; our code only says
which written shapes count without a label.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from types import ModuleType

from agentic_pipeline.masking.detectors.data_files import data_file
from agentic_pipeline.masking.detectors.span_finder import SpanFinderRecognizer

#: Score of a checked id: a strict national format's (``numbers.NationalIdRecognizer``).
SCORE = 0.85


#: Between an id's own abbreviation and its value: spaces, a colon, an equals sign, quotes.
_LABEL_GAP = r"[\s:=#'\"]{0,4}"


@lru_cache(maxsize=1)
def _own_words() -> tuple[frozenset[str], ...]:
    """Per id of ``checked_ids.yaml``: its own abbreviations, lower case."""
    return tuple(frozenset(x.get("labels", ())) for x in data_file("checked_ids.yaml")["ids"])


@lru_cache(maxsize=1)
def _own_labels() -> tuple[re.Pattern[str] | None, ...]:
    """Per id of ``checked_ids.yaml``: its own abbreviations ending right before a value."""
    alternations = ("|".join(re.escape(w) for w in sorted(ws)) for ws in _own_words())
    return tuple(
        re.compile(rf"(?i)(?<!\w)(?:{a}){_LABEL_GAP}$") if a else None for a in alternations
    )


def own_label_id(key: str, value: str) -> str | None:
    """The type of the id of ``checked_ids.yaml`` whose shape ``value`` has, when ``key`` is one
    of that id's own abbreviations (``"rfc": "…"``), whatever its check digits."""
    m = _shapes().fullmatch(value.strip())
    if m is None:
        return None
    n = int(m.lastgroup[1:])
    return checked_ids()[n][1] if key.strip().lower() in _own_words()[n] else None


@lru_cache(maxsize=1)
def checked_ids() -> tuple[tuple[ModuleType, str], ...]:
    """(python-stdnum module, entity type) of each id of ``checked_ids.yaml``, in its order."""
    return tuple(
        (importlib.import_module(f"stdnum.{x['module']}"), x["entity"])
        for x in data_file("checked_ids.yaml")["ids"]
    )


@lru_cache(maxsize=1)
def _shapes() -> re.Pattern[str]:
    """The ids' shapes as one regex, group ``i<n>`` for the n-th id, each a whole token."""
    shapes = "|".join(
        f"(?P<i{n}>{x['shape']})" for n, x in enumerate(data_file("checked_ids.yaml")["ids"])
    )
    return re.compile(rf"(?<![\w.-])(?:{shapes})(?![\w]|[.-]\w)")


def find_checked_ids(text: str) -> list[tuple[int, int, str]]:
    """(start, end, entity type) of each value of ``text`` with an id's shape whose check
    digits hold, or right after the id's own abbreviation ("RFC: …")."""
    out = []
    ids, labels = checked_ids(), _own_labels()
    for m in _shapes().finditer(text):
        n = int(m.lastgroup[1:])
        module, entity = ids[n]
        label = labels[n]
        own = label is not None and label.search(text, max(0, m.start() - 20), m.start())
        if own or module.is_valid(m.group()):
            out.append((m.start(), m.end(), entity))
    return out


class CheckedIdRecognizer(SpanFinderRecognizer):
    """Ids of ``checked_ids.yaml`` without a label, by their shape and check digits."""

    def __init__(self) -> None:
        entities = {entity for _, entity in checked_ids()}
        super().__init__(find_checked_ids, entities, "CheckedIdRecognizer", SCORE)
