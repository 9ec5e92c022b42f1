"""Linking: the subject's episodes in the warehouse, the structured records that are theirs,
and the raw values of linked pseudonyms recovered from the restricted zone."""

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from agentic_pipeline.erasure.subjects import (
    _ID,
    _PERSON_RECORD_TYPES,
    _WORD,
    CLEAR_ID,
    COMBINED,
    ID_KEYS,
    IDENTIFYING,
    IDENTIFYING_TYPES,
    OTHER_ROLE_PREFIXES,
    TEXT_COLUMNS,
    ErasurePlan,
    Identifier,
    _strength,
)
from agentic_pipeline.masking import pseudonym_for
from agentic_pipeline.masking.json_walker import looks_like_json, normalize_key, walk
from agentic_pipeline.masking.pseudonyms import LEGACY_TOKEN_RE, TOKEN_RE, token_entity_type
from agentic_pipeline.storage import DataRoot


def _warehouse_episodes(root: DataRoot) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """``(day, episode id) -> [(column, text), ...]`` of ``masked_trajectories``."""
    episodes: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for ds in root.partitions("warehouse", "masked_trajectories"):
        table = root.read_partition("warehouse", "masked_trajectories", ds)
        cols = [c for c in TEXT_COLUMNS if c in table.column_names]
        ids = table.column("episode_id").to_pylist()
        values = {c: table.column(c).cast(pa.string()).to_pylist() for c in cols}
        roles = table.column("role").to_pylist() if "role" in table.column_names else None
        content = values.get("content")
        for i, ep in enumerate(ids):
            if ep is None:
                continue
            cells = episodes[(ds, str(ep))]
            cells.extend((c, values[c][i]) for c in cols if values[c][i])
            if roles and content and roles[i] == "user" and content[i]:
                cells.append((USER_TEXT, content[i]))
        for c in cols:
            for text in values[c]:
                if text and LEGACY_TOKEN_RE.search(text):
                    raise LegacyTokensError(
                        f"warehouse/masked_trajectories ds={ds} holds 32-bit pseudonyms of an "
                        "older version that can merge two people: re-mask the data root first "
                        "(docs/erasure.md, 'Re-masking an older data root'); nothing was changed"
                    )
    return episodes


class LegacyTokensError(RuntimeError):
    """The warehouse holds tokens of the older, 32-bit width: erasure refuses to run on it."""


#: The cells of an episode that are the user's own messages (in ``_warehouse_episodes``).
USER_TEXT = "content@user"
#: Free-text identifiers a subject gives about themselves: a name, an address, a birth date.
_SELF_TYPES = frozenset({"PERSON", "STREET_ADDRESS", "DATE_OF_BIRTH"})


def _free_text_links(
    episode_id: str,
    cells: list[tuple[str, str]],
    identifiers: Mapping[str, Identifier],
    already: list[Identifier],
) -> list[tuple[Identifier, dict]]:
    """The names, addresses and birth dates the subject wrote in their own messages of one of
    their episodes, as *combined* identifiers (they identify only together: ``_is_subjects``)."""
    taken = {i.needle for i in already}
    out: dict[str, tuple[Identifier, dict]] = {}
    for column, text in cells:
        if column != USER_TEXT:
            continue
        for match in TOKEN_RE.finditer(text):
            token = match.group()
            kind = token_entity_type(token)
            if kind not in _SELF_TYPES or token in identifiers or token in taken or token in out:
                continue
            ident = Identifier(kind, token, COMBINED, token)
            out[token] = (
                ident,
                {
                    "entity_type": kind,
                    "pseudonym": token,
                    "strength": COMBINED,
                    "reason": "written by the subject in their own message",
                    "record": USER_TEXT,
                    "episode_id": episode_id,
                },
            )
    return list(out.values())


def _matcher(needles: Iterable[str], identifiers: Mapping[str, Identifier]) -> re.Pattern | None:
    parts = []
    for n in sorted(needles, key=len, reverse=True):
        if identifiers[n].entity_type == CLEAR_ID:  # a clear id is a whole word, not a substring
            parts.append(rf"(?<![{_WORD}]){re.escape(n)}(?![{_WORD}])")
        else:
            parts.append(re.escape(n))
    return re.compile("|".join(parts)) if parts else None


def _found(cells: list[tuple[str, str]], matcher: re.Pattern | None) -> set[str]:
    if matcher is None:
        return set()
    return {m.group() for _, text in cells for m in matcher.finditer(text)}


def _is_subjects(found: set[str], identifiers: Mapping[str, Identifier]) -> str | None:
    """Why an episode holding ``found`` is the subject's (``None`` if it is not)."""
    idents = [identifiers[n] for n in found]
    strong = sorted(i.pseudonym for i in idents if i.strength == IDENTIFYING)
    if strong:
        return f"holds {strong[0]}"
    combined = {i.entity_type: i.pseudonym for i in idents if i.strength == COMBINED}
    if "PERSON" in combined and len(combined) >= 2:
        return f"holds {' and '.join(sorted(combined.values()))}"
    return None


def _leaves(obj: Any, parent: tuple = ()) -> Iterator[tuple[tuple, str | None, Any]]:
    """``(parent path, key, value)`` of every scalar; JSON held in strings is decoded."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj)
    for k, v in items:
        if isinstance(v, str) and looks_like_json(v):
            try:
                v = json.loads(v)
            except (ValueError, RecursionError):
                pass
        if isinstance(v, dict | list):
            yield from _leaves(v, (*parent, k))
        elif isinstance(obj, dict):
            yield parent, str(k), v
        else:
            yield (*parent, k), None, v


def _related(a: tuple, b: tuple) -> bool:
    """Same JSON object, or one nested in the other without crossing into a list."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    ra, rb = a[n:], b[n:]
    return (not ra or not rb) and not any(isinstance(s, int) for s in (*ra, *rb))


def _path(column: str, parent: tuple) -> str:
    out = f"{column}.$"
    for s in parent:
        out += f"[{s}]" if isinstance(s, int) else f".{s}"
    return out


def _leaf_identifier(
    key: str | None, value: Any, person_record: bool, secret: str
) -> Identifier | None:
    """The identifier a structured value is, if any (tokens by their type, customer ids)."""
    if key is not None and normalize_key(key).startswith(
        tuple(f"{p}_" for p in OTHER_ROLE_PREFIXES)
    ):
        return None  # another person's identifier inside the subject's record
    if isinstance(value, str) and TOKEN_RE.fullmatch(value):
        kind = token_entity_type(value)
        return Identifier(kind, value, _strength(kind, key), value)
    if key is None or not isinstance(value, str | int) or isinstance(value, bool):
        return None
    k = normalize_key(key)
    text = str(value)
    if (k in ID_KEYS or (k == "id" and person_record)) and _ID.match(text):
        return Identifier(CLEAR_ID, pseudonym_for(text, CLEAR_ID, secret), IDENTIFYING, text)
    return None


def _link(
    episode_id: str,
    cells: list[tuple[str, str]],
    identifiers: Mapping[str, Identifier],
    secret: str,
    matcher: re.Pattern | None,
) -> list[tuple[Identifier, dict]]:
    """New identifiers found in the subject's records of one episode, with their reasons."""
    new: dict[str, tuple[Identifier, dict]] = {}
    for column, text in cells:
        if matcher is None or not looks_like_json(text) or not matcher.search(text):
            continue  # no record here can hold one of the subject's identifiers
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict | list):
            continue
        try:
            leaves = list(_leaves(obj))
        except RecursionError:  # deeper than Python can walk: no record is taken from it
            continue
        person_parents = {
            p
            for p, k, v in leaves
            if isinstance(v, str)
            and TOKEN_RE.fullmatch(v)
            and token_entity_type(v) in _PERSON_RECORD_TYPES
        }
        idents = [_leaf_identifier(k, v, p in person_parents, secret) for p, k, v in leaves]
        anchors = []
        for parent, _, value in leaves:
            known = identifiers.get(str(value)) if isinstance(value, str | int) else None
            if known is None:
                continue
            if known.strength == IDENTIFYING:
                anchors.append((parent, known))
            elif known.strength == COMBINED and known.entity_type == "PERSON":
                others = {
                    identifiers[i.needle].entity_type
                    for (p, _, _), i in zip(leaves, idents, strict=True)
                    if i is not None
                    and _related(parent, p)
                    and i.needle in identifiers
                    and identifiers[i.needle].strength == COMBINED
                }
                if len(others) >= 2:
                    anchors.append((parent, known))
        for parent, anchor in anchors:
            for (p, _, _), ident in zip(leaves, idents, strict=True):
                if ident is None or ident.needle in identifiers or ident.needle in new:
                    continue
                if _related(parent, p):
                    reason = {
                        "entity_type": ident.entity_type,
                        "pseudonym": ident.pseudonym,
                        "strength": ident.strength,
                        "reason": f"same record as {anchor.pseudonym} ({anchor.entity_type})",
                        "record": _path(column, p),
                        "episode_id": episode_id,
                    }
                    new[ident.needle] = (ident, reason)
    return list(new.values())


class _RawValues:
    """``json_walker`` visitor: structured raw values whose pseudonym is one of the subject's."""

    def __init__(self, tokens: set[str], secret: str, out: set[str]) -> None:
        self.tokens, self.secret, self.out = tokens, secret, out

    def leaf(self, path: str, value: Any, entity: str | None) -> Any:
        if entity in IDENTIFYING_TYPES and isinstance(value, str | int):
            if pseudonym_for(str(value), entity, self.secret) in self.tokens:
                self.out.add(str(value))
        return value

    def too_deep(self, path: str, subtree: Any) -> Any:
        return subtree

    def bad_json(self, path: str, text: str) -> Any:
        return text


def _recover_raw_values(root: DataRoot, plan: ErasurePlan, secret: str) -> None:
    """Add the raw values of the subject's identifying pseudonyms found in their raw rows."""
    tokens = {i.pseudonym for i in plan.identifiers.values() if i.strength == IDENTIFYING}
    plan.clear_values.update(
        n
        for n, i in plan.identifiers.items()
        if i.entity_type == CLEAR_ID and i.strength == IDENTIFYING
    )
    for ds, episodes in plan.episodes_by_day.items():
        if not root.has_partition("restricted", "raw_agent_logs", ds):
            continue
        table = root.read_partition("restricted", "raw_agent_logs", ds)
        ids = pa.array(sorted(episodes), pa.string())
        rows = table.filter(pc.fill_null(pc.is_in(table.column("episode_id"), ids), False))
        for col in TEXT_COLUMNS:
            if col not in rows.column_names:
                continue
            for text in rows.column(col).cast(pa.string()).to_pylist():
                if not text or not looks_like_json(text):
                    continue
                try:
                    obj = json.loads(text)
                except (ValueError, RecursionError):
                    continue
                walk(obj, _RawValues(tokens, secret, plan.clear_values))
