"""The subject and what is recorded about them: identifiers by strength, the plan and the
receipt, and the given values seeded as the pseudonyms they may have been masked as."""

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from agentic_pipeline.erasure.forms import token_forms
from agentic_pipeline.masking import pseudonym_for
from agentic_pipeline.masking.json_walker import normalize_key
from agentic_pipeline.pii_patterns import luhn_valid

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

    def to_json(self) -> str:
        """The whole plan, clear values included: stored only in the restricted zone while the
        erasure runs (``job.Journal``), removed when its receipt is written."""
        data = {
            "pseudonyms": self.pseudonyms,
            "episodes_by_day": {d: sorted(v) for d, v in sorted(self.episodes_by_day.items())},
            "quarantine_days": sorted(self.quarantine_days),
            "subject": self.subject,
            "linked": self.linked,
            "episodes": self.episodes,
            "rounds": self.rounds,
            "identifiers": [asdict(i) for _, i in sorted(self.identifiers.items())],
            "clear_values": sorted(self.clear_values),
        }
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "ErasurePlan":
        data = json.loads(text)
        idents = [Identifier(**i) for i in data.pop("identifiers")]
        return cls(
            pseudonyms=data["pseudonyms"],
            episodes_by_day={d: set(v) for d, v in data["episodes_by_day"].items()},
            quarantine_days=set(data["quarantine_days"]),
            subject=data["subject"],
            linked=data["linked"],
            episodes=data["episodes"],
            rounds=data["rounds"],
            identifiers={i.needle: i for i in idents},
            clear_values=set(data["clear_values"]),
        )

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
    #: "complete", or "incomplete" with what is left in ``verification`` and ``skipped``
    status: str = "incomplete"
    #: files and days that could not be searched (a bomb, a corrupt file), with the reason
    skipped: list[dict] = field(default_factory=list)
    job_id: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)


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
        if 12 <= len(digits) <= 19 and luhn_valid(digits):
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
    seen: set[str] = set()
    for value in values:
        for kind in subject_kinds(value):
            for form in token_forms(value, kind):  # every normal form (``forms``)
                token = pseudonym_for(form, kind, key)
                needle = value if kind == CLEAR_ID else token
                ident = identifiers.setdefault(
                    needle, Identifier(kind, token, _strength(kind), needle)
                )
                if needle in seen:
                    continue
                seen.add(needle)
                receipt.append(
                    {"entity_type": kind, "pseudonym": token, "strength": ident.strength}
                )
            if _strength(kind) == IDENTIFYING:
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
