"""Masking measured on text written outside this project, side by side with plain Presidio.

Corpora (all with the personal values known):

* ``templates``: the sentence templates of the ``presidio-evaluator`` package (written by the
  Presidio team) filled with its FakeNameGenerator records (names, street lines, postcodes and
  phones of many countries, written by fakenamegenerator.com) and Faker values for cards, IBANs,
  SSNs, IPs, emails and dates of birth; each sample is placed in a user turn, an assistant reply,
  a tool call's arguments or a JSON tool result.
* ``locales``: a multi-locale Faker corpus (en_GB, de_DE, fr_FR, es_ES, it_IT, nl_NL, pl_PL):
  local names, street lines, postcodes, phones, IBANs, national ids, cards, emails, birth dates.
* ``tau``: the real tau-bench airline and retail and tau2 airline files, with the users files as
  the truth (names, emails, street lines, user ids, card last fours, dates of birth).

For each corpus: recall per entity type and the share of non-personal words masked (every
letters-only word of 3+ characters that is not part of a planted value), for ``mask_steps`` and for
plain Presidio (``AnalyzerEngine`` + ``AnonymizerEngine``, same spaCy model, built offline), and
the throughput of both, start-up included.

presidio-evaluator is NOT a project dependency (it pulls in transformers); its data files are
read from its wheel without importing it. Get the wheel once (``pip download --no-deps
presidio-evaluator==0.3.2 -d /tmp/pe``) or install it with ``--no-deps``; pass ``--evaluator``.

    python benchmarks/masking_outsider_eval.py --evaluator /tmp/pe --samples 400 --tau 30
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import logging
import random
import re
import sys
import time
import zipfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))

from masking import baseline_mask  # noqa: E402  (benchmarks/masking.py)

from agentic_pipeline.masking import MASK_COLUMNS, Masker, mask_steps  # noqa: E402
from agentic_pipeline.masking.evaluation import (  # noqa: E402
    WORD,
    LabeledCorpus,
    benchmark_file_corpus,
    masked_words,
    measure_recall,
    missed_values,
    personal_words,
    plain_text,
    tau_bench_corpus,
)
from agentic_pipeline.schema import STEP_SCHEMA, parse_timestamp  # noqa: E402

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
_TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*?(?:_[0-9a-f]{8})?>")


# --------------------------------------------------------------------------- evaluator data
def evaluator_files(where: str | None) -> tuple[list[str], list[dict[str, str]]]:
    """(templates, FakeNameGenerator records) from an installed presidio-evaluator, its wheel
    or an unpacked copy (never imported)."""
    rel = "presidio_evaluator/data_generator/raw_data/"
    candidates: list[Path] = []
    if where:
        candidates.append(Path(where))
    spec = importlib.util.find_spec("presidio_evaluator")
    if spec and spec.submodule_search_locations:
        candidates.append(Path(next(iter(spec.submodule_search_locations))).parent)
    for c in candidates:
        wheels = [c] if c.suffix == ".whl" else sorted(c.glob("presidio_evaluator-*.whl"))
        for w in wheels:
            with zipfile.ZipFile(w) as z:
                return _parse(
                    z.read(rel + "templates.txt").decode(),
                    z.read(rel + "FakeNameGenerator.com_3000.csv").decode("utf-8-sig"),
                )
        for base in (c, c / "x"):
            if (base / rel / "templates.txt").exists():
                return _parse(
                    (base / rel / "templates.txt").read_text(),
                    (base / rel / "FakeNameGenerator.com_3000.csv").read_text(encoding="utf-8-sig"),
                )
    raise SystemExit("presidio-evaluator data not found: pass --evaluator (wheel or directory)")


def _parse(templates: str, fng: str) -> tuple[list[str], list[dict[str, str]]]:
    lines = [t.strip().replace("\\n", "\n").replace("\\,", ",") for t in templates.splitlines()]
    return [t for t in lines if t], list(csv.DictReader(io.StringIO(fng)))


# --------------------------------------------------------------------------- corpus building
class _Builder:
    """Places samples in user turns, replies, tool arguments and JSON tool results."""

    def __init__(self, ds: str, fmt: str) -> None:
        self.rows: list[dict[str, Any]] = []
        self.planted: dict[str, set[tuple[str, str]]] = {}
        self.other_dates: dict[str, set[str]] = defaultdict(set)
        self.ds, self.fmt = ds, fmt

    def episode(self, eid: str, samples: list[tuple[str, set[tuple[str, str]]]]) -> None:
        steps, vals, call = [], set(), 0
        for i, (text, planted) in enumerate(samples):
            vals |= planted
            slot = i % 4
            if slot == 0:
                steps.append({"role": "user", "action_type": "message", "content": text})
            elif slot == 1:
                steps.append({"role": "assistant", "action_type": "message", "content": text})
            elif slot == 2:
                call += 1
                steps.append(
                    {
                        "role": "assistant",
                        "action_type": "tool_call",
                        "tool_name": "log_note",
                        "tool_call_id": f"call_{call}",
                        "tool_arguments": json.dumps(
                            {"note": text, "priority": 2}, ensure_ascii=False
                        ),
                    }
                )
            else:
                steps.append(
                    {
                        "role": "tool",
                        "action_type": "tool_result",
                        "tool_name": "search_records",
                        "tool_call_id": f"call_{call}",
                        "content": json.dumps(
                            {"results": [{"snippet": text, "score": 0.87}]}, ensure_ascii=False
                        ),
                    }
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

    def corpus(self) -> LabeledCorpus:
        return LabeledCorpus(
            pa.Table.from_pylist(self.rows, schema=STEP_SCHEMA), self.planted, len(self.planted)
        )


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
) -> tuple[LabeledCorpus, dict[str, set[str]]]:
    """``n`` samples from the evaluator templates, four per episode."""
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
            "date_time": lambda: str(fk.date_this_year()),
        }
        if "{{street_name}}" in t and "{{building_number}}" in t:
            t = t.replace("{{building_number}} {{street_name}}", "{{street_name}}")
        text = re.sub(
            r"{{(\w+)}}", lambda m, fill=fill: fill.get(m.group(1), lambda: m.group(0))(), t
        )
        samples.append((text, planted))
    for i in range(0, len(samples), 4):
        b.episode(f"tpl-{i // 4:05d}", samples[i : i + 4])
    return b.corpus(), {}


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


def locale_corpus(n_per_locale: int, seed: int) -> LabeledCorpus:
    """Faker values of seven European locales in English frames, all values known."""
    from faker import Faker

    rng = random.Random(seed)
    b = _Builder("2026-11-21", "outsider_locales")
    for loc in LOCALES:
        fk = Faker(loc)
        fk.seed_instance(seed)
        samples = []
        for _ in range(n_per_locale):
            first, last = fk.first_name(), fk.last_name()
            street = " ".join(fk.street_address().split())
            post = fk.postcode()
            v = {
                "first": first,
                "last": last,
                "name": f"{first} {last}",
                "street": street,
                "postcode": post,
                "city": fk.city(),
                "phone": fk.phone_number(),
                "iban": fk.iban(),
                "nid": fk.ssn(),
                "dob": _dob_text(fk.date_of_birth(), rng),
                "card": fk.credit_card_number(),
                "email": fk.email(),
            }
            frame = rng.choice(_FRAMES)
            types = {
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
            planted = set()
            for key in re.findall(r"{(\w+)}", frame):
                if key == "name":
                    planted |= {("PERSON", first), ("PERSON", last)}
                elif key in types:
                    planted.add((types[key], v[key]))
            samples.append((frame.format(**v), planted))
        for i in range(0, len(samples), 4):
            b.episode(f"{loc}-{i // 4:04d}", samples[i : i + 4])
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
    around them) and the ``n`` non-personal words masked most often (with their token type)."""
    misses = missed_values(corpus.table, masked, corpus.planted)
    by_type: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for et, rows in misses.items():
        by_type[REPORT.get(et, et)].extend(rows)
    for et in sorted(by_type):
        rows = by_type[et]
        print(f"-- missed {et}: {len(rows)} values in clear (first {min(n, len(rows))})")
        for eid, value, ctx in rows[:n]:
            print(f"   {value!r} in {eid}: {ctx}")
    words = masked_words(corpus.table, masked, corpus.planted)
    total = sum(words.values())
    print(f"-- non-personal words masked: {total} (most frequent {min(n, len(words))})")
    for (w, kind), c in words.most_common(n):
        print(f"   {c:>4}  {w} -> {kind}")


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
    ap.add_argument("--per-locale", type=int, default=60, help="Faker samples per locale")
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
    if "templates" in only:
        templates, people = evaluator_files(args.evaluator)
        corpora.append(
            (
                "presidio-evaluator templates",
                template_corpus(templates, people, args.samples, args.seed)[0],
            )
        )
    if "locales" in only:
        corpora.append(("Faker multi-locale", locale_corpus(args.per_locale, args.seed)))
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
