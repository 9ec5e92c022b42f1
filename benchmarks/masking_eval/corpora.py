"""The development corpora of the masking, as labelled texts with character spans.

One loader per corpus; each returns ``list[LabelledText]``. Spans are ``(start, end, type)``
character offsets into ``text``, typed in one small taxonomy (``TYPES``):

* personal: ``PERSON``, ``EMAIL_ADDRESS``, ``PHONE_NUMBER``, ``ADDRESS`` (a whole postal address),
  ``STREET_ADDRESS`` (a street line alone), ``USERNAME``, ``USER_ID``, ``CREDIT_CARD``,
  ``IBAN_CODE``, ``DATE_OF_BIRTH``, ``IP_ADDRESS`` and ``ID:<LABEL>`` (a structured identifier,
  the corpus label kept: ``ID:SSN``, ``ID:ACCOUNT``, ``ID:PATIENT_ID``, ``ID:PASSPORT``, ...);
* non-personal, must stay in clear: ``ORGANIZATION``, ``COMPANY``, ``LOCATION``
  (``NON_PERSONAL``);
* ``OTHER:<LABEL>``: labelled by the corpus but neither scored as personal nor as a word that must
  stay (dates that are not birth dates, job titles, diagnoses, passwords, ...).

Spans of one text do not overlap. Texts with no span are negatives: nothing in them is personal
by the corpus's labels (``dlp-support-chat`` negatives: nothing in them should be masked).

The data lives outside the repo (``../shared/external`` beside the checkout, or the directory
in ``$AGENTIC_PIPELINE_EXTERNAL``); the presidio-evaluator templates are read from its wheel
without importing the package (``pip download --no-deps presidio-evaluator==0.3.2 -d /tmp/pe``).

Twenty-seven hand-labelled corpora live in the repo (``benchmarks/fresh_corpus/``), each written
blind to the masking rules and to the others. ``fresh-blind`` to ``fresh-blind-26`` were each held
out until the next one was written; they are development corpora now (in ``TEXT_CORPORA``: the
name model trains on them, their misses are read). ``fresh-blind-27`` is held out: measured,
never tuned on, in ``LOADERS`` and ``HELD_OUT_CORPORA`` but not in
``TEXT_CORPORA``/``TAU_CORPORA``.

Used by the masking benchmark (``benchmarks/masking_eval``), the corpus-value test and the name
model's training: keep the ``LabelledText`` contract stable.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import random
import re
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Span = tuple[int, int, str]


@dataclass
class LabelledText:
    """A text of a development corpus with its labelled spans (character offsets)."""

    text: str
    spans: list[Span]
    corpus: str
    doc_id: str

    def values(self) -> list[tuple[str, str]]:
        """(type, surface value) of each span."""
        return [(t, self.text[a:b]) for a, b, t in self.spans]


#: Personal types (``ID:<LABEL>`` ids besides).
PERSONAL = frozenset(
    {
        "PERSON",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "ADDRESS",
        "STREET_ADDRESS",
        "USERNAME",
        "USER_ID",
        "CREDIT_CARD",
        "IBAN_CODE",
        "DATE_OF_BIRTH",
        "IP_ADDRESS",
    }
)
#: Labelled kinds that are not personal and must stay in clear.
NON_PERSONAL = frozenset({"ORGANIZATION", "COMPANY", "LOCATION"})


def is_personal(kind: str) -> bool:
    """Whether a span type is personal data (``ID:...`` included)."""
    return kind in PERSONAL or kind.startswith("ID:")


def is_id(kind: str) -> bool:
    """Whether a span type is a structured identifier (``ID:<LABEL>``)."""
    return kind.startswith("ID:")


#: The corpus names, in the order the loaders are listed in ``LOADERS``.
CONTEXTUAL = "contextual-anonymizer"
BTC = "btc"
NANNIGALAXY = "nannigalaxy-pii-synthetic"
DLP = "dlp-support-chat"
TEMPLATES = "presidio-evaluator-templates"
TAU_AIRLINE = "tau-bench-airline"
TAU_RETAIL = "tau-bench-retail"
TAU2_AIRLINE = "tau2-airline"
FRESH_BLIND = "fresh-blind"
FRESH_BLIND_2 = "fresh-blind-2"
FRESH_BLIND_3 = "fresh-blind-3"
FRESH_BLIND_4 = "fresh-blind-4"
FRESH_BLIND_5 = "fresh-blind-5"
FRESH_BLIND_6 = "fresh-blind-6"
FRESH_BLIND_7 = "fresh-blind-7"
FRESH_BLIND_8 = "fresh-blind-8"
FRESH_BLIND_9 = "fresh-blind-9"
FRESH_BLIND_10 = "fresh-blind-10"
FRESH_BLIND_11 = "fresh-blind-11"
FRESH_BLIND_12 = "fresh-blind-12"
FRESH_BLIND_13 = "fresh-blind-13"
FRESH_BLIND_14 = "fresh-blind-14"
FRESH_BLIND_15 = "fresh-blind-15"
FRESH_BLIND_16 = "fresh-blind-16"
FRESH_BLIND_17 = "fresh-blind-17"
FRESH_BLIND_18 = "fresh-blind-18"
FRESH_BLIND_19 = "fresh-blind-19"
FRESH_BLIND_20 = "fresh-blind-20"
FRESH_BLIND_21 = "fresh-blind-21"
FRESH_BLIND_22 = "fresh-blind-22"
FRESH_BLIND_23 = "fresh-blind-23"
FRESH_BLIND_24 = "fresh-blind-24"
FRESH_BLIND_25 = "fresh-blind-25"
FRESH_BLIND_26 = "fresh-blind-26"
FRESH_BLIND_27 = "fresh-blind-27"


def external_root() -> Path:
    """``$AGENTIC_PIPELINE_EXTERNAL`` or ``../shared/external`` beside the repo checkout."""
    env = os.environ.get("AGENTIC_PIPELINE_EXTERNAL")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "external"


def _pii_dev(name: str) -> Path:
    return external_root() / "pii-dev" / name


def _take(items: list[Any], limit: int | None) -> list[Any]:
    """All items, or ``limit`` of them evenly spaced over the file (every kind of text of a
    corpus ordered by kind is in a small sample), in file order."""
    if limit is None or limit >= len(items):
        return items
    return [items[i * len(items) // limit] for i in range(limit)]


def _strip_overlaps(spans: Iterable[Span]) -> list[Span]:
    """Spans sorted, an overlapping later span dropped (the first, longest one kept)."""
    out: list[Span] = []
    for a, b, t in sorted(set(spans), key=lambda s: (s[0], -s[1])):
        if b > a and (not out or a >= out[-1][1]):
            out.append((a, b, t))
    return out


# ----------------------------------------------------------------------- contextual-anonymizer
#: Tag of ``anonymized_context`` -> type. Unlisted tags become ``OTHER:<TAG>``.
CONTEXTUAL_TYPES = {
    "NAME": "PERSON",
    "DOCTOR": "PERSON",
    "CLIENT_NAME": "PERSON",
    "EMAIL": "EMAIL_ADDRESS",
    "PHONE": "PHONE_NUMBER",
    "ADDRESS": "ADDRESS",
    "STREET": "STREET_ADDRESS",
    "USERNAME": "USERNAME",
    "MENTION": "USERNAME",
    "ACCOUNT": "ID:ACCOUNT",
    "POLICY_NUMBER": "ID:POLICY_NUMBER",
    "TICKET_ID": "ID:TICKET_ID",
    "TRANSACTION_ID": "ID:TRANSACTION_ID",
    "ORDER_NUMBER": "ID:ORDER_NUMBER",
    "CLAIM_ID": "ID:CLAIM_ID",
    "CASE_NUMBER": "ID:CASE_NUMBER",
    "CASE_ID": "ID:CASE_NUMBER",
    "PESEL": "ID:PESEL",
    "NIP": "ID:NIP",
    "VIN": "ID:VIN",
    "SUBSCRIPTION_ID": "ID:SUBSCRIPTION_ID",
    "COMPANY": "COMPANY",
    "COMPANY_NAME": "COMPANY",
    "BANK": "COMPANY",
    "BANK_NAME": "COMPANY",
    "INSURER": "COMPANY",
    "MERCHANT": "COMPANY",
    "STORE": "COMPANY",
    "RESTAURANT": "COMPANY",
    "RESTAURANT_NAME": "COMPANY",
    "HOTEL_NAME": "COMPANY",
    "GYM_NAME": "COMPANY",
    "SCHOOL": "ORGANIZATION",
    "UNIVERSITY": "ORGANIZATION",
    "UNIVERSITY_NAME": "ORGANIZATION",
    "HOSPITAL": "ORGANIZATION",
    "COURT": "ORGANIZATION",
    "INSTITUTE": "ORGANIZATION",
    "LOCATION": "LOCATION",
    "CITY": "LOCATION",
    "STATE": "LOCATION",
    "PLACE": "LOCATION",
    "LANDMARK": "LOCATION",
    "VENUE": "LOCATION",
    "AIRPORT_NAME": "LOCATION",
}
_TAG = re.compile(r"\[([A-Z][A-Z_]*?)(?:_\d+)?\]")
_FRAMED = re.compile(r"\[[A-Z_]+:\s*(\S)")


def _align(context: str, anonymized: str) -> list[Span] | None:
    """Spans of the tagged values of ``anonymized`` in ``context``: each tag becomes a lazy
    one-line group and the whole text must match; None when the texts do not align."""
    tags: list[str] = []
    parts: list[str] = []
    pos = 0
    for m in _TAG.finditer(anonymized):
        parts.append(re.escape(anonymized[pos : m.start()]))
        parts.append("(.+?)")
        tags.append(m.group(1))
        pos = m.end()
    parts.append(re.escape(anonymized[pos:]))
    if not tags:
        return [] if context == anonymized else None
    m = re.fullmatch("".join(parts), context)
    if m is None:
        return None
    spans = []
    for i, tag in enumerate(tags, start=1):
        a, b = m.span(i)
        value = context[a:b]
        if _TAG.fullmatch(value.strip()) or not value.strip():
            continue  # the generator leaked a tag into the original: no surface form
        # values keep no surrounding blanks, nor a "[EMAIL: ...]" frame the generator wrote
        a += len(value) - len(value.lstrip())
        b -= len(value) - len(value.rstrip())
        framed = _FRAMED.match(context, a, b)
        if framed and context[b - 1] == "]":
            a, b = framed.start(1), b - 1
        kind = CONTEXTUAL_TYPES.get(tag, f"OTHER:{tag}")
        a, b = _trim(context, a, b, kind)
        spans.append((a, b, kind))
    return _strip_overlaps(spans)


def load_contextual_anonymizer(limit: int | None = None) -> list[LabelledText]:
    """The synthetic chats, emails, forms and statements whose ``anonymized_context`` aligns
    with ``context`` (4,126 of 4,321); exact duplicate texts once. Person spans lose their
    title ("Dr. X" -> "X"), id spans their label words."""
    doc = json.loads((_pii_dev(CONTEXTUAL) / "synthetic_data.json").read_text())
    out: list[LabelledText] = []
    seen: set[str] = set()
    for i, rec in enumerate(doc["data"]):
        text = rec["context"]
        if text in seen:
            continue
        spans = _align(text, rec["anonymized_context"])
        if spans is None:
            continue
        seen.add(text)
        out.append(LabelledText(text, spans, CONTEXTUAL, f"{CONTEXTUAL}-{i:05d}"))
    return _take(out, limit)


# ----------------------------------------------------------------------------------------- btc
_NO_SPACE_BEFORE = re.compile(r"^(?:[.,!?;:%)\]}]+|'s|n't|'re|'ll|'ve|'m|'d)$", re.IGNORECASE)
_BTC_TYPES = {"PER": "PERSON", "ORG": "ORGANIZATION", "LOC": "LOCATION"}


def _btc_tweet(tokens: list[tuple[str, str]], doc_id: str) -> LabelledText:
    """Tokens joined into a text (no blank before closing punctuation or after ``@``/``#``),
    BIO spans as character spans; a handle after ``@`` typed by its owner, ``USERNAME`` for
    persons; a lone ``@`` span dropped."""
    text = ""
    offsets: list[tuple[int, int]] = []
    prev = ""
    for tok, _ in tokens:
        if text and not _NO_SPACE_BEFORE.match(tok) and prev not in ("@", "#", "("):
            text += " "
        offsets.append((len(text), len(text) + len(tok)))
        text += tok
        prev = tok
    spans: list[Span] = []
    cur: list[Any] | None = None
    for i, (tok, tag) in enumerate(tokens):
        kind = tag[2:] if tag[:2] in ("B-", "I-") else None
        if tok == "@" or kind is None or tag.startswith("B-") or cur is None or cur[2] != kind:
            if cur is not None:
                spans.append(tuple(cur))
            cur = None
        if tok == "@" or kind is None:
            continue
        if cur is None:
            handle = i > 0 and tokens[i - 1][0] == "@"
            label = "USERNAME" if handle and kind == "PER" else _BTC_TYPES.get(kind, kind)
            cur = [offsets[i][0], offsets[i][1], kind, label]
        else:
            cur[1] = offsets[i][1]
    if cur is not None:
        spans.append(tuple(cur))
    out = []
    for a, b, _, label in spans:
        value = text[a:b]
        if not re.search(r"[^\W\d_]", value):
            continue  # "." or "#" tagged as a person
        out.append((a, b, label))
    return LabelledText(text, _strip_overlaps(out), BTC, doc_id)


def load_btc(limit: int | None = None, sections: str = "abefgh") -> list[LabelledText]:
    """Broad Twitter Corpus tweets (CoNLL sections ``sections``), in file order per section."""
    out: list[LabelledText] = []
    for sec in sections:
        tokens: list[tuple[str, str]] = []
        n = 0
        lines = (_pii_dev(BTC) / f"{sec}.conll").read_text(encoding="utf-8").split("\n")
        for line in [*lines, ""]:
            if line.strip():
                tok, _, tag = line.partition("\t")
                tokens.append((tok, tag.strip() or "O"))
                continue
            if tokens:
                out.append(_btc_tweet(tokens, f"{BTC}-{sec}-{n:04d}"))
                n += 1
                tokens = []
    if limit is None:
        return out
    # every section in the sample: interleave
    by_sec: dict[str, list[LabelledText]] = {}
    for t in out:
        by_sec.setdefault(t.doc_id.split("-")[1], []).append(t)
    mixed = [t for group in zip(*by_sec.values(), strict=False) for t in group]
    return mixed[:limit]


# --------------------------------------------------------------------------------- nannigalaxy
NANNIGALAXY_TYPES = {
    "PERSON": "PERSON",
    "EMAIL": "EMAIL_ADDRESS",
    "PHONE": "PHONE_NUMBER",
    "IBAN": "IBAN_CODE",
    "CREDIT_CARD": "CREDIT_CARD",
    "USERID": "USER_ID",
    "USER_ID": "USER_ID",
    "USERNAME": "USERNAME",
    "SSN": "ID:SSN",
    "PAN": "ID:PAN",
    "AADHAR": "ID:AADHAAR",
    "PASSPORT": "ID:PASSPORT",
    "PASSPORT_NUM": "ID:PASSPORT",
    "TAX_ID": "ID:TAX_ID",
    "TAXID": "ID:TAX_ID",
    "ACCOUNT": "ID:ACCOUNT",
    "ACCOUNT_NUM": "ID:ACCOUNT",
    "ACCOUNT_NUMBER": "ID:ACCOUNT",
    "BANK_ACCOUNT": "ID:ACCOUNT",
    "BANK_ACCOUNT_NUM": "ID:ACCOUNT",
    "ROUTING_NUMBER": "ID:ROUTING_NUMBER",
    "DRIVER_LICENSE": "ID:DRIVER_LICENSE",
    "DRIVERS_LICENSE": "ID:DRIVER_LICENSE",
    "DRIVER_LICENSE_NUM": "ID:DRIVER_LICENSE",
    "LICENSE": "ID:LICENSE",
    "PATIENT_ID": "ID:PATIENT_ID",
    "PID": "ID:PATIENT_ID",
    "MEDICAL_RECORD": "ID:MEDICAL_RECORD",
    "INSURANCE_ID": "ID:INSURANCE_POLICY",
    "INSURANCE_POLICY_NUM": "ID:INSURANCE_POLICY",
    "VOTER_ID": "ID:VOTER_ID",
    "EMPLOYEE_ID": "ID:EMPLOYEE_ID",
    "POLICE_ID_NUM": "ID:POLICE_ID",
    "ORG": "ORGANIZATION",
    "ORGANIZATION": "ORGANIZATION",
    "BANK": "COMPANY",
    "SYSTEM": "COMPANY",
}
#: Titles and roles a corpus puts inside a person span ("Dr. X", "Officer Y"): trimmed off.
_TITLE = re.compile(
    r"^(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof|Sir|Officer|Agent|Detective|Nurse|Judge)\.?\s+)+"
)
#: Placeholder values (``XXX-XX-XXXX``): no surface value to mask.
_PLACEHOLDER = re.compile(r"^[Xx*#\-\s.]+$")


def _trim(text: str, a: int, b: int, kind: str) -> tuple[int, int]:
    """A person span without its title; an id span from its first token holding a digit
    ("patient ID 108965" -> "108965"), the label words being context, not the value."""
    value = text[a:b]
    if kind == "PERSON":
        m = _TITLE.match(value)
        if m and m.end() < len(value):
            a += m.end()
    elif kind.startswith("ID:") or kind in ("CREDIT_CARD", "IBAN_CODE", "PHONE_NUMBER", "USER_ID"):
        m = re.search(r"\S*\d", value)
        if m:
            a += m.start()
    return a, b


def load_nannigalaxy(limit: int | None = None) -> list[LabelledText]:
    """Incident and audit notes; entity strings located in the text (markdown asterisks
    stripped; placeholders, strings not in the text and "persons" in lower case or with an
    email left out)."""
    doc = json.loads((_pii_dev(NANNIGALAXY) / "pii_syn_nano_en.json").read_text())
    out: list[LabelledText] = []
    for i, rec in enumerate(doc):
        text = rec["text"]
        spans: list[Span] = []
        for ent in rec.get("NER") or []:
            value = ent.get("entity") or ent.get("=") or ""
            label = (ent.get("label") or "").upper()
            kind = NANNIGALAXY_TYPES.get(label, f"OTHER:{label}")
            value = value.strip().strip("*").strip()
            if not value or _PLACEHOLDER.match(value):
                continue
            if kind == "PERSON" and ("@" in value or value == value.lower()):
                continue  # label noise: a role and an email, "citizen"
            at = text.find(value)
            if at < 0:
                continue
            a, b = _trim(text, at, at + len(value), kind)
            spans.append((a, b, kind))
        out.append(
            LabelledText(text, _strip_overlaps(spans), NANNIGALAXY, f"{NANNIGALAXY}-{i:03d}")
        )
    return _take(out, limit)


# ------------------------------------------------------------------------------------- dlp
#: ``Point`` name (before its colon) -> type of the parenthesised value of a positive.
DLP_TYPES = {
    "Full Names": "PERSON",
    "Maiden Names": "PERSON",
    "Family Member Names": "PERSON",
    "Spouse Names": "PERSON",
    "Mother's Maiden Name": "PERSON",
    "Email Addresses": "EMAIL_ADDRESS",
    "Phone Numbers": "PHONE_NUMBER",
    "Physical Addresses": "ADDRESS",
    "Business Addresses": "ADDRESS",
    "Social Media Handles": "USERNAME",
    "Gaming Usernames": "USERNAME",
    "Social Security Numbers (SSN)": "ID:SSN",
    "Driver's License Numbers": "ID:DRIVER_LICENSE",
    "Passport Numbers": "ID:PASSPORT",
    "National ID Numbers": "ID:NATIONAL_ID",
    "Visa Numbers": "ID:VISA",
    "Tax ID Numbers": "ID:TAX_ID",
    "Employee IDs": "ID:EMPLOYEE_ID",
    "Voter ID Numbers": "ID:VOTER_ID",
    "Professional License Numbers": "ID:PROFESSIONAL_LICENSE",
    "Account IDs": "ID:ACCOUNT",
    "Membership Numbers": "ID:MEMBERSHIP",
    "Insurance Policy Numbers": "ID:INSURANCE_POLICY",
    "Bank Account Info": "ID:ACCOUNT",
    "MAC Addresses": "ID:MAC_ADDRESS",
    "IMEI Numbers": "ID:IMEI",
    "IP Addresses": "IP_ADDRESS",
    "Dates of Birth": "DATE_OF_BIRTH",
}
DLP_FILE = "General Sensitive Data Benchmarking Dataset.csv"


def _dlp_kind(point: str, value: str) -> str | None:
    if point == "Recovery Emails/Phones":
        return "EMAIL_ADDRESS" if "@" in value else "PHONE_NUMBER"
    if point == "Payment Details":
        digits = re.sub(r"\D", "", value)
        return "CREDIT_CARD" if 13 <= len(digits) <= 19 else None
    return DLP_TYPES.get(point)


def _shape(value: str) -> re.Pattern[str]:
    """A pattern of ``value``'s shape: each digit run any digit run, each letter run any letter
    run, other characters themselves ("V12345678" -> ``[A-Za-z]+\\d+``)."""
    parts = []
    for m in re.finditer(r"\d+|[A-Za-z]+|.", value):
        tok = m.group()
        parts.append(r"\d+" if tok.isdigit() else "[A-Za-z]+" if tok.isalpha() else re.escape(tok))
    return re.compile("".join(parts))


def _dlp_find(text: str, value: str) -> tuple[int, int] | None:
    """Where ``value`` is in ``text``: verbatim, else (for values with digits: the explanations
    often quote a placeholder such as "123456789" for the message's real number) the one
    substring of the same shape; None when absent or ambiguous."""
    at = text.find(value)
    if at >= 0:
        return at, at + len(value)
    if not re.search(r"\d", value):
        return None
    hits = [m.span() for m in _shape(value).finditer(text) if re.search(r"\d", m.group())]
    return hits[0] if len(hits) == 1 else None


def load_dlp_support_chat(limit: int | None = None) -> list[LabelledText]:
    """Support-chat messages: every negative (no span; ``doc_id`` ``...-neg-N``) and the
    positives of identifier points whose parenthesised ``Explanation`` value occurs in the
    message, verbatim or (a value with digits) as the one substring of its shape (one span of
    the point's type; ``...-pos-N``). Positives with no literal value
    (contextual ones, most typos) or of non-identifier points are left out."""
    path = _pii_dev(DLP) / DLP_FILE
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8", errors="replace"))))
    out: list[LabelledText] = []
    for row in rows:
        text, n = row["Example"], int(row["Example ID"])
        if row["Type"].strip() == "Negative":
            out.append(LabelledText(text, [], DLP, f"{DLP}-neg-{n:04d}"))
            continue
        point = row["Point"].split(":")[0].strip()
        for value in re.findall(r"\(([^()]+)\)", row["Explanation"]):
            value = value.strip().strip("'\"")
            kind = _dlp_kind(point, value)
            found = _dlp_find(text, value) if kind and value else None
            if found:
                a, b = _trim(text, *found, kind)
                out.append(LabelledText(text, [(a, b, kind)], DLP, f"{DLP}-pos-{n:04d}"))
                break
    return _take(out, limit)


# --------------------------------------------------------------------------- evaluator templates
_EVAL_DATA = "presidio_evaluator/data_generator/raw_data/"


def evaluator_files(where: str | Path | None = None) -> tuple[list[str], list[dict[str, str]]]:
    """(templates, FakeNameGenerator records) of presidio-evaluator 0.3.2, read from its wheel,
    an unpacked copy or an installed package, never imported. Looked for in ``where``,
    ``$PRESIDIO_EVALUATOR``, the installed package and ``/tmp/pe``."""
    candidates = [Path(p) for p in (where, os.environ.get("PRESIDIO_EVALUATOR")) if p]
    spec = importlib.util.find_spec("presidio_evaluator")
    if spec and spec.submodule_search_locations:
        candidates.append(Path(next(iter(spec.submodule_search_locations))).parent)
    candidates.append(Path("/tmp/pe"))
    for c in candidates:
        wheels = [c] if c.suffix == ".whl" else sorted(c.glob("presidio_evaluator-*.whl"))
        for w in wheels:
            with zipfile.ZipFile(w) as z:
                return _parse_evaluator(
                    z.read(_EVAL_DATA + "templates.txt").decode(),
                    z.read(_EVAL_DATA + "FakeNameGenerator.com_3000.csv").decode("utf-8-sig"),
                )
        if (c / _EVAL_DATA / "templates.txt").exists():
            return _parse_evaluator(
                (c / _EVAL_DATA / "templates.txt").read_text(),
                (c / _EVAL_DATA / "FakeNameGenerator.com_3000.csv").read_text(encoding="utf-8-sig"),
            )
    raise FileNotFoundError(
        "presidio-evaluator data not found: pip download --no-deps presidio-evaluator==0.3.2 "
        "-d /tmp/pe (or pass its wheel or directory)"
    )


def _parse_evaluator(templates: str, fng: str) -> tuple[list[str], list[dict[str, str]]]:
    lines = [t.strip().replace("\\n", "\n").replace("\\,", ",") for t in templates.splitlines()]
    return [t for t in lines if t], list(csv.DictReader(io.StringIO(fng)))


def _dob(rng: random.Random, d: Any) -> str:
    return rng.choice(
        [
            d.isoformat(),
            d.strftime("%B %d, %Y").replace(" 0", " "),
            d.strftime("%d/%m/%Y"),
            d.strftime("%m/%d/%Y"),
        ]
    )


def _filler(
    p: dict[str, str], rng: random.Random, fk: Any, template: str
) -> dict[str, Callable[[], list[tuple[str, str | None]]]]:
    """Placeholder -> a function giving the filled pieces, each (text, type or None)."""
    birth_context = re.search(r"(?i)birth|born", re.sub(r"{{\w+}}", "", template)) is not None
    street = " ".join(p["StreetAddress"].split())

    def one(kind: str | None, value: str) -> Callable[[], list[tuple[str, str | None]]]:
        return lambda: [(value, kind)]

    name = [(p["GivenName"], "PERSON"), (" ", "PERSON"), (p["Surname"], "PERSON")]
    full = [(f"{street}, {p['City']}, {p['State']} {p['ZipCode']}".strip(), "ADDRESS")]
    dob = _dob(rng, fk.date_of_birth())
    return {
        **{k: (lambda: name) for k in ("person", "name", "name_female", "name_male")},
        **{
            k: one("PERSON", p["GivenName"])
            for k in ("first_name", "first_name_male", "first_name_female", "first_name_nonbinary")
        },
        **{
            k: one("PERSON", p["Surname"])
            for k in ("last_name", "last_name_male", "last_name_female")
        },
        "address": lambda: full,
        "street_name": one("STREET_ADDRESS", street),
        "building_number": lambda: [],
        "secondary_address": one("STREET_ADDRESS", fk["en_US"].secondary_address()),
        "postcode": one("OTHER:POSTCODE", p["ZipCode"]),
        "zipcode": one("OTHER:POSTCODE", p["ZipCode"]),
        "city": one("LOCATION", p["City"]),
        "country": one("LOCATION", p["CountryFull"]),
        "state_abbr": one("OTHER:STATE", p["State"]),
        "organization": one("COMPANY", p["Company"]),
        "phone_number": one("PHONE_NUMBER", p["TelephoneNumber"]),
        "email": one("EMAIL_ADDRESS", p["EmailAddress"]),
        "credit_card_number": one("CREDIT_CARD", fk.credit_card_number()),
        "iban": one("IBAN_CODE", fk.iban()),
        "ssn": one("ID:SSN", fk["en_US"].ssn()),
        "us_driver_license": one("ID:DRIVER_LICENSE", fk["en_US"].bothify("?#######").upper()),
        "ip_address": one("IP_ADDRESS", fk.ipv4_public()),
        "date_of_birth": one("DATE_OF_BIRTH" if birth_context else "OTHER:DATE", dob),
        "job": one("OTHER:JOB", p["Occupation"]),
        "nationality": one(None, fk.country()),
        "nation_woman": one(None, "French woman"),
        "nation_plural": one(None, "Italians"),
        "age": one(None, str(rng.randint(18, 90))),
        "year": one(None, str(rng.randint(1990, 2024))),
        "url": one(None, fk.url()),
        "day_of_week": one(None, fk.day_of_week()),
        "prefix": one(None, p["Title"]),
        "prefix_male": one(None, "Mr."),
        "prefix_female": one(None, "Mrs."),
        "date_time": one("OTHER:DATE", str(fk.date_this_year())),
    }


def fill_template(
    template: str, person: dict[str, str], rng: random.Random, fk: Any, doc_id: str
) -> LabelledText:
    """One template filled with one FakeNameGenerator record (Faker, seeded, for cards, IBANs,
    SSNs, licences, IPs and dates), with the spans of what was filled in."""
    fill = _filler(person, rng, fk, template)
    template = template.replace("{{building_number}} {{street_name}}", "{{street_name}}")
    text, spans, pos = "", [], 0
    for m in re.finditer(r"{{(\w+)}}", template):
        text += template[pos : m.start()]
        pos = m.end()
        pieces = fill[m.group(1)]() if m.group(1) in fill else [(m.group(0), None)]
        start = len(text)
        for value, kind in pieces:
            if kind and kind != "PERSON":
                spans.append((len(text), len(text) + len(value), kind))
            text += value
        person_parts = [v for v, k in pieces if k == "PERSON" and v.strip()]
        if person_parts:  # one span for the whole name
            spans.append((start, len(text), "PERSON"))
    text += template[pos:]
    return LabelledText(text, _strip_overlaps(spans), TEMPLATES, doc_id)


def load_templates(
    limit: int | None = 400, seed: int = 21, where: str | Path | None = None
) -> list[LabelledText]:
    """``limit`` samples of the presidio-evaluator templates (each template in turn, then
    again), filled deterministically from ``seed`` with its FakeNameGenerator records."""
    from faker import Faker

    templates, people = evaluator_files(where)
    fk = Faker(["en_US", "en_GB", "de_DE", "fr_FR", "it_IT", "es_ES", "nl_NL"])
    fk.seed_instance(seed)
    rng = random.Random(seed)
    n = len(templates) if limit is None else limit
    return [
        fill_template(templates[i % len(templates)], rng.choice(people), rng, fk, f"tpl-{i:05d}")
        for i in range(n)
    ]


# ------------------------------------------------------------------------------------ tau files
def tau_user_values(uid: str, user: Mapping[str, Any]) -> set[tuple[str, str]]:
    """The personal values of one tau-bench user record, as (type, value); a card's last four
    digits as ``CARD_LAST4`` (``OTHER:CARD_LAST4`` in the labelled texts)."""
    vals = {("USER_ID", uid), ("EMAIL_ADDRESS", user["email"])}
    if user.get("dob"):  # the retail users have none
        vals.add(("DATE_OF_BIRTH", user["dob"]))
    name = user.get("name") or {}
    for part in ("first_name", "last_name"):
        if name.get(part):
            vals.add(("PERSON", name[part]))
    addr = user.get("address") or {}
    for part in ("address1", "address2"):
        if addr.get(part):
            vals.add(("STREET_ADDRESS", addr[part]))
    for pm in (user.get("payment_methods") or {}).values():
        if pm.get("last_four"):
            vals.add(("CARD_LAST4", pm["last_four"]))
    for p in user.get("saved_passengers") or []:
        for part in ("first_name", "last_name"):
            if p.get(part):
                vals.add(("PERSON", p[part]))
        if p.get("dob"):
            vals.add(("DATE_OF_BIRTH", p["dob"]))
    return vals


def tau_address_parts(user: Mapping[str, Any]) -> set[tuple[str, str]]:
    """The city, state, zip and country of a tau user's postal address as
    ``OTHER:ADDRESS_PART``: part of the person's address, so neither a non-personal word when
    masked with it, nor a recall figure (the same city named elsewhere in the log is no leak)."""
    addr = user.get("address") or {}
    parts = ("city", "state", "zip", "country")
    return {("OTHER:ADDRESS_PART", addr[p]) for p in parts if addr.get(p)}


#: corpus name -> (results file glob under external_root(), users file, task type)
TAU_FILES = {
    TAU_AIRLINE: ("tau-bench/gpt-4o-airline.json", "tau-bench/airline-users.json", "airline"),
    TAU_RETAIL: (
        "tau-bench-retail/tool-calling-none-*.json",
        "tau-bench-retail/retail-users.json",
        "retail",
    ),
    TAU2_AIRLINE: ("tau2-airline/airline_run1.json", "tau-bench/airline-users.json", "airline"),
}


def tau_paths(corpus: str) -> tuple[Path, Path, str] | None:
    """(results file, users file, task type) of a tau corpus, or None when absent."""
    pattern, users, task = TAU_FILES[corpus]
    root = external_root()
    files = sorted(root.glob(pattern))
    if not files or not (root / users).exists():
        return None
    return files[0], root / users, task


#: tau truth kinds outside the taxonomy.
_TAU_TYPES = {"CARD_LAST4": "OTHER:CARD_LAST4"}


def _value_spans(text: str, values: Iterable[tuple[str, str]]) -> list[Span]:
    spans: list[Span] = []
    for kind, v in sorted(values, key=lambda kv: -len(kv[1])):
        for m in re.finditer(rf"(?<!\w){re.escape(v)}(?!\w)", text, re.IGNORECASE):
            spans.append((m.start(), m.end(), kind))
    return _strip_overlaps(spans)


def load_tau(corpus: str, limit: int | None = None) -> list[LabelledText]:
    """One labelled text per non-empty string cell of the first ``limit`` episodes of a tau
    file (steps parsed by the ingest formats); spans = occurrences of the episode user's values
    (word-bounded, case-insensitive). ``doc_id`` = ``<corpus>-<episode>-<row>-<column>``."""
    from agentic_pipeline.masking import MASK_COLUMNS

    from .evaluation import benchmark_file_corpus

    paths = tau_paths(corpus)
    if paths is None:
        return []
    results, users, task = paths
    lc = benchmark_file_corpus(results, users, limit=limit, task_type=task)
    eps = lc.table.column("episode_id").to_pylist()
    out: list[LabelledText] = []
    for col in MASK_COLUMNS:
        if col not in lc.table.column_names:
            continue
        for row, (e, v) in enumerate(zip(eps, lc.table.column(col).to_pylist(), strict=True)):
            if isinstance(v, str) and v.strip():
                values = {(_TAU_TYPES.get(k, k), x) for k, x in lc.planted.get(e, set())}
                spans = _value_spans(v, values)
                out.append(LabelledText(v, spans, corpus, f"{corpus}-{e}-{row}-{col}"))
    return out


# ------------------------------------------------------------------- the repo's labelled corpora
#: The hand-labelled corpora's data: one JSON object a line (see ``fresh_corpus/README.md``).
FRESH_BLIND_FILE = Path(__file__).resolve().parents[1] / "fresh_corpus" / "fresh_blind.jsonl"
FRESH_BLIND_2_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_2.jsonl")
FRESH_BLIND_3_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_3.jsonl")
FRESH_BLIND_4_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_4.jsonl")
FRESH_BLIND_5_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_5.jsonl")
FRESH_BLIND_6_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_6.jsonl")
FRESH_BLIND_7_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_7.jsonl")
FRESH_BLIND_8_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_8.jsonl")
FRESH_BLIND_9_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_9.jsonl")
FRESH_BLIND_10_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_10.jsonl")
FRESH_BLIND_11_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_11.jsonl")
FRESH_BLIND_12_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_12.jsonl")
FRESH_BLIND_13_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_13.jsonl")
FRESH_BLIND_14_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_14.jsonl")
FRESH_BLIND_15_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_15.jsonl")
FRESH_BLIND_16_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_16.jsonl")
FRESH_BLIND_17_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_17.jsonl")
FRESH_BLIND_18_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_18.jsonl")
FRESH_BLIND_19_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_19.jsonl")
FRESH_BLIND_20_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_20.jsonl")
FRESH_BLIND_21_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_21.jsonl")
FRESH_BLIND_22_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_22.jsonl")
FRESH_BLIND_23_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_23.jsonl")
FRESH_BLIND_24_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_24.jsonl")
FRESH_BLIND_25_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_25.jsonl")
FRESH_BLIND_26_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_26.jsonl")
FRESH_BLIND_27_FILE = FRESH_BLIND_FILE.with_name("fresh_blind_27.jsonl")


def _label_spans(text: str, labels: list[list[Any]], doc_id: str) -> list[Span]:
    """Spans of ``[type, value]`` labels (every case-sensitive, word-bounded occurrence of the
    value) and ``[type, value, n]`` labels (its ``n``-th occurrence only); a label whose value is
    not in the text, or of a type outside the taxonomy, is an error."""
    spans: list[Span] = []
    for label in labels:
        kind, value = label[0], label[1]
        if not (is_personal(kind) or kind in NON_PERSONAL or kind.startswith("OTHER:")):
            raise ValueError(f"{doc_id}: label type {kind!r} is outside the taxonomy")
        rx = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")
        found = [m.span() for m in rx.finditer(text)]
        if len(label) > 2:
            n = label[2]
            found = found[n : n + 1] if isinstance(n, int) and n >= 0 else []
        if not value.strip() or not found:
            raise ValueError(f"{doc_id}: label {kind} {value!r} is not in the text")
        spans += [(a, b, kind) for a, b in found]
    return _strip_overlaps(spans)


def _load_labelled_jsonl(path: Path, corpus: str, limit: int | None) -> list[LabelledText]:
    """The records of a hand-labelled JSONL corpus (``id``, ``text``, ``labels``) as labelled
    texts; ``doc_id`` is the record's ``id``."""
    out: list[LabelledText] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            spans = _label_spans(rec["text"], rec["labels"], rec["id"])
            out.append(LabelledText(rec["text"], spans, corpus, rec["id"]))
    return _take(out, limit)


def load_fresh_blind(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The first corpus written blind to the masking rules (forms, letters, financial payloads,
    medical notes, provider directories, social posts, ambiguity probes, other agents' logs;
    ``benchmarks/fresh_corpus/README.md``); development since fresh-blind-3 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_FILE), FRESH_BLIND, limit)


def load_fresh_blind_2(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The second, written blind to the masking rules and to the first one (same genres);
    development since fresh-blind-3 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_2_FILE), FRESH_BLIND_2, limit)


def load_fresh_blind_3(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The third, written blind to the masking rules and to the first two (their genres and
    chat transcripts); development since fresh-blind-4 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_3_FILE), FRESH_BLIND_3, limit)


def load_fresh_blind_4(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The fourth, written blind to the masking rules and to the first three (their genres);
    development since fresh-blind-5 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_4_FILE), FRESH_BLIND_4, limit)


def load_fresh_blind_5(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The fifth, written blind to the masking rules and to the first four (their genres in new
    settings); development since fresh-blind-6 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_5_FILE), FRESH_BLIND_5, limit)


def load_fresh_blind_6(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The sixth, written blind to the masking rules and to the first five (their genres in
    other settings); development since fresh-blind-7 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_6_FILE), FRESH_BLIND_6, limit)


def load_fresh_blind_7(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The seventh, written blind to the masking rules and to the first six (their genres in
    other settings, 27 languages); development since fresh-blind-8 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_7_FILE), FRESH_BLIND_7, limit)


def load_fresh_blind_8(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The eighth, written blind to the masking rules and to the first seven (the same eight
    genres, 34 languages); development since fresh-blind-9 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_8_FILE), FRESH_BLIND_8, limit)


def load_fresh_blind_9(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The ninth, written blind to the masking rules and to the first eight (the same eight
    genres, 45 languages); development since fresh-blind-10 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_9_FILE), FRESH_BLIND_9, limit)


def load_fresh_blind_10(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The tenth, written blind to the masking rules and to the first nine (the same eight
    genres, 60 languages); development since fresh-blind-11 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_10_FILE), FRESH_BLIND_10, limit)


def load_fresh_blind_11(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The eleventh, written blind to the masking rules and to the first ten (the same eight
    genres, 41 languages); development since fresh-blind-12 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_11_FILE), FRESH_BLIND_11, limit)


def load_fresh_blind_12(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twelfth, written blind to the masking rules and to the first eleven (the same eight
    genres, 56 languages); development since fresh-blind-13 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_12_FILE), FRESH_BLIND_12, limit)


def load_fresh_blind_13(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The thirteenth, written blind to the masking rules and to the first twelve (the same eight
    genres, 49 languages); development since fresh-blind-14 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_13_FILE), FRESH_BLIND_13, limit)


def load_fresh_blind_14(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The fourteenth, written blind to the masking rules and to the first thirteen (the same
    eight genres, 54 languages); development since fresh-blind-15 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_14_FILE), FRESH_BLIND_14, limit)


def load_fresh_blind_15(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The fifteenth, written blind to the masking rules and to the first fourteen (the same eight
    genres, 54 languages); development since fresh-blind-16 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_15_FILE), FRESH_BLIND_15, limit)


def load_fresh_blind_16(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The sixteenth, written blind to the masking rules and to the first fifteen (the same eight
    genres, 51 languages); development since fresh-blind-17 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_16_FILE), FRESH_BLIND_16, limit)


def load_fresh_blind_17(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The seventeenth, written blind to the masking rules and to the first sixteen (the same eight
    genres, 45 languages); development since fresh-blind-18 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_17_FILE), FRESH_BLIND_17, limit)


def load_fresh_blind_18(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The eighteenth, written blind to the masking rules and to the first seventeen (the same
    eight genres, 43 languages); development since fresh-blind-19 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_18_FILE), FRESH_BLIND_18, limit)


def load_fresh_blind_19(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The nineteenth, written blind to the masking rules and to the first eighteen (the same
    eight genres, 50 languages); development since fresh-blind-20 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_19_FILE), FRESH_BLIND_19, limit)


def load_fresh_blind_20(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twentieth, written blind to the masking rules and to the first nineteen (the same
    eight genres, 65 languages); development since fresh-blind-21 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_20_FILE), FRESH_BLIND_20, limit)


def load_fresh_blind_21(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twenty-first, written blind to the masking rules and to the first twenty (the same
    eight genres, 62 languages; ``benchmarks/fresh_corpus/README.md``); development since
    fresh-blind-22 was written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_21_FILE), FRESH_BLIND_21, limit)


def load_fresh_blind_22(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twenty-second, written blind to the masking rules and to the first twenty-one (62
    languages; ``benchmarks/fresh_corpus/README.md``); development since the session that had
    fresh-blind-23 written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_22_FILE), FRESH_BLIND_22, limit)


def load_fresh_blind_23(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twenty-third, written blind to the masking rules and to the first twenty-two (46
    languages; ``benchmarks/fresh_corpus/README.md``); development since the session that had
    fresh-blind-24 written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_23_FILE), FRESH_BLIND_23, limit)


def load_fresh_blind_24(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twenty-fourth, written blind to the masking rules and to the first twenty-three (52
    languages; ``benchmarks/fresh_corpus/README.md``); development since the session that had
    fresh-blind-25 written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_24_FILE), FRESH_BLIND_24, limit)


def load_fresh_blind_25(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twenty-fifth, written blind to the masking rules and to the first twenty-four (46
    languages; ``benchmarks/fresh_corpus/README.md``); development since the session that had
    fresh-blind-26 written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_25_FILE), FRESH_BLIND_25, limit)


def load_fresh_blind_26(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twenty-sixth, written blind to the masking rules and to the first twenty-five (56
    languages; ``benchmarks/fresh_corpus/README.md``); development since the session that had
    fresh-blind-27 written."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_26_FILE), FRESH_BLIND_26, limit)


def load_fresh_blind_27(
    limit: int | None = None, path: str | Path | None = None
) -> list[LabelledText]:
    """The twenty-seventh, held out, written blind to the masking rules and to the first
    twenty-six (80 languages; ``benchmarks/fresh_corpus/README.md``)."""
    return _load_labelled_jsonl(Path(path or FRESH_BLIND_27_FILE), FRESH_BLIND_27, limit)


# ------------------------------------------------------------------------------------- registry
LOADERS: dict[str, Callable[..., list[LabelledText]]] = {
    CONTEXTUAL: load_contextual_anonymizer,
    BTC: load_btc,
    NANNIGALAXY: load_nannigalaxy,
    DLP: load_dlp_support_chat,
    TEMPLATES: load_templates,
    TAU_AIRLINE: lambda limit=None: load_tau(TAU_AIRLINE, limit),
    TAU_RETAIL: lambda limit=None: load_tau(TAU_RETAIL, limit),
    TAU2_AIRLINE: lambda limit=None: load_tau(TAU2_AIRLINE, limit),
    FRESH_BLIND: load_fresh_blind,
    FRESH_BLIND_2: load_fresh_blind_2,
    FRESH_BLIND_3: load_fresh_blind_3,
    FRESH_BLIND_4: load_fresh_blind_4,
    FRESH_BLIND_5: load_fresh_blind_5,
    FRESH_BLIND_6: load_fresh_blind_6,
    FRESH_BLIND_7: load_fresh_blind_7,
    FRESH_BLIND_8: load_fresh_blind_8,
    FRESH_BLIND_9: load_fresh_blind_9,
    FRESH_BLIND_10: load_fresh_blind_10,
    FRESH_BLIND_11: load_fresh_blind_11,
    FRESH_BLIND_12: load_fresh_blind_12,
    FRESH_BLIND_13: load_fresh_blind_13,
    FRESH_BLIND_14: load_fresh_blind_14,
    FRESH_BLIND_15: load_fresh_blind_15,
    FRESH_BLIND_16: load_fresh_blind_16,
    FRESH_BLIND_17: load_fresh_blind_17,
    FRESH_BLIND_18: load_fresh_blind_18,
    FRESH_BLIND_19: load_fresh_blind_19,
    FRESH_BLIND_20: load_fresh_blind_20,
    FRESH_BLIND_21: load_fresh_blind_21,
    FRESH_BLIND_22: load_fresh_blind_22,
    FRESH_BLIND_23: load_fresh_blind_23,
    FRESH_BLIND_24: load_fresh_blind_24,
    FRESH_BLIND_25: load_fresh_blind_25,
    FRESH_BLIND_26: load_fresh_blind_26,
    FRESH_BLIND_27: load_fresh_blind_27,
}
#: The four outsider corpora of ``pii-dev/``, the evaluator templates and the first twenty-six
#: hand-labelled corpora (text corpora); the tau files are whole agent logs (``limit`` counts
#: episodes there).
TEXT_CORPORA = (
    CONTEXTUAL,
    BTC,
    NANNIGALAXY,
    DLP,
    TEMPLATES,
    FRESH_BLIND,
    FRESH_BLIND_2,
    FRESH_BLIND_3,
    FRESH_BLIND_4,
    FRESH_BLIND_5,
    FRESH_BLIND_6,
    FRESH_BLIND_7,
    FRESH_BLIND_8,
    FRESH_BLIND_9,
    FRESH_BLIND_10,
    FRESH_BLIND_11,
    FRESH_BLIND_12,
    FRESH_BLIND_13,
    FRESH_BLIND_14,
    FRESH_BLIND_15,
    FRESH_BLIND_16,
    FRESH_BLIND_17,
    FRESH_BLIND_18,
    FRESH_BLIND_19,
    FRESH_BLIND_20,
    FRESH_BLIND_21,
    FRESH_BLIND_22,
    FRESH_BLIND_23,
    FRESH_BLIND_24,
    FRESH_BLIND_25,
    FRESH_BLIND_26,
)
TAU_CORPORA = (TAU_AIRLINE, TAU_RETAIL, TAU2_AIRLINE)
#: Corpora measured, never trained or tuned on (not in the two tuples above).
HELD_OUT_CORPORA = (FRESH_BLIND_27,)


def available() -> bool:
    """Whether the development data is there (``external_root()/pii-dev``)."""
    return (external_root() / "pii-dev").is_dir()


def load(corpus: str, limit: int | None = None) -> list[LabelledText]:
    """The labelled texts of one corpus by name (``LOADERS``)."""
    return LOADERS[corpus](limit=limit)
