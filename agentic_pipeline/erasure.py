"""Right to be forgotten: remove one *person* (not one string) from every table and file.

The subject is given in clear by one or more of their identifiers: an email, phone, card, user or
customer id, or a name together with another identifier. Values are only used as their keyed
pseudonyms (the key resolved by ``masking.keys.masking_key``, like masking does) and never stored.

The person is found from the warehouse alone, because retention may have deleted the raw days:

1. *seed*: each given value gives the pseudonyms it may have been masked as (an email may have been
   an ``EMAIL_ADDRESS`` or a ``USER_ID``, a digit string a phone or a card number, ...); ids that
   masking keeps in clear (customer ids) are searched as they are;
2. *episodes*: an episode of ``masked_trajectories`` is the subject's when it holds one of the
   subject's *identifying* identifiers (email, phone, card, user or customer id, SSN, IBAN, bank
   account, ID document), or their full name together with their street address or birth date;
3. *linking*: in those episodes, each structured record (a JSON object, not crossing into lists)
   that holds one of the subject's identifiers is the person's record: its other pseudonyms and
   customer ids are *linked*, each with the reason. Then 2 again with them, at most
   ``MAX_ROUNDS`` times. First or last names alone, cities, zip codes, card endings are linked as
   *generic*: recorded, never used to find episodes, since strangers share them.

Every Parquet table of both zones with an ``episode_id`` (or ``logged_episode_id``) column then
loses those episodes' rows. Quarantined and landing records that quote one of the person's
identifying values in clear go too: the given values and, while the raw rows still exist, the raw
values of linked pseudonyms (recovered by hashing the raw structured values of the found episodes).
Aggregates are recomputed by the caller. The receipt records pseudonyms, entity types, reasons,
partitions and counts, never a value; ``verify_erasure`` scans every table and file afterwards.
"""

import gzip
import json
import re
import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from upath import UPath

from agentic_pipeline.masking import pseudonym_for
from agentic_pipeline.masking.json_walker import looks_like_json, normalize_key, walk
from agentic_pipeline.masking.pseudonyms import TOKEN_HEX_CHARS, TOKEN_RE
from agentic_pipeline.storage import ZONES, DataRoot

EPISODE_COLUMNS = ("episode_id", "logged_episode_id")
TEXT_COLUMNS = ("content", "tool_arguments", "task_description", "task_goal", "context")
RECEIPTS_DIR = "erasure_receipts"
#: Linking rounds (episodes -> records -> identifiers -> episodes ...) before giving up.
MAX_ROUNDS = 5
#: More identifying identifiers than this means the linking ran away: refuse, change nothing.
MAX_IDENTIFYING = 200
#: Ids that masking keeps in clear (customer ids): searched as they are, receipted as pseudonyms.
CLEAR_ID = "CUSTOMER_ID"
IDENTIFYING = "identifying"
COMBINED = "combined"
GENERIC = "generic"
IDENTIFYING_TYPES = frozenset(
    {
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "CREDIT_CARD",
        "USER_ID",
        "US_SSN",
        "IBAN_CODE",
        "BANK_ACCOUNT",
        "ID_DOCUMENT",
        CLEAR_ID,
    }
)
#: Identify a person only together: a full name with a street address or a birth date.
COMBINED_TYPES = frozenset({"PERSON", "STREET_ADDRESS", "DATE_OF_BIRTH"})
#: JSON keys whose (unmasked) value is the id of the customer the record is about.
ID_KEYS = frozenset({"customer_id", "client_id", "member_id", "customer_number", "customer"})
#: Name parts: shared by many people, so generic.
NAME_PART_KEYS = frozenset(
    {
        "first_name",
        "firstname",
        "last_name",
        "lastname",
        "given_name",
        "family_name",
        "middle_name",
        "surname",
        "nick_name",
        "nickname",
    }
)
#: Key prefixes naming someone else in the subject's record (``agent_email``): never linked.
OTHER_ROLE_PREFIXES = (
    "agent",
    "assignee",
    "assigned",
    "owner",
    "employee",
    "staff",
    "support",
    "rep",
    "manager",
    "sender",
    "recipient",
    "cc",
    "bcc",
    "referrer",
    "emergency",
    "guardian",
    "spouse",
    "partner",
)
_PERSON_RECORD_TYPES = frozenset({"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER"})
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_PHONE = re.compile(r"^\+?[\d\s().x-]{7,}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{3,}$")
_WORD = "A-Za-z0-9_"


class UnknownSubjectError(LookupError):
    """No stored episode mentions the subject; nothing was changed."""


class ErasureTooBroadError(ValueError):
    """Linking found more identifiers than one person can have; nothing was changed."""


@dataclass(frozen=True)
class Identifier:
    """One identifier of the subject: ``needle`` is what the warehouse holds (memory only)."""

    entity_type: str
    pseudonym: str
    strength: str
    needle: str = field(repr=False, compare=False)


@dataclass
class ErasurePlan:
    """What an erasure will remove: episode ids per day, and the subject's identifiers."""

    pseudonyms: dict[str, str]
    episodes_by_day: dict[str, set[str]] = field(default_factory=dict)
    quarantine_days: set[str] = field(default_factory=set)
    subject: list[dict] = field(default_factory=list)
    linked: list[dict] = field(default_factory=list)
    #: why each warehouse episode is the subject's (pseudonyms only)
    episodes: list[dict] = field(default_factory=list)
    rounds: int = 0
    #: needle -> identifier (tokens and clear ids; kept in memory only)
    identifiers: dict[str, Identifier] = field(default_factory=dict, repr=False)
    #: identifying values in clear (given, or recovered from raw rows; memory only)
    clear_values: set[str] = field(default_factory=set, repr=False)

    @property
    def days(self) -> list[str]:
        return sorted(set(self.episodes_by_day) | self.quarantine_days)

    @property
    def n_episodes(self) -> int:
        return sum(len(v) for v in self.episodes_by_day.values())

    def needles(self, strengths: Iterable[str] = (IDENTIFYING,)) -> list[str]:
        """Tokens and clear ids of the given strengths."""
        wanted = set(strengths)
        return sorted(n for n, i in self.identifiers.items() if i.strength in wanted)


@dataclass
class Receipt:
    receipt_id: str
    erased_at: str
    pseudonyms: dict[str, str]
    episodes_removed: int
    rows_removed: int
    partitions_touched: list[dict]
    subject: list[dict] = field(default_factory=list)
    linked: list[dict] = field(default_factory=list)
    episodes: list[dict] = field(default_factory=list)
    linking_rounds: int = 0
    rematerialized: list[dict] = field(default_factory=list)
    verified_clean: bool | None = None  # set once every table and file was scanned afterwards
    verification: dict = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)


# --- the subject ------------------------------------------------------------------------------


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def subject_kinds(value: str) -> list[str]:
    """The entity types a subject value may have been masked as (most likely first)."""
    value = value.strip()
    if _EMAIL.match(value):
        return ["EMAIL_ADDRESS", "USER_ID"]
    if _DATE.match(value):
        return ["DATE_OF_BIRTH"]
    digits = "".join(c for c in value if c.isdigit())
    if _PHONE.match(value) and len(digits) >= 7:
        kinds = ["PHONE_NUMBER"]
        if 12 <= len(digits) <= 19 and _luhn(digits):
            kinds.insert(0, "CREDIT_CARD")
        if len(digits) == 9:
            kinds.append("US_SSN")
        return [*kinds, "BANK_ACCOUNT", "ID_DOCUMENT", "USER_ID"]
    if _ID.match(value) and digits:  # ids such as cus_507eabd6 (searched in clear, whole word)
        return ["USER_ID", CLEAR_ID, "ID_DOCUMENT", "IBAN_CODE", "BANK_ACCOUNT"]
    if _ID.match(value) and not value.isalpha():  # a handle such as ann.lee: its token only
        return ["USER_ID"]
    if not digits:
        return ["PERSON"]
    return ["STREET_ADDRESS"]


def _strength(entity_type: str, key: str | None = None) -> str:
    if entity_type in IDENTIFYING_TYPES:
        return IDENTIFYING
    if entity_type == "PERSON" and key is not None and normalize_key(key) in NAME_PART_KEYS:
        return GENERIC
    return COMBINED if entity_type in COMBINED_TYPES else GENERIC


def _seed(values: list[str], key: str) -> tuple[dict[str, Identifier], list[dict], set[str]]:
    """Identifiers of the given values, the receipt's view of them, and the identifying values."""
    identifiers: dict[str, Identifier] = {}
    receipt: list[dict] = []
    clear: set[str] = set()
    for value in values:
        for kind in subject_kinds(value):
            token = pseudonym_for(value, kind, key)
            needle = value if kind == CLEAR_ID else token
            ident = identifiers.setdefault(needle, Identifier(kind, token, _strength(kind), needle))
            receipt.append({"entity_type": kind, "pseudonym": token, "strength": ident.strength})
            if ident.strength == IDENTIFYING:
                clear.add(value)
    return identifiers, receipt, clear


def _check_subject(values: list[str]) -> None:
    if not values:
        raise ValueError("no subject given")
    for value in values:
        if len(value) < 4:
            raise ValueError("subject is too short to be matched safely")
    kinds = [subject_kinds(v) for v in values]
    if any(_strength(k[0]) == IDENTIFYING for k in kinds):
        return
    combined = {k[0] for k in kinds}
    if "PERSON" in combined and len(combined & COMBINED_TYPES) >= 2:
        return
    raise ValueError(
        "a name, address or birth date alone does not identify one person: give an email, phone, "
        "card, user or customer id too (or a name together with an address or birth date)"
    )


# --- the warehouse: episodes and their structured records --------------------------------------


def _warehouse_episodes(root: DataRoot) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """``(day, episode id) -> [(column, text), ...]`` of ``masked_trajectories``."""
    episodes: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for ds in root.partitions("warehouse", "masked_trajectories"):
        table = root.read_partition("warehouse", "masked_trajectories", ds)
        cols = [c for c in TEXT_COLUMNS if c in table.column_names]
        ids = table.column("episode_id").to_pylist()
        values = {c: table.column(c).cast(pa.string()).to_pylist() for c in cols}
        for i, ep in enumerate(ids):
            if ep is None:
                continue
            cells = episodes[(ds, str(ep))]
            cells.extend((c, values[c][i]) for c in cols if values[c][i])
    return episodes


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
        kind = value[1 : -(TOKEN_HEX_CHARS + 2)]
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
            and v[1 : -(TOKEN_HEX_CHARS + 2)] in _PERSON_RECORD_TYPES
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


# --- the restricted zone: raw values of linked pseudonyms --------------------------------------


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


# --- the plan ---------------------------------------------------------------------------------


def _contains_any(table: pa.Table, columns, needles: list[str], ignore_case: bool) -> pa.Array:
    mask = pa.array([False] * table.num_rows, pa.bool_())
    for col in columns:
        if col not in table.column_names:
            continue
        values = table.column(col).cast(pa.string()).fill_null("")
        for needle in needles:
            hit = pc.match_substring(values, needle, ignore_case=ignore_case)
            mask = pc.or_(mask, hit)
    return mask


def plan_erasure(root: DataRoot, subject: str | list[str], key: str) -> ErasurePlan:
    """Find the person's identifiers and episodes, day by day (see the module doc).

    Raises ``ValueError`` for a subject that cannot identify one person, ``UnknownSubjectError``
    when nothing mentions them, ``ErasureTooBroadError`` when linking runs away; nothing is changed.
    """
    values = [v.strip() for v in ([subject] if isinstance(subject, str) else subject)]
    _check_subject(values)
    identifiers, given, clear = _seed(values, key)
    plan = ErasurePlan(pseudonyms={}, subject=given, identifiers=identifiers, clear_values=clear)
    given_needles = dict(identifiers)
    episodes = _warehouse_episodes(root)
    matched: dict[tuple[str, str], str] = {}
    new_identifiers = True
    while True:
        matcher = _matcher(plan.needles((IDENTIFYING, COMBINED)), plan.identifiers)
        new_episodes = False
        for ep_key, cells in episodes.items():
            if ep_key not in matched:
                why = _is_subjects(_found(cells, matcher), plan.identifiers)
                if why:
                    matched[ep_key] = why
                    new_episodes = True
        if not (new_episodes or new_identifiers) or plan.rounds >= MAX_ROUNDS:
            break
        plan.rounds += 1
        new_identifiers = False
        for (ds, ep), _why in sorted(matched.items()):
            for ident, reason in _link(ep, episodes[(ds, ep)], plan.identifiers, key, matcher):
                plan.identifiers[ident.needle] = ident
                plan.linked.append({**reason, "ds": ds, "round": plan.rounds})
                new_identifiers = True
        n_identifying = len(plan.needles())
        if n_identifying > MAX_IDENTIFYING:
            raise ErasureTooBroadError(
                f"linking reached {n_identifying} identifying identifiers (more than "
                f"{MAX_IDENTIFYING}); check the subject"
            )
    for (ds, ep), why in sorted(matched.items()):
        plan.episodes_by_day.setdefault(ds, set()).add(ep)
        plan.episodes.append({"ds": ds, "episode_id": ep, "why": why})
    found = {n for ep_key in matched for n in _found(episodes[ep_key], matcher)}
    found_pseudonyms = {i.pseudonym for n, i in given_needles.items() if n in found}
    for g in given:
        g["found_in_warehouse"] = g["pseudonym"] in found_pseudonyms
    plan.pseudonyms = {g["entity_type"]: g["pseudonym"] for g in given if g["found_in_warehouse"]}
    _recover_raw_values(root, plan, key)
    needles = sorted(plan.clear_values)
    for ds in root.partitions("restricted", "raw_agent_logs") if needles else []:
        table = root.read_partition("restricted", "raw_agent_logs", ds)
        hits = table.filter(_contains_any(table, TEXT_COLUMNS, needles, True))
        ids = {str(e) for e in hits.column("episode_id").to_pylist() if e is not None}
        if ids:
            known = plan.episodes_by_day.setdefault(ds, set())
            why = "its raw rows quote an identifying value of the subject"
            plan.episodes += [{"ds": ds, "episode_id": e, "why": why} for e in sorted(ids - known)]
            known.update(ids)
    for ds in root.partitions("restricted", "raw_quarantine") if needles else []:
        table = root.read_partition("restricted", "raw_quarantine", ds, columns=["raw_record"])
        if pc.any(_contains_any(table, ["raw_record"], needles, True)).as_py():
            plan.quarantine_days.add(ds)
    if not plan.episodes_by_day and not plan.quarantine_days:
        raise UnknownSubjectError("no stored episode or record mentions this subject")
    if not plan.pseudonyms:  # found in the raw zone only: the candidates that were searched
        plan.pseudonyms = {g["entity_type"]: g["pseudonym"] for g in given}
    return plan


def apply_erasure(root: DataRoot, plan: ErasurePlan) -> Receipt:
    """Remove the planned episodes (and quoting quarantined records) from both zones."""
    needles = sorted(plan.clear_values)
    touched: list[dict] = []
    removed_rows = 0
    by_day = defaultdict(set, plan.episodes_by_day)
    for zone in ZONES:
        for asset in root.assets(zone):
            for ds in root.partitions(zone, asset):
                episodes = by_day.get(ds, set())
                quarantine = asset == "raw_quarantine" and ds in plan.quarantine_days
                if not episodes and not quarantine:
                    continue
                if not root.has_partition(zone, asset, ds):
                    continue
                table = root.read_partition(zone, asset, ds)
                drop = pa.array([False] * table.num_rows, pa.bool_())
                ids = pa.array(sorted(episodes), pa.string())
                for col in EPISODE_COLUMNS:
                    if col in table.column_names:
                        values = table.column(col).cast(pa.string())
                        drop = pc.or_(drop, pc.fill_null(pc.is_in(values, ids), False))
                if quarantine:
                    drop = pc.or_(drop, _contains_any(table, ["raw_record"], needles, True))
                n_drop = pc.sum(drop).as_py() or 0
                if n_drop:
                    root.write_partition(zone, asset, ds, table.filter(pc.invert(drop)))
                    touched.append({"zone": zone, "asset": asset, "ds": ds, "rows_removed": n_drop})
                    removed_rows += n_drop
    now = datetime.now(UTC)
    return Receipt(
        receipt_id=f"{now:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}",
        erased_at=now.isoformat(timespec="seconds"),
        pseudonyms=plan.pseudonyms,
        episodes_removed=plan.n_episodes,
        rows_removed=removed_rows,
        partitions_touched=touched,
        subject=plan.subject,
        linked=plan.linked,
        episodes=plan.episodes,
        linking_rounds=plan.rounds,
    )


def erase_from_landing(landing_root: UPath, plan: ErasurePlan) -> list[dict]:
    """Rewrite the landing files without the subject's records.

    Otherwise any re-ingestion of those days (a backfill, the late-file sensor, a key rotation)
    would bring the erased episodes back. A record goes when its episode is erased (every step
    of a transition episode, whatever it says) or when its text quotes one of the subject's
    identifying values in clear; every landing day is searched for those.
    """
    touched = []
    needles = [v.lower() for v in sorted(plan.clear_values)]
    days = (
        sorted(p.name for p in landing_root.iterdir() if p.is_dir())
        if landing_root.exists()
        else []
    )
    for ds in days:
        erased = plan.episodes_by_day.get(ds, set())
        if not erased and not needles:
            continue
        folder = landing_root / ds
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            removed = _rewrite_landing_file(path, erased, needles)
            if removed:
                touched.append(
                    {"zone": "landing", "asset": path.name, "ds": ds, "rows_removed": removed}
                )
    return touched


def _drop_record(value: object, text: str, erased: set[str], needles: list[str], stem: str) -> bool:
    lowered = text.lower()
    if any(n in lowered for n in needles):
        return True
    if isinstance(value, dict):
        ids = {str(value.get("episode_id"))}
        if "traj" in value:  # benchmark files: the id is derived from the file and the task
            ids.add(f"{stem}-task{value.get('task_id')}-trial{value.get('trial')}")
        return bool(ids & erased)
    return False


def _rewrite_landing_file(path: UPath, erased: set[str], needles: list[str]) -> int:
    name = path.name
    stem = name.split(".", 1)[0]
    raw = path.read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    if name.endswith(".json"):
        value = json.loads(raw)
        items = value if isinstance(value, list) else [value]
        kept = [
            v
            for v in items
            if not _drop_record(v, json.dumps(v, ensure_ascii=False), erased, needles, stem)
        ]
        removed = len(items) - len(kept)
        payload = json.dumps(
            kept if isinstance(value, list) else (kept[0] if kept else []),
            ensure_ascii=False,
            indent=1,
        ).encode()
    else:
        lines = raw.split(b"\n")
        kept_lines = []
        for line in lines:
            text = line.decode("utf-8", errors="replace")
            try:
                value = json.loads(text) if text.strip() else None
            except (json.JSONDecodeError, RecursionError):
                value = None
            if text.strip() and _drop_record(value, text, erased, needles, stem):
                continue
            kept_lines.append(line)
        removed = len(lines) - len(kept_lines)
        payload = b"\n".join(kept_lines)
    if not removed:
        return 0
    if name.endswith(".gz"):
        payload = gzip.compress(payload, mtime=0)
    staging = path.parent / f".{name}.erasure-{uuid.uuid4().hex[:8]}"
    staging.write_bytes(payload)
    staging.rename(path)
    return removed


def write_receipt(root: DataRoot, receipt: Receipt) -> str:
    """Store the receipt as ``warehouse/erasure_receipts/<id>.json`` (atomically)."""
    folder = root.root / "warehouse" / RECEIPTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{receipt.receipt_id}.json"
    staging = folder / f".{receipt.receipt_id}.json.tmp"
    staging.write_text(receipt.to_json())
    staging.rename(final)
    return str(final)


def remaining_mentions(
    root: DataRoot,
    subject: str | Iterable[str],
    pseudonyms: Mapping[str, str] | Iterable[str],
    landing_root: UPath | None = None,
) -> list[str]:
    """Tables and files that still mention one of the values or pseudonyms (should be none).

    Every Parquet file of both zones is scanned (``rl.parquet`` of the training exports too),
    every JSON/JSONL/markdown file except the erasure receipts themselves, and the landing files.
    """
    found = []
    values = [subject] if isinstance(subject, str) else list(subject)
    tokens = list(pseudonyms.values()) if isinstance(pseudonyms, Mapping) else list(pseudonyms)
    needles = [n for n in dict.fromkeys([*values, *tokens]) if n]
    if not needles:
        return []
    lowered = [n.lower() for n in needles]
    for zone in ZONES:
        base = root.root / zone
        if not base.exists():
            continue
        for path in sorted(base.rglob("*")):
            if RECEIPTS_DIR in path.parts or not path.is_file():
                continue
            if path.suffix == ".parquet":
                with path.open("rb") as fh:
                    table = pq.read_table(fh)
                text_cols = [
                    f.name
                    for f in table.schema
                    if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
                ]
                hit = pc.any(_contains_any(table, text_cols, needles, True)).as_py()
            elif path.suffix in (".json", ".jsonl", ".md"):
                text = path.read_text(errors="replace").lower()
                hit = any(n in text for n in lowered)
            else:
                continue
            if hit:
                found.append(str(path.relative_to(root.root)))
    landing = landing_root if landing_root is not None else root.landing()
    if landing.exists():
        for path in sorted(p for p in landing.rglob("*") if p.is_file()):
            raw = path.read_bytes()
            if path.name.endswith(".gz"):
                raw = gzip.decompress(raw)
            text = raw.decode("utf-8", errors="replace").lower()
            if any(n in text for n in lowered):
                found.append(f"landing/{path.parent.name}/{path.name}")
    return found


def verify_erasure(root: DataRoot, plan: ErasurePlan, landing_root: UPath | None = None) -> dict:
    """Scan everything for every identifier of the plan after the erasure.

    ``leftovers`` (must be empty for a clean erasure): files that still hold an identifying
    pseudonym, customer id or identifying value in clear, and episodes of ``masked_trajectories``
    that still hold the subject's full name with their address or birth date. Generic identifiers
    (first names, cities, ...) are shared with other people: the files still holding them are
    counted, not held against the erasure.
    """
    identifying = plan.needles((IDENTIFYING,))
    leftovers = remaining_mentions(root, sorted(plan.clear_values), identifying, landing_root)
    combined = plan.needles((COMBINED,))
    matcher = _matcher(identifying + combined, plan.identifiers)
    still = sorted(
        f"warehouse/masked_trajectories/ds={ds} episode {ep}"
        for (ds, ep), cells in _warehouse_episodes(root).items()
        if _is_subjects(_found(cells, matcher), plan.identifiers)
    )
    generic = plan.needles((GENERIC,))
    generic_files = remaining_mentions(root, [], generic, landing_root) if generic else []
    return {
        "leftovers": [*leftovers, *still],
        "identifiers_scanned": {
            IDENTIFYING: len(identifying),
            COMBINED: len(combined),
            GENERIC: len(generic),
        },
        "files_with_generic_identifiers": len(generic_files),
    }
