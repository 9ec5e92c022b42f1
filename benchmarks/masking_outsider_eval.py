"""Masking measured on text written outside this project, side by side with plain Presidio.

Corpora (all with the personal values known):

* ``templates``: the sentence templates of the ``presidio-evaluator`` package (written by the
  Presidio team) filled with its FakeNameGenerator records (names, street lines, postcodes,
  phones and emails of many countries, written by fakenamegenerator.com) and Faker values for
  cards, IBANs, SSNs, driver's licences, IPs and dates of birth; each sample is placed in a user
  turn, an assistant reply, a tool call's arguments or a JSON tool result. Each episode of four
  samples also gets a date of birth in context and a date that is not one (English; see below).
* ``locales``: seven European locales (en_GB, de_DE, fr_FR, es_ES, it_IT, nl_NL, pl_PL) in
  English frames; names, emails and birthdays from the FakeNameGenerator records of the locale's
  name sets (English/Scottish, German, French, ...), street lines, postcodes, cities, phones and
  national ids from the records of the locale's country; each episode also gets a date of birth
  in context and a date that is not one, in the locale's language or English.
* ``tau``: the real tau-bench airline and retail and tau2 airline files, with the users files as
  the truth (names, emails, street lines, user ids, card last fours, dates of birth).

Independence of the test data from the detectors (audit, issue #12):

* The only data list a detector reads is the name gazetteer (``name_gazetteer()`` in
  ``masking/detectors/patterns.py``), built from Faker's person providers. The locale corpus used to
  draw its names from Faker too, so its name recall (0.998) measured list membership. Its names
  now come from FakeNameGenerator records, which no detector reads; natural overlap stays (a
  real "Marie" is in both lists), and the line "PERSON not in the name gazetteer" reports the
  recall on the planted names the gazetteer does not hold. The templates corpus's names were
  already FakeNameGenerator's.
* Street lines and postcodes: ``StreetLineRecognizer``, ``street_address_recognizer`` and the
  postcode patterns are regular expressions with hand-written street words; they read no Faker
  or other list. Phones are checked with libphonenumber's numbering plans, not with a list.
* Faker still gives values that detectors check by pattern only (card numbers by Luhn, IBANs by
  mod-97 and length, SSNs, driver's licences, national ids where FakeNameGenerator has none, IPv4
  addresses, unit designators like "Apt. 123", other dates): no detector reads a Faker list for
  these.
* Caveat (development-set tuning, not circularity): several detector patterns were written from
  misses seen on the FakeNameGenerator file itself (the comments in ``detectors/patterns.py``
  quoted its street lines "Karu põik 61", "637 Strojírenská 1006", its names "Csanád
  Bernharðsson"). Figures on records that shaped a pattern are optimistic; an untouched source
  would be the fairer test.

Dates: dates of birth are written in varied phrasings, not only our recognizer's cue words ("born
on", "DOB:", "d.o.b.", "birthday", "My date of birth, as printed on my passport, is", "geboren am",
"Ich bin am ... geboren", "née le", "fecha de nacimiento", "nato il", "geboren op", "ur.") and as
JSON fields (``dob``, ``birth_date``, ``date_of_birth``, ``birthDate``, ``birthday``,
``DateOfBirth``), in numeric and month-name formats of each language; they are reported per
phrasing subset. Non-birth dates (flights, bookings, orders, deadlines; one in four an old date
such as a founding date, so that "old year" is no shortcut) are planted in text and JSON and the
share kept in clear is reported ("other dates stay"). On the tau files, every standalone date that
is not a known date of birth, not under a birth-date key and not right after a birth cue counts as
an other date (flight, reservation dates).

For each corpus: recall per entity type and the share of non-personal words masked (every
letters-only word of 3+ characters that is not part of a planted value), for ``mask_steps`` and for
plain Presidio (``AnalyzerEngine`` + ``AnonymizerEngine``, same spaCy model, built offline), the
date lines, and the throughput of both, start-up included. ``--show-misses N`` prints, per type, up
to N values left in clear with their context and the N non-personal words masked most often with
the token type they became (synthetic and public test data only).

presidio-evaluator is NOT a project dependency (it pulls in transformers); its data files are
read from its wheel without importing it. Get the wheel once (``pip download --no-deps
presidio-evaluator==0.3.2 -d /tmp/pe``) or install it with ``--no-deps``; pass ``--evaluator``.

    python benchmarks/masking_outsider_eval.py --evaluator /tmp/pe --samples 400 --tau 10
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import random
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: benchmarks.*

from masking import baseline_mask  # noqa: E402  (benchmarks/masking.py)

from agentic_pipeline.masking import MASK_COLUMNS, Masker, mask_steps  # noqa: E402
from agentic_pipeline.masking.pseudonyms import TOKEN_HEX_CHARS  # noqa: E402
from agentic_pipeline.schema import STEP_SCHEMA, parse_timestamp  # noqa: E402
from benchmarks.masking_eval import corpora  # noqa: E402
from benchmarks.masking_eval.evaluation import (  # noqa: E402
    LabeledCorpus,
    benchmark_file_corpus,
    measure_kept,
    measure_recall,
    other_dates,
    plain_text,
    tau_bench_corpus,
)
from benchmarks.masking_eval.misses import (  # noqa: E402
    WORD,
    lost_values,
    masked_words,
    missed_values,
    personal_words,
)

EXTERNAL = Path(__file__).resolve().parents[1].parent / "shared" / "external"
LOCALES = ("en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL")
#: Reported types (the issue's Done-when list); SSNs, driver's licences and national ids are one.
REPORT = {"US_SSN": "NATIONAL_ID", "ID_DOCUMENT": "NATIONAL_ID"}
TARGETS = {
    "PERSON": 0.97,
    "STREET_ADDRESS": 0.95,
    "EMAIL_ADDRESS": 0.99,
    "PHONE_NUMBER": 0.99,
    "CREDIT_CARD": 0.99,
    "IBAN_CODE": 0.99,
    "NATIONAL_ID": 0.99,
    "IP_ADDRESS": 0.99,
    "DATE_OF_BIRTH": 0.95,
}
#: A token of ours (``<PERSON_1a2b3c4d>``) or of plain Presidio (``<PERSON>``): not a kept word.
#: Share of non-birth dates that must stay in clear.
OTHER_DATES_TARGET = 0.99
_TOKEN = re.compile(rf"<[A-Z][A-Z0-9_]*?(?:_[0-9a-f]{{{TOKEN_HEX_CHARS}}})?>")


# --------------------------------------------------------------------------- evaluator data
def evaluator_files(where: str | None) -> tuple[list[str], list[dict[str, str]]]:
    """(templates, FakeNameGenerator records) of presidio-evaluator (never imported)."""
    try:
        return corpora.evaluator_files(where)
    except FileNotFoundError as exc:
        raise SystemExit(str(exc)) from None


# --------------------------------------------------------------------------- corpus building
@dataclass
class Sample:
    """A text (or a JSON record) with the personal values it plants, the non-personal values
    that must stay in clear, and the name of the subset its dates of birth are reported in."""

    payload: str | dict[str, Any]
    planted: set[tuple[str, str]] = field(default_factory=set)
    kept: set[tuple[str, str]] = field(default_factory=set)
    subset: str | None = None


class _Builder:
    """Places texts in user turns, replies, tool arguments and JSON tool results in turn, and
    JSON records in tool calls' arguments and tool results in turn."""

    def __init__(self, ds: str, fmt: str) -> None:
        self.rows: list[dict[str, Any]] = []
        self.planted: dict[str, set[tuple[str, str]]] = {}
        self.kept: dict[str, set[tuple[str, str]]] = {}
        self.subsets: dict[str, dict[str, set[tuple[str, str]]]] = defaultdict(
            lambda: defaultdict(set)
        )
        self.ds, self.fmt = ds, fmt

    def episode(self, eid: str, samples: list[Sample]) -> None:
        steps: list[dict[str, Any]] = []
        vals: set[tuple[str, str]] = set()
        kept: set[tuple[str, str]] = set()
        call = n_text = n_json = 0
        for smp in samples:
            vals |= smp.planted
            kept |= smp.kept
            if smp.subset:
                self.subsets[smp.subset][eid] |= {p for p in smp.planted if p[0] == "DATE_OF_BIRTH"}
            if isinstance(smp.payload, dict):
                call += 1
                body = json.dumps(smp.payload, ensure_ascii=False)
                if n_json % 2 == 0:
                    steps.append(_tool_call("update_record", call, body))
                else:
                    steps.append(_tool_result("get_record", call, body))
                n_json += 1
                continue
            text, slot = smp.payload, n_text % 4
            n_text += 1
            if slot == 0:
                steps.append({"role": "user", "action_type": "message", "content": text})
            elif slot == 1:
                steps.append({"role": "assistant", "action_type": "message", "content": text})
            elif slot == 2:
                call += 1
                note = json.dumps({"note": text, "priority": 2}, ensure_ascii=False)
                steps.append(_tool_call("log_note", call, note))
            else:
                res = {"results": [{"snippet": text, "score": 0.87}]}
                steps.append(
                    _tool_result("search_records", call, json.dumps(res, ensure_ascii=False))
                )
        for n, st in enumerate(steps):
            self.rows.append(
                {
                    **st,
                    "episode_id": eid,
                    "step": n,
                    "ds": self.ds,
                    "source_format": self.fmt,
                    "source_index": len(self.planted),
                    "started_at": parse_timestamp(f"{self.ds}T10:00:00Z"),
                    "ts": parse_timestamp(f"{self.ds}T10:00:{n % 60:02d}Z"),
                }
            )
        self.planted[eid] = vals
        if kept:
            self.kept[eid] = kept

    def corpus(self) -> LabeledCorpus:
        return LabeledCorpus(
            pa.Table.from_pylist(self.rows, schema=STEP_SCHEMA),
            self.planted,
            len(self.planted),
            kept=self.kept,
            subsets={k: dict(v) for k, v in self.subsets.items()},
        )


def _tool_call(name: str, call: int, arguments: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "action_type": "tool_call",
        "tool_name": name,
        "tool_call_id": f"call_{call}",
        "tool_arguments": arguments,
    }


def _tool_result(name: str, call: int, content: str) -> dict[str, Any]:
    return {
        "role": "tool",
        "action_type": "tool_result",
        "tool_name": name,
        "tool_call_id": f"call_{call}",
        "content": content,
    }


# --------------------------------------------------------------------------- dates in context
_MONTHS = {
    "en": "January February March April May June July August September October November December",
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
    "diciembre",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre "
    "dicembre",
    "nl": "januari februari maart april mei juni juli augustus september oktober november december",
    "pl": "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października "
    "listopada grudnia",
}


def date_text(d: dt.date, lang: str, rng: random.Random) -> str:
    """``d`` written as people of ``lang`` write dates (numeric and with month names)."""
    month = _MONTHS[lang].split()[d.month - 1]
    forms = {
        "en": [
            d.isoformat(),
            f"{month} {d.day}, {d.year}",
            f"{d.day} {month} {d.year}",
            d.strftime("%d/%m/%Y"),
            d.strftime("%m/%d/%Y"),
        ],
        "de": [d.strftime("%d.%m.%Y"), f"{d.day}. {month} {d.year}", d.isoformat()],
        "fr": [d.strftime("%d/%m/%Y"), f"{d.day} {month} {d.year}"],
        "es": [d.strftime("%d/%m/%Y"), f"{d.day} de {month} de {d.year}"],
        "it": [d.strftime("%d/%m/%Y"), f"{d.day} {month} {d.year}"],
        "nl": [d.strftime("%d-%m-%Y"), f"{d.day} {month} {d.year}"],
        "pl": [d.strftime("%d.%m.%Y"), f"{d.day} {month} {d.year}"],
    }[lang]
    return rng.choice(forms)


#: Dates of birth in context, written the ways people write them (not only the cue words of our
#: recognizer): the cue before or after the date, abbreviations, other languages.
DOB_PHRASES = {
    "en": (
        "I was born on {d}.",
        "DOB: {d}",
        "My date of birth is {d}, if you need it for the booking.",
        "Birthday: {d}",
        "Her birthday is {d}, she turns older every year like the rest of us.",
        "d.o.b. {d} - please double-check",
        "Birth date on the passport: {d}",
        "He was born {d} in a small town by the sea.",
        "For verification purposes, date of birth {d}.",
        "My DOB is {d}.",
        "born: {d}",
        "The passenger (born {d}) travels alone.",
        "My date of birth, as printed on my passport, is {d}.",
        "Birthdate {d}.",
    ),
    "de": (
        "Ich bin am {d} geboren.",
        "geboren am {d}",
        "Geburtsdatum: {d}",
        "geb. {d}",
        "Mein Geburtstag ist der {d}.",
    ),
    "fr": (
        "Je suis né le {d}.",
        "Elle est née le {d}.",
        "Date de naissance : {d}",
        "date de naissance {d}, merci de vérifier",
    ),
    "es": (
        "Nací el {d}.",
        "Fecha de nacimiento: {d}",
        "nacido el {d}",
        "Mi fecha de nacimiento es {d}.",
    ),
    "it": (
        "Sono nato il {d}.",
        "nata il {d}",
        "Data di nascita: {d}",
        "La mia data di nascita è {d}.",
    ),
    "nl": ("Ik ben geboren op {d}.", "Geboortedatum: {d}", "geboren op {d}"),
    "pl": ("Urodziłem się {d}.", "Data urodzenia: {d}", "ur. {d}", "urodzona {d}"),
}
#: Dates that are not birth dates (bookings, flights, orders, deadlines, history).
OTHER_DATE_PHRASES = {
    "en": (
        "Your flight on {d} departs at 09:40 from gate B12.",
        "The booking was made on {d}.",
        "Please send the documents before the deadline of {d}.",
        "Order 48213, placed on {d}, has shipped.",
        "The reservation was changed on {d}.",
        "Invoice dated {d}, total 113.71 EUR.",
        "Our fare rules were last updated on {d}.",
        "Check-in at the hotel is on {d} after 3 pm.",
        "Your membership started on {d}.",
    ),
    "de": (
        "Ihr Flug am {d} startet um 9:40 Uhr.",
        "Die Bestellung vom {d} wurde versandt.",
        "Bitte antworten Sie bis zum {d}.",
        "Die Buchung wurde am {d} geändert.",
    ),
    "fr": (
        "Votre vol du {d} part à 9h40.",
        "Commande passée le {d}, expédiée hier.",
        "Date limite : {d}.",
        "La réservation a été modifiée le {d}.",
    ),
    "es": (
        "Su vuelo del {d} sale a las 9:40.",
        "Pedido realizado el {d}.",
        "Fecha límite: {d}.",
        "La reserva se modificó el {d}.",
    ),
    "it": (
        "Il suo volo del {d} parte alle 9:40.",
        "Ordine del {d} spedito.",
        "Scadenza: {d}.",
        "La prenotazione è stata modificata il {d}.",
    ),
    "nl": (
        "Uw vlucht op {d} vertrekt om 9:40.",
        "De bestelling van {d} is verzonden.",
        "Deadline: {d}.",
        "De boeking is op {d} gewijzigd.",
    ),
    "pl": (
        "Lot w dniu {d} odlatuje o 9:40.",
        "Zamówienie z dnia {d} zostało wysłane.",
        "Termin: {d}.",
        "Rezerwację zmieniono {d}.",
    ),
}
#: Old dates that are not birth dates (history, contracts).
OLD_DATE_PHRASES = {
    "en": (
        "The company was founded on {d}.",
        "This policy has been in force since {d}.",
        "The lease signed on {d} is still valid.",
    ),
    "de": ("Die Firma wurde am {d} gegründet.", "Der Vertrag vom {d} gilt weiterhin."),
    "fr": ("La société a été fondée le {d}.", "Le contrat du {d} est toujours valable."),
    "es": ("La empresa se fundó el {d}.", "El contrato del {d} sigue vigente."),
    "it": ("L'azienda è stata fondata il {d}.", "Il contratto del {d} è ancora valido."),
    "nl": ("Het bedrijf is opgericht op {d}.", "Het contract van {d} is nog geldig."),
    "pl": ("Firma została założona {d}.", "Umowa z dnia {d} jest nadal ważna."),
}
#: JSON fields of a date of birth, as tools name them (snake, camel, nested).
_DOB_KEYS = ("dob", "birth_date", "date_of_birth", "birthDate", "birthday", "DateOfBirth")
#: JSON fields of other dates.
_OTHER_KEYS = ("flight_date", "order_date", "deadline", "date", "created_at", "departureDate")


def _rand_date(rng: random.Random, first: int, last: int) -> dt.date:
    return dt.date(rng.randint(first, last), rng.randint(1, 12), rng.randint(1, 28))


def dob_sample(
    rng: random.Random, lang: str, born: dt.date, who: tuple[str, str] | None = None
) -> Sample:
    """A date of birth in a sentence (``lang`` or English) or in a JSON tool record. ``who``
    (first, last) adds the person's name to the JSON record (then planted too)."""
    r = rng.random()
    if r < 0.3:
        key = rng.choice(_DOB_KEYS)
        d = born.isoformat() if rng.random() < 0.7 else date_text(born, "en", rng)
        rec: dict[str, Any] = {key: d, "status": "verified"}
        planted = {("DATE_OF_BIRTH", d)}
        if who:
            rec = {"passenger": {"first_name": who[0], "last_name": who[1], **rec}}
            planted |= {("PERSON", who[0]), ("PERSON", who[1])}
        return Sample(rec, planted, subset="DOB in JSON fields")
    phr_lang = lang if r < 0.75 or lang == "en" else "en"
    d = date_text(born, phr_lang, rng)
    text = rng.choice(DOB_PHRASES[phr_lang]).format(d=d)
    label = "DOB in English text" if phr_lang == "en" else "DOB in other languages"
    return Sample(text, {("DATE_OF_BIRTH", d)}, subset=label)


def other_date_sample(rng: random.Random, lang: str) -> Sample:
    """A non-birth date in a sentence or a JSON tool record: must stay in clear. One in four is
    an old date (a founding date, a contract), so that "old year" is no shortcut to "birth"."""
    old = rng.random() < 0.25
    day = _rand_date(rng, 1950, 2005) if old else _rand_date(rng, 2022, 2027)
    if not old and rng.random() < 0.3:
        d = day.isoformat()
        key = rng.choice(_OTHER_KEYS)
        rec = {"reservation_id": "ZFA04Y", key: d, "cabin": "economy", "status": "confirmed"}
        return Sample(rec, kept={("OTHER_DATE", d)})
    phr_lang = lang if rng.random() < 0.7 else "en"
    d = date_text(day, phr_lang, rng)
    phrases = (OLD_DATE_PHRASES if old else OTHER_DATE_PHRASES)[phr_lang]
    return Sample(rng.choice(phrases).format(d=d), kept={("OTHER_DATE", d)})


def _dob_text(d: Any, rng: random.Random) -> str:
    return rng.choice(
        [
            d.isoformat(),
            d.strftime("%B %d, %Y").replace(" 0", " "),
            d.strftime("%d/%m/%Y"),
            d.strftime("%m/%d/%Y"),
            d.strftime("%d %B %Y"),
        ]
    )


def template_corpus(
    templates: list[str], people: list[dict[str, str]], n: int, seed: int
) -> LabeledCorpus:
    """``n`` samples from the evaluator templates, four per episode, each episode with a date of
    birth in context and a date that is not one (English; no names in them, so that the
    templates' own name figures stay the templates')."""
    from faker import Faker

    fk = Faker(["en_US", "en_GB", "de_DE", "fr_FR", "it_IT", "es_ES", "nl_NL"])
    fk.seed_instance(seed)
    rng = random.Random(seed)
    b = _Builder("2026-11-20", "outsider_templates")
    samples = []
    for _ in range(n):
        t = rng.choice(templates)
        p = rng.choice(people)
        planted: set[tuple[str, str]] = set()
        kept: set[tuple[str, str]] = set()
        dob_ctx = re.search(r"(?i)birth|born", re.sub(r"{{\w+}}", "", t)) is not None

        def person(p=p, planted=planted) -> str:
            planted.update({("PERSON", p["GivenName"]), ("PERSON", p["Surname"])})
            return f"{p['GivenName']} {p['Surname']}"

        def street(p=p, planted=planted) -> str:
            planted.add(("STREET_ADDRESS", p["StreetAddress"]))
            return p["StreetAddress"]

        def postcode(p=p, planted=planted) -> str:
            if len(re.sub(r"\W", "", p["ZipCode"])) >= 4:
                planted.add(("STREET_ADDRESS", p["ZipCode"]))
            return p["ZipCode"]

        def phone(p=p, planted=planted) -> str:
            planted.add(("PHONE_NUMBER", p["TelephoneNumber"]))
            return p["TelephoneNumber"]

        def put(et: str, v: str, planted=planted) -> str:
            planted.add((et, v))
            return v

        fill = {
            "person": person,
            "name": person,
            "name_female": person,
            "name_male": person,
            "first_name": lambda p=p, put=put: put("PERSON", p["GivenName"]),
            "first_name_male": lambda p=p, put=put: put("PERSON", p["GivenName"]),
            "first_name_female": lambda p=p, put=put: put("PERSON", p["GivenName"]),
            "first_name_nonbinary": lambda p=p, put=put: put("PERSON", p["GivenName"]),
            "last_name": lambda p=p, put=put: put("PERSON", p["Surname"]),
            "last_name_male": lambda p=p, put=put: put("PERSON", p["Surname"]),
            "last_name_female": lambda p=p, put=put: put("PERSON", p["Surname"]),
            "address": lambda p=p, street=street, postcode=postcode: (
                f"{street()}, {p['City']}, {postcode()}"
            ),
            "street_name": street,
            "building_number": lambda: "",
            "postcode": postcode,
            "zipcode": postcode,
            "phone_number": phone,
            "email": lambda p=p, put=put: put("EMAIL_ADDRESS", p["EmailAddress"]),
            "credit_card_number": lambda put=put: put("CREDIT_CARD", fk.credit_card_number()),
            "iban": lambda put=put: put("IBAN_CODE", fk.iban()),
            "ssn": lambda put=put: put("US_SSN", fk["en_US"].ssn()),
            "us_driver_license": lambda put=put: put(
                "ID_DOCUMENT", fk["en_US"].bothify("?#######").upper()
            ),
            "ip_address": lambda put=put: put("IP_ADDRESS", fk.ipv4_public()),
            "date_of_birth": lambda put=put, dob_ctx=dob_ctx: (
                put("DATE_OF_BIRTH", _dob_text(fk.date_of_birth(), rng))
                if dob_ctx
                else _dob_text(fk.date_of_birth(), rng)
            ),
            "city": lambda p=p: p["City"],
            "country": lambda p=p: p["CountryFull"],
            "organization": lambda p=p: p["Company"],
            "job": lambda p=p: p["Occupation"],
            "nationality": lambda: fk.country(),
            "nation_woman": lambda: "French woman",
            "nation_plural": lambda: "Italians",
            "age": lambda: str(rng.randint(18, 90)),
            "year": lambda: str(rng.randint(1990, 2024)),
            "url": lambda: fk.url(),
            "day_of_week": lambda: fk.day_of_week(),
            "state_abbr": lambda p=p: p["State"],
            "secondary_address": lambda put=put: put(
                "STREET_ADDRESS", fk["en_US"].secondary_address()
            ),
            "prefix": lambda p=p: p["Title"],
            "prefix_male": lambda: "Mr.",
            "prefix_female": lambda: "Mrs.",
            "date_time": lambda kept=kept: _keep(kept, str(fk.date_this_year())),
        }
        if "{{street_name}}" in t and "{{building_number}}" in t:
            t = t.replace("{{building_number}} {{street_name}}", "{{street_name}}")
        text = re.sub(
            r"{{(\w+)}}", lambda m, fill=fill: fill.get(m.group(1), lambda: m.group(0))(), t
        )
        samples.append(Sample(text, planted, kept))
    for i in range(0, len(samples), 4):
        group = samples[i : i + 4]
        born = birthday(rng.choice(people))
        group += _date_pair(rng, "en", born, None, group)
        b.episode(f"tpl-{i // 4:05d}", group)
    return b.corpus()


def _keep(kept: set[tuple[str, str]], value: str) -> str:
    kept.add(("OTHER_DATE", value))
    return value


def birthday(person: dict[str, str]) -> dt.date:
    """A FakeNameGenerator record's ``Birthday`` (month/day/year)."""
    m, d, y = (int(x) for x in person["Birthday"].split("/"))
    return dt.date(y, m, d)


def _date_pair(
    rng: random.Random,
    lang: str,
    born: dt.date,
    who: tuple[str, str] | None,
    episode: list[Sample],
) -> list[Sample]:
    """A date of birth in context and a date that is not one, for one episode; the other date
    is drawn again while it equals a planted value of the episode."""
    dob = dob_sample(rng, lang, born, who)
    taken = {v.casefold() for smp in [*episode, dob] for _, v in smp.planted}
    other = other_date_sample(rng, lang)
    while any(v.casefold() in taken for _, v in other.kept):
        other = other_date_sample(rng, lang)
    return [dob, other]


_FRAMES = (
    "Hello, this is {name}. Please update my file.",
    "My name is {name} and I live at {street}, {postcode} {city}.",
    "You can call me on {phone} after six.",
    "The customer {name} asked for a callback at {phone}.",
    "Please send the refund to IBAN {iban}, account holder {name}.",
    "Her national id number is {nid}.",
    "I was born on {dob} in {city}.",
    "Card number {card} was declined yesterday.",
    "Write to {email} or post it to {street}, {postcode} {city}.",
    "{name} ({email}) moved to {street}, {postcode} {city}; new phone {phone}.",
    "name,email,phone\n{name},{email},{phone}",
    "Booking for {first} {last}: window seat, 2 bags, total 113.71000000000004 EUR.",
    "Customer: {last}, {first}\nAddress: {street}\n{postcode} {city}\nDate of birth: {dob}",
)


#: Per locale: the FakeNameGenerator name sets of its people, the country of their addresses
#: and phones, and the language of its date phrasings.
LOCALE_SOURCES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "en_GB": (("English", "Scottish"), "GB", "en"),
    "de_DE": (("German",), "DE", "de"),
    "fr_FR": (("French",), "FR", "fr"),
    "es_ES": (("Spanish",), "ES", "es"),
    "it_IT": (("Italian",), "IT", "it"),
    "nl_NL": (("Dutch",), "NL", "nl"),
    "pl_PL": (("Polish",), "PL", "pl"),
}
_TYPES = {
    "first": "PERSON",
    "last": "PERSON",
    "street": "STREET_ADDRESS",
    "postcode": "STREET_ADDRESS",
    "phone": "PHONE_NUMBER",
    "iban": "IBAN_CODE",
    "nid": "ID_DOCUMENT",
    "dob": "DATE_OF_BIRTH",
    "card": "CREDIT_CARD",
    "email": "EMAIL_ADDRESS",
}


def locale_corpus(people: list[dict[str, str]], n_per_locale: int, seed: int) -> LabeledCorpus:
    """Seven European locales, all values known, each episode four frames plus a date of birth
    in context and a date that is not one (in the locale's language or English).

    Names, emails and birthdays come from FakeNameGenerator records of the locale's name sets;
    street lines, postcodes, cities, phones and (where the record has one) national ids from
    records of the locale's country: none of them from Faker, whose person lists are the masking's
    name gazetteer. Faker (seeded, per locale) gives only values that detectors check by pattern:
    IBANs, card numbers and the national ids FakeNameGenerator lacks."""
    from faker import Faker

    rng = random.Random(seed)
    b = _Builder("2026-11-21", "outsider_locales")
    for loc, (namesets, country, lang) in LOCALE_SOURCES.items():
        names = [p for p in people if p["NameSet"] in namesets]
        homes = [p for p in people if p["Country"] == country]
        if not names or not homes:
            raise SystemExit(f"no FakeNameGenerator records for {loc} ({namesets}, {country})")
        fk = Faker(loc)
        fk.seed_instance(seed)
        samples: list[Sample] = []
        for _ in range(n_per_locale):
            who, home = rng.choice(names), rng.choice(homes)
            first, last = who["GivenName"], who["Surname"]
            v = {
                "first": first,
                "last": last,
                "name": f"{first} {last}",
                "street": " ".join(home["StreetAddress"].split()),
                "postcode": home["ZipCode"],
                "city": home["City"],
                "phone": home["TelephoneNumber"],
                "iban": fk.iban(),
                "nid": home["NationalID"] or fk.ssn(),
                "dob": date_text(birthday(who), "en", rng),
                "card": fk.credit_card_number(),
                "email": who["EmailAddress"],
            }
            frame = rng.choice(_FRAMES)
            planted = set()
            for key in re.findall(r"{(\w+)}", frame):
                if key == "name":
                    planted |= {("PERSON", first), ("PERSON", last)}
                elif key in _TYPES:
                    planted.add((_TYPES[key], v[key]))
            subset = "DOB in English text" if "{dob}" in frame else None
            samples.append(Sample(frame.format(**v), planted, subset=subset))
        for i in range(0, len(samples), 4):
            group = samples[i : i + 4]
            who = rng.choice(names)
            pair = (who["GivenName"], who["Surname"])
            group += _date_pair(rng, lang, birthday(who), pair, group)
            b.episode(f"{loc}-{i // 4:04d}", group)
    return b.corpus()


def tau_corpora(limit: int) -> list[tuple[str, LabeledCorpus]]:
    """The real tau-bench airline/retail and tau2 airline files present under ``EXTERNAL``."""
    out = []
    air = EXTERNAL / "tau-bench"
    if (air / "gpt-4o-airline.json").exists():
        out.append(
            (
                "tau-bench airline",
                tau_bench_corpus(
                    air / "gpt-4o-airline.json", air / "airline-users.json", limit=limit
                ),
            )
        )
    ret = EXTERNAL / "tau-bench-retail"
    files = sorted(ret.glob("tool-calling-none-*.json"))
    if files and (ret / "retail-users.json").exists():
        out.append(
            (
                "tau-bench retail",
                benchmark_file_corpus(
                    files[0], ret / "retail-users.json", limit=limit, task_type="retail"
                ),
            )
        )
    t2 = EXTERNAL / "tau2-airline" / "airline_run1.json"
    if t2.exists() and (air / "airline-users.json").exists():
        out.append(
            (
                "tau2 airline",
                benchmark_file_corpus(
                    t2, air / "airline-users.json", limit=limit, task_type="airline"
                ),
            )
        )
    for _, corpus in out:
        corpus.kept = other_dates(corpus.table, corpus.planted)
    return out


# --------------------------------------------------------------------------- measuring
def _texts(table: pa.Table) -> dict[str, list[str]]:
    eps = table.column("episode_id").to_pylist()
    out: dict[str, list[str]] = defaultdict(list)
    for c in MASK_COLUMNS:
        if c in table.column_names:
            for e, v in zip(eps, table.column(c).to_pylist(), strict=True):
                if isinstance(v, str) and v:
                    out[e].append(plain_text(v))
    return out


def overmasking(
    raw: pa.Table,
    masked: pa.Table,
    planted: dict[str, set[tuple[str, str]]],
) -> tuple[int, int]:
    """(non-personal word occurrences, how many of them were masked)."""
    before, after = _texts(raw), _texts(masked)
    personal = personal_words(raw, planted, MASK_COLUMNS)
    total = lost = 0
    for eid, texts in before.items():
        mine = personal.get(eid, set())
        cnt = Counter(w.lower() for t in texts for w in WORD.findall(t))
        kept = Counter(
            w.lower() for t in after.get(eid, []) for w in WORD.findall(_TOKEN.sub(" ", t))
        )
        for w, c in cnt.items():
            if w in mine:
                continue
            total += c
            lost += max(0, c - kept.get(w, 0))
    return total, lost


def grouped(fig: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = defaultdict(lambda: {"raw": 0, "leaked": 0})
    for et, d in fig.items():
        g = out[REPORT.get(et, et)]
        g["raw"] += d["raw"]
        g["leaked"] += d["leaked"]
    for d in out.values():
        d["recall"] = 1 - d["leaked"] / d["raw"] if d["raw"] else 1.0
    return dict(out)


def show_misses(corpus: LabeledCorpus, masked: pa.Table, n: int) -> None:
    """Print, per reported type, up to ``n`` planted values left in clear (with the masked text
    around them), up to ``n`` values that had to stay but were masked (other dates), and the
    ``n`` non-personal words masked most often (with their token type)."""
    misses = missed_values(corpus.table, masked, corpus.planted)
    by_type: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for et, rows in misses.items():
        by_type[REPORT.get(et, et)].extend(rows)
    for et in sorted(by_type):
        rows = by_type[et]
        print(f"-- missed {et}: {len(rows)} values in clear (first {min(n, len(rows))})")
        for eid, value, ctx in rows[:n]:
            print(f"   {value!r} in {eid}: {ctx}")
    for kind, rows in sorted(lost_values(corpus.table, masked, corpus.kept).items()):
        print(f"-- masked {kind} (must stay): {len(rows)} values (first {min(n, len(rows))})")
        for eid, value, ctx in rows[:n]:
            print(f"   {value!r} in {eid}: {ctx}")
    words = masked_words(corpus.table, masked, corpus.planted)
    total = sum(words.values())
    print(f"-- non-personal words masked: {total} (most frequent {min(n, len(words))})")
    for (w, kind), c in words.most_common(n):
        print(f"   {c:>4}  {w} -> {kind}")


def _date_lines(corpus: LabeledCorpus, ours: pa.Table, base: pa.Table) -> bool:
    """Dates of birth per phrasing subset, and the share of other dates kept in clear; whether
    the other-dates target is met."""
    if corpus.subsets:
        print(f"{'dates of birth in context':<28}{'occ.':>4}{'ours':>9}{'presidio':>10}")
    for label in sorted(corpus.subsets):
        sub = corpus.subsets[label]
        fo = measure_recall(corpus.table, ours, sub).get("DATE_OF_BIRTH")
        fb = measure_recall(corpus.table, base, sub).get("DATE_OF_BIRTH")
        if fo and fb:
            print(f"  {label:<26}{int(fo['raw']):>6}{fo['recall']:>9.3f}{fb['recall']:>10.3f}")
    if not corpus.kept:
        return True
    ko = measure_kept(corpus.table, ours, corpus.kept).get("OTHER_DATE")
    kb = measure_kept(corpus.table, base, corpus.kept).get("OTHER_DATE")
    if not ko or not kb:
        return True
    ok = ko["share"] >= OTHER_DATES_TARGET
    print(
        f"other dates stay (not birth dates): ours {ko['share']:.2%}, presidio {kb['share']:.2%} "
        f"(of {int(ko['raw'])}; target >= {OTHER_DATES_TARGET:.0%})  {'yes' if ok else 'NO'}"
    )
    return ok


def _gazetteer_line(corpus: LabeledCorpus, ours: pa.Table, base: pa.Table) -> None:
    """Recall on the planted names the masking's name gazetteer (Faker's person lists) does not
    hold: what the other name detectors find on their own."""
    names = _gazetteer_names()
    unlisted = {
        e: {(et, v) for et, v in vals if et == "PERSON" and not _listed(v, names)}
        for e, vals in corpus.planted.items()
    }
    fo = measure_recall(corpus.table, ours, unlisted).get("PERSON")
    fb = measure_recall(corpus.table, base, unlisted).get("PERSON")
    every = measure_recall(corpus.table, corpus.table, corpus.planted).get("PERSON")
    if not every:
        return
    if not fo or not fb:
        print(f"PERSON not in the name gazetteer: 0 of {int(every['raw'])} occurrences")
        return
    print(
        f"PERSON not in the name gazetteer: {int(fo['raw'])} of {int(every['raw'])} "
        f"occurrences, recall ours {fo['recall']:.3f}, presidio {fb['recall']:.3f}"
    )


def _gazetteer_names() -> frozenset[str]:
    from agentic_pipeline.masking.detectors.patterns import name_gazetteer

    firsts, lasts = name_gazetteer()
    return firsts | lasts


def _listed(name: str, names: frozenset[str]) -> bool:
    from agentic_pipeline.masking.pseudonyms import fold

    return all(fold(part) in names for part in name.split())


def evaluate(name: str, corpus: LabeledCorpus, workers: int, misses: int = 0) -> dict[str, Any]:
    """Mask with ours and with plain Presidio; print and return the figures."""
    n_str = sum(1 for ts in _texts(corpus.table).values() for _ in ts)
    t = time.perf_counter()
    with Masker(n_workers=workers) as masker:
        ours = mask_steps(corpus.table, masker, scan=False).masked
    t_ours = time.perf_counter() - t
    t = time.perf_counter()
    base = baseline_mask(corpus.table)
    t_base = time.perf_counter() - t
    r_ours = grouped(measure_recall(corpus.table, ours, corpus.planted))
    r_base = grouped(measure_recall(corpus.table, base, corpus.planted))
    o_tot, o_ours = overmasking(corpus.table, ours, corpus.planted)
    _, o_base = overmasking(corpus.table, base, corpus.planted)
    print(
        f"\n== {name}: {corpus.n_episodes} episodes, {corpus.table.num_rows} rows, {n_str} strings"
    )
    print(f"{'entity':<16}{'occurrences':>12}{'ours':>9}{'presidio':>10}{'target':>8}  ok")
    ok_all = True
    for et in sorted(set(r_ours) | set(r_base)):
        ro, rb = r_ours[et]["recall"], r_base.get(et, {"recall": 1.0})["recall"]
        tgt = TARGETS.get(et)
        ok = tgt is None or (ro >= tgt and ro >= rb)
        ok_all &= ok
        print(
            f"{et:<16}{int(r_ours[et]['raw']):>12}{ro:>9.3f}{rb:>10.3f}"
            f"{tgt if tgt else '':>8}  {'yes' if ok else 'NO'}"
        )
    share_o, share_b = o_ours / max(o_tot, 1), o_base / max(o_tot, 1)
    print(
        f"non-personal words masked: ours {share_o:.2%}, presidio {share_b:.2%} "
        f"(of {o_tot}; target <= 1%)  {'yes' if share_o <= 0.01 else 'NO'}"
    )
    ok_all &= _date_lines(corpus, ours, base)
    _gazetteer_line(corpus, ours, base)
    print(
        f"throughput (start-up included): ours {n_str / t_ours:.1f} strings/s ({t_ours:.1f}s), "
        f"presidio {n_str / t_base:.1f} strings/s ({t_base:.1f}s), ratio {t_base / t_ours:.1f}x"
    )
    if misses:
        show_misses(corpus, ours, misses)
    return {
        "recall_ours": r_ours,
        "recall_presidio": r_base,
        "overmasked_ours": share_o,
        "overmasked_presidio": share_b,
        "seconds_ours": t_ours,
        "seconds_presidio": t_base,
        "targets_met": ok_all and share_o <= 0.01,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evaluator", help="presidio-evaluator wheel or directory")
    ap.add_argument("--samples", type=int, default=400, help="template samples")
    ap.add_argument("--per-locale", type=int, default=60, help="frames per locale")
    ap.add_argument("--tau", type=int, default=30, help="episodes per tau file (0: none)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--only", choices=("templates", "locales", "tau"), action="append")
    ap.add_argument(
        "--show-misses",
        type=int,
        default=0,
        metavar="N",
        help="print per type up to N missed values with context, and the N non-personal words "
        "masked most often (ours; synthetic/public test data only)",
    )
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    only = set(args.only or ("templates", "locales", "tau"))
    corpora: list[tuple[str, LabeledCorpus]] = []
    if only & {"templates", "locales"}:
        templates, people = evaluator_files(args.evaluator)
    if "templates" in only:
        corpora.append(
            (
                "presidio-evaluator templates",
                template_corpus(templates, people, args.samples, args.seed),
            )
        )
    if "locales" in only:
        corpora.append(
            (
                "multi-locale (FakeNameGenerator people)",
                locale_corpus(people, args.per_locale, args.seed),
            )
        )
    if "tau" in only and args.tau:
        corpora += tau_corpora(args.tau)
    results = {name: evaluate(name, c, args.workers, args.show_misses) for name, c in corpora}
    print(
        "\nall targets met"
        if all(r["targets_met"] for r in results.values())
        else "\nsome targets missed (see NO above)"
    )


if __name__ == "__main__":
    main()
