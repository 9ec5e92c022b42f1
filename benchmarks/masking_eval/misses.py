"""What masking left in clear or took away, for developers: missed values and lost values with
their context, and the non-personal words masked most often (``--show-misses`` of
``python -m benchmarks.masking_eval``). Test data only: it prints the values it finds."""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

import pyarrow as pa

from agentic_pipeline.masking import MASK_COLUMNS
from agentic_pipeline.masking.pseudonyms import TOKEN_HEX_CHARS

from .evaluation import (
    occurrences,
    plain_text,
    texts_by_episode,
    typed_leaves,
    value_pattern,
)

#: A masking token of ours (``<PERSON_1a2b3c4d>``) or of plain Presidio (``<PERSON>``).
_ANY_TOKEN = re.compile(rf"<([A-Z][A-Z0-9_]*?)(?:_[0-9a-f]{{{TOKEN_HEX_CHARS}}})?>")
_ALIGN_TOKEN = re.compile(rf"<[A-Z][A-Z0-9_]*?(?:_[0-9a-f]{{{TOKEN_HEX_CHARS}}})?>|\w+|[^\w\s]")
#: A non-personal word candidate: letters only, 3+ characters.
WORD = re.compile(r"[^\W\d_]{3,}")


def _cells(table: pa.Table, columns: Iterable[str]) -> dict[tuple[str, int, int, str], str]:
    """Non-empty string cells keyed by (episode, step, row-within-step, column), so that a raw
    and a masked table can be paired whatever their row order."""
    eps = table.column("episode_id").to_pylist()
    steps = table.column("step").to_pylist() if "step" in table.column_names else [0] * len(eps)
    seen: Counter[tuple[str, int]] = Counter()
    keys = []
    for e, s in zip(eps, steps, strict=True):
        keys.append((e, s, seen[(e, s)]))
        seen[(e, s)] += 1
    out: dict[tuple[str, int, int, str], str] = {}
    for c in columns:
        if c not in table.column_names:
            continue
        for k, v in zip(keys, table.column(c).to_pylist(), strict=True):
            if isinstance(v, str) and v:
                out[(*k, c)] = v
    return out


def _snippet(text: str, start: int, end: int, width: int) -> str:
    a, b = max(0, start - width), min(len(text), end + width)
    s = f"{text[a:start]}[[{text[start:end]}]]{text[end:b]}"
    return ("..." if a else "") + s.replace("\n", " / ") + ("..." if b < len(text) else "")


def missed_values(
    raw: pa.Table,
    masked: pa.Table,
    planted: Mapping[str, set[tuple[str, str]]],
    columns: Iterable[str] = MASK_COLUMNS,
    width: int = 50,
) -> dict[str, list[tuple[str, str, str]]]:
    """Per entity type, every planted value still present after masking, as (episode, value,
    the masked text around its first leaked occurrence with the value in ``[[...]]``)."""
    columns = list(columns)
    after = texts_by_episode(masked, columns)
    before = texts_by_episode(raw, columns)
    out: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for eid in sorted(planted):
        for et, v in sorted(planted[eid]):
            if not occurrences(v, before.get(eid, [])):
                continue
            rx = value_pattern(v)
            for t in after.get(eid, []):
                text = plain_text(t)
                m = rx.search(text)
                if m:
                    out[et].append((eid, v, _snippet(text, m.start(), m.end(), width)))
                    break
    return dict(out)


def lost_values(
    raw: pa.Table,
    masked: pa.Table,
    kept: Mapping[str, set[tuple[str, str]]],
    columns: Iterable[str] = MASK_COLUMNS,
    width: int = 40,
) -> dict[str, list[tuple[str, str, str]]]:
    """Per kind, every value that had to stay in clear and was masked somewhere, as (episode,
    value, "raw text around it -> the same place after masking")."""
    columns = list(columns)
    before, after = _cells(raw, columns), _cells(masked, columns)
    by_episode: dict[str, list[tuple[str, int, int, str]]] = defaultdict(list)
    for key in before:
        by_episode[key[0]].append(key)
    out: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for eid in sorted(kept):
        for kind, v in sorted(kept[eid]):
            rx = value_pattern(v)
            for key in by_episode.get(eid, []):
                a, b = plain_text(before[key]), plain_text(after.get(key, ""))
                m = rx.search(a)
                if m is None or len(rx.findall(b)) >= len(rx.findall(a)):
                    continue
                anchor = a[max(0, m.start() - 15) : m.start()]
                at = b.find(anchor) if anchor else 0
                shown = b[max(0, at) : max(0, at) + len(anchor) + width].replace("\n", " / ")
                ctx = f"{_snippet(a, m.start(), m.end(), 15)} -> {shown}..."
                out[kind].append((eid, v, ctx))
                break
    return dict(out)


def personal_words(
    raw: pa.Table, planted: Mapping[str, set[tuple[str, str]]], columns: Iterable[str]
) -> dict[str, set[str]]:
    """Per episode, the lower-cased words of planted values and of JSON values under personal
    keys (``first_name``, ``address``): personal by the data's own schema even where the truth
    does not list them (other passengers' names)."""
    out: dict[str, set[str]] = defaultdict(set)
    for eid, vals in planted.items():
        out[eid].update(w.lower() for _, v in vals for w in WORD.findall(v))
    eps = raw.column("episode_id").to_pylist()
    for c in columns:
        if c not in raw.column_names:
            continue
        for e, v in zip(eps, raw.column(c).to_pylist(), strict=True):
            if not isinstance(v, str):
                continue
            for node, et in typed_leaves(v):
                if et is not None:
                    out[e].update(w.lower() for w in WORD.findall(str(node)))
    return out


def masked_words(
    raw: pa.Table,
    masked: pa.Table,
    planted: Mapping[str, set[tuple[str, str]]],
    columns: Iterable[str] = MASK_COLUMNS,
) -> Counter[tuple[str, str]]:
    """(non-personal word, the token type it became) -> times masked. Raw and masked cells are
    aligned token by token; a word replaced by no token counts as ``?``."""
    columns = list(columns)
    personal = personal_words(raw, planted, columns)
    before, after = _cells(raw, columns), _cells(masked, columns)
    out: Counter[tuple[str, str]] = Counter()
    for key, text in before.items():
        mine = personal.get(key[0], set())
        for w, kind, _ in text_losses(text, after.get(key, ""), mine):
            out[(w.lower(), kind)] += 1
    return out


def text_losses(
    raw: str, masked: str, personal: set[str] = frozenset(), width: int = 6
) -> list[tuple[str, str, str]]:
    """The words of ``raw`` (letters only, 3+) that are gone from ``masked``, outside the
    lower-cased ``personal`` words: (word, the token type it became or ``?``, the raw tokens
    around it with the word in ``[[ ]]``). Both texts are aligned token by token."""
    a = _ALIGN_TOKEN.findall(plain_text(raw))
    b = _ALIGN_TOKEN.findall(plain_text(masked))
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op not in ("replace", "delete"):
            continue
        types = [m.group(1) for t in b[j1:j2] if (m := _ANY_TOKEN.fullmatch(t))]
        kind = "/".join(dict.fromkeys(types)) or "?"
        kept = set(b[j1:j2])
        for n, w in enumerate(a[i1:i2]):
            if WORD.fullmatch(w) and w.lower() not in personal and w not in kept:
                one = _ANY_TOKEN.fullmatch(b[j1 + n]) if i2 - i1 == j2 - j1 else None
                i = i1 + n
                ctx = " ".join([*a[max(0, i - width) : i], f"[[{w}]]", *a[i + 1 : i + 1 + width]])
                out.append((w, one.group(1) if one else kind, ctx))
    return out
