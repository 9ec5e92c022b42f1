"""The masking evaluation's own measurements (issue #12 point 8): the developer dump of missed
values and over-masked words, the date metrics and the independence of the multi-locale corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from agentic_pipeline.masking.pseudonyms import TOKEN_HEX_CHARS  # noqa: E402
from benchmarks.masking_eval.evaluation import plain_text
from benchmarks.masking_eval.misses import masked_words, missed_values

_PAD = "0" * (TOKEN_HEX_CHARS - 8)  # test tokens: 8 digits written, padded to the width

DS = "2026-11-20"


def _table(rows: list[tuple[str, int, str, str | None]]) -> pa.Table:
    """(episode, step, content, tool_arguments) rows, the columns the measurements read."""
    return pa.Table.from_pylist(
        [{"episode_id": e, "step": s, "content": c, "tool_arguments": a} for e, s, c, a in rows]
    )


def test_missed_values_reports_each_leaked_value_with_its_context():
    raw = _table(
        [
            ("e1", 0, "Hello, this is Ildikó Vasquerell, call 97 318204.", None),
            ("e1", 1, "ok", json.dumps({"note": "write to ann@x.org"})),
        ]
    )
    masked = _table(
        [
            (
                "e1",
                0,
                f"Hello, this is <PERSON_0a1b2c3d{_PAD}> Vasquerell, call 97 318204.",
                None,
            ),
            ("e1", 1, "ok", json.dumps({"note": f"write to <EMAIL_ADDRESS_1a2b3c4d{_PAD}>"})),
        ]
    )
    planted = {
        "e1": {
            ("PERSON", "Ildikó"),
            ("PERSON", "Vasquerell"),
            ("PHONE_NUMBER", "97 318204"),
            ("EMAIL_ADDRESS", "ann@x.org"),
        }
    }
    misses = missed_values(raw, masked, planted)
    assert set(misses) == {"PERSON", "PHONE_NUMBER"}
    [(eid, value, ctx)] = misses["PERSON"]
    assert (eid, value) == ("e1", "Vasquerell")
    assert f"<PERSON_0a1b2c3d{_PAD}> [[Vasquerell]]" in ctx
    assert misses["PHONE_NUMBER"][0][1] == "97 318204"


def test_masked_words_names_the_token_type_of_each_overmasked_word():
    raw = _table(
        [
            ("e1", 0, "Please modify the cabin for Ann Lee.", None),
            ("e1", 1, None, json.dumps({"reason": "Orchestra seats", "first_name": "Zoe"})),
        ]
    )
    # plain Presidio's tokens carry no hash; both forms are recognised
    masked = _table(
        [
            ("e1", 0, f"Please <PERSON_00000000{_PAD}> the cabin for <PERSON> <PERSON>.", None),
            ("e1", 1, None, json.dumps({"reason": "<LOCATION> seats", "first_name": "<PERSON>"})),
        ]
    )
    planted = {"e1": {("PERSON", "Ann"), ("PERSON", "Lee")}}
    words = masked_words(raw, masked, planted)
    # "Zoe" is personal by its key though not planted; "cabin" and "seats" stayed
    assert words == {("modify", "PERSON"): 1, ("orchestra", "LOCATION"): 1}


def test_plain_text_decodes_json_leaves():
    assert plain_text(json.dumps({"a": ["Straße 3"], "b": 2}, ensure_ascii=True)) == "Straße 3"
    assert plain_text("{not json") == "{not json"


def test_evaluation_module_does_not_import_the_simulator():
    """Product code measures corpora handed to it; the demo simulator is the caller's business."""
    import ast

    import benchmarks.masking_eval.evaluation as evaluation

    tree = ast.parse(Path(evaluation.__file__).read_text())
    imported = [
        n.module if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    ]
    assert not [m for m in imported if m and "simulator" in m], imported


# ----------------------------------------------------------------------------- outsider corpora
REPO = Path(__file__).resolve().parents[1]


def _bench():
    """benchmarks/masking_outsider_eval.py as a module (benchmarks/ is not a package)."""
    import importlib.util
    import sys

    name = "masking_outsider_eval"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, REPO / "benchmarks" / "masking_outsider_eval.py"
        )
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def _people() -> list[dict[str, str]]:
    """FakeNameGenerator-shaped records, one name set and one country per locale, with names no
    Faker locale lists (invented here)."""
    bench = _bench()
    out = []
    for i, (namesets, country, _) in enumerate(bench.LOCALE_SOURCES.values()):
        out.append(
            {
                "NameSet": namesets[0],
                "Country": country,
                "GivenName": f"Quorvin{'abcdefg'[i]}a",
                "Surname": f"Zelbrathek{'abcdefg'[i]}o",
                "EmailAddress": f"quorvin{i}@example.org",
                "StreetAddress": f"Ulmweg {10 + i}",
                "ZipCode": f"1{i}345",
                "City": "Testingen",
                "TelephoneNumber": f"030 1234 56{i}",
                "NationalID": "",
                "Birthday": f"{i + 1}/{i + 3}/19{60 + i}",
            }
        )
    return out


def test_locale_corpus_names_come_from_the_records_not_from_the_gazetteer_source():
    """Issue #12 point 8 / the circularity: the gazetteer is built from Faker's person lists, so
    a corpus that draws its names from Faker measures list membership. With records whose names
    no Faker list holds, every planted name is one of the records' and none is in the gazetteer
    (a corpus drawing names from Faker fails both)."""
    from agentic_pipeline.masking.pseudonyms import fold
    from agentic_pipeline.masking.recognizers import name_gazetteer

    people = _people()
    corpus = _bench().locale_corpus(people, 8, seed=3)
    names = {v for vals in corpus.planted.values() for et, v in vals if et == "PERSON"}
    assert names, "the corpus planted no names"
    assert names <= {p["GivenName"] for p in people} | {p["Surname"] for p in people}
    firsts, lasts = name_gazetteer()
    assert not {fold(n) for n in names} & (firsts | lasts)
    # every locale is there, and the text really holds the names
    assert {e.split("-")[0] for e in corpus.planted} == set(_bench().LOCALE_SOURCES)
    text = " ".join(v for v in corpus.table.column("content").to_pylist() if v)
    assert "Quorvin" in text


def test_corpora_hold_over_a_hundred_dates_of_birth_in_varied_phrasings_and_other_dates():
    """Issue #12 point 8 / dates: at the documented size (400 template samples, 60 frames per
    locale) the corpora hold >= 100 dates of birth in context, in several phrasing subsets and
    JSON fields, and >= 100 other dates to keep; no other date equals a planted value."""
    from benchmarks.masking_eval.evaluation import measure_recall

    bench = _bench()
    people = _people()
    templates = ["Please call {{name}} about the refund.", "{{first_name}} sent it."]
    corpora = [
        bench.template_corpus(templates, people, 400, seed=1),
        bench.locale_corpus(people, 60, seed=1),
    ]
    dob = other = 0
    subsets: set[str] = set()
    keys: set[str] = set()
    for c in corpora:
        dob += measure_recall(c.table, c.table, c.planted)["DATE_OF_BIRTH"]["raw"]
        other += sum(len(v) for v in c.kept.values())
        subsets |= set(c.subsets)
        for eid, kept in c.kept.items():
            planted = {v.casefold() for _, v in c.planted[eid]}
            assert not {v.casefold() for _, v in kept} & planted, eid
        for cell in (
            c.table.column("content").to_pylist() + c.table.column("tool_arguments").to_pylist()
        ):
            if cell and cell.startswith("{"):
                keys |= set(json.dumps(json.loads(cell)).split('"'))
    assert dob >= 100 and other >= 100, (dob, other)
    assert subsets == {"DOB in English text", "DOB in other languages", "DOB in JSON fields"}
    assert {"dob", "birth_date", "date_of_birth", "birthDate"} <= keys


def test_measure_kept_counts_dates_left_in_clear():
    from benchmarks.masking_eval.evaluation import measure_kept

    raw = _table(
        [
            ("e1", 0, "Your flight on 2026-03-14 departs at 9:40; order of 12/01/2025.", None),
            ("e1", 1, None, json.dumps({"flight_date": "2026-03-14"})),
            ("e2", 0, "Ihr Flug am 14.03.2026.", None),
        ]
    )
    masked = _table(
        [
            ("e1", 0, "Your flight on <DATE_TIME> departs at 9:40; order of 12/01/2025.", None),
            ("e1", 1, None, json.dumps({"flight_date": "2026-03-14"})),
            ("e2", 0, "Ihr Flug am 14.03.2026.", None),
        ]
    )
    kept = {
        "e1": {("OTHER_DATE", "2026-03-14"), ("OTHER_DATE", "12/01/2025")},
        "e2": {("OTHER_DATE", "14.03.2026"), ("OTHER_DATE", "not in the text")},
    }
    fig = measure_kept(raw, masked, kept)["OTHER_DATE"]
    assert (fig["raw"], fig["kept"]) == (4, 3)
    assert fig["share"] == 0.75


def test_other_dates_of_a_real_log_leave_out_every_birth_date():
    """tau-style episode: a flight date and a reservation date are other dates; the user's known
    birth date, a passenger's ``dob`` field and a date after "born" are not."""
    from benchmarks.masking_eval.evaluation import other_dates

    raw = _table(
        [
            ("e1", 0, "My date of birth is 1970-01-01 and I fly on 2024-05-16.", None),
            (
                "e1",
                1,
                json.dumps(
                    {
                        "reservation": {"created_at": "2024-05-02", "flight_date": "2024-05-16"},
                        "passengers": [{"first_name": "Mia", "dob": "1988-08-08"}],
                    }
                ),
                None,
            ),
            ("e1", 2, "Mia (1988-08-08) and her son, born 2015-02-03, fly on 2024-05-16.", None),
            ("e2", 0, "Nothing dated here.", None),
        ]
    )
    planted = {"e1": {("DATE_OF_BIRTH", "1970-01-01")}, "e2": set()}
    assert other_dates(raw, planted) == {
        "e1": {("OTHER_DATE", "2024-05-16"), ("OTHER_DATE", "2024-05-02")}
    }


def test_lost_values_shows_where_a_date_to_keep_was_masked():
    from benchmarks.masking_eval.misses import lost_values

    raw = _table(
        [
            ("e1", 0, "Hi. Your flight on 2026-03-14 departs at 9:40.", None),
            ("e1", 1, "The booking was made on 2026-01-02.", None),
        ]
    )
    masked = _table(
        [
            ("e1", 0, f"Hi. Your flight on <DATE_OF_BIRTH_0a1b2c3d{_PAD}> departs at 9:40.", None),
            ("e1", 1, "The booking was made on 2026-01-02.", None),
        ]
    )
    kept = {"e1": {("OTHER_DATE", "2026-03-14"), ("OTHER_DATE", "2026-01-02")}}
    [(eid, value, ctx)] = lost_values(raw, masked, kept)["OTHER_DATE"]
    assert (eid, value) == ("e1", "2026-03-14")
    assert "[[2026-03-14]]" in ctx and f"<DATE_OF_BIRTH_0a1b2c3d{_PAD}>" in ctx


def test_a_name_counts_as_leaked_when_one_of_its_parts_stays_in_clear():
    from benchmarks.masking_eval.evaluation import measure_recall

    raw = _table(
        [
            ("e1", 0, "Hi, I am Ildikó Vasquerell and I will call", None),
            ("e1", 1, "Ildikó Vasquerell again", None),
            ("e1", 2, "Will Smith too", None),
        ]
    )
    planted = {"e1": {("PERSON", "Ildikó Vasquerell"), ("PERSON", "Will Smith")}}
    whole = _table(
        [
            ("e1", 0, f"Hi, I am <PERSON_0a1b2c3d{_PAD}> and I will call", None),
            ("e1", 1, f"<PERSON_0a1b2c3d{_PAD}> again", None),
            ("e1", 2, f"<PERSON_1a2b3c4d{_PAD}> too", None),
        ]
    )
    half = _table(
        [
            ("e1", 0, f"Hi, I am Ildikó <PERSON_0a1b2c3d{_PAD}> and I will call", None),
            ("e1", 1, f"<PERSON_0a1b2c3d{_PAD}> again", None),
            ("e1", 2, f"<PERSON_1a2b3c4d{_PAD}> too", None),
        ]
    )
    assert measure_recall(raw, whole, planted, ["content"])["PERSON"]["recall"] == 1.0
    # the first name is left once; "will" in the template text is not a leak of "Will Smith"
    assert measure_recall(raw, half, planted, ["content"])["PERSON"]["leaked"] == 1


# ------------------------------------------------------------------ development-corpus benchmark
def _doc(text: str, *values: tuple[str, str]):
    """A labelled text with a span per (type, value) at the value's first occurrence."""
    from benchmarks.masking_eval.corpora import LabelledText

    spans = []
    for kind, value in values:
        at = text.index(value)
        spans.append((at, at + len(value), kind))
    return LabelledText(text, sorted(spans), "hand-made", "d1")


def test_a_value_counts_as_masked_only_when_no_part_of_it_stays():
    from benchmarks.masking_eval.scoring import Tally, score_cell

    doc = _doc(
        "Ship it to 41 Quenby Row, Harrowgate, OK 73012 for Odalys Brenneke, phone 405 555 0143.",
        ("ADDRESS", "41 Quenby Row, Harrowgate, OK 73012"),
        ("PERSON", "Odalys Brenneke"),
        ("PHONE_NUMBER", "405 555 0143"),
    )
    whole = Tally()
    score_cell(
        doc, doc.text, "Ship it to <ADDRESS_0a1b2c3d> for <PERSON> <PERSON>, phone <P>.", whole
    )
    assert whole.n == {"ADDRESS": 1, "ADDRESS street line": 1, "PERSON": 1, "PHONE_NUMBER": 1}
    assert sum(whole.leaked.values()) == 0
    # street masked, city and postcode left; surname left; last block of the phone left
    part = Tally()
    score_cell(
        doc,
        doc.text,
        "Ship it to <STREET>, Harrowgate, OK 73012 for <PERSON> Brenneke, phone <PHONE> 0143.",
        part,
    )
    assert +part.leaked == {"ADDRESS": 1, "PERSON": 1, "PHONE_NUMBER": 1}
    assert part.recall("ADDRESS street line") == 1.0


def test_a_place_labelled_as_an_address_is_no_postal_address():
    from benchmarks.masking_eval.scoring import PLACE, Tally, score_cell

    doc = _doc(
        "We met near Quenby Row in Harrowgate; she lives at 41 Quenby Row, Harrowgate, OK 73012.",
        ("ADDRESS", "Quenby Row in Harrowgate"),
        ("ADDRESS", "41 Quenby Row, Harrowgate, OK 73012"),
    )
    t = Tally()
    score_cell(doc, doc.text, "We met near Quenby Row in Harrowgate; she lives at <ADDRESS>.", t)
    assert t.n == {PLACE: 1, "ADDRESS": 1, "ADDRESS street line": 1}
    assert +t.leaked == {PLACE: 1}


def test_words_outside_the_values_count_as_non_personal_and_companies_must_stay():
    from benchmarks.masking_eval.scoring import Tally, score_cell

    doc = _doc(
        "Ravelstone Freight billed Odalys twice this month.",
        ("COMPANY", "Ravelstone Freight"),
        ("PERSON", "Odalys"),
    )
    t = Tally()
    score_cell(doc, doc.text, "<ORGANIZATION> billed <PERSON> <DATE_TIME>.", t)
    # ravelstone, freight, billed, twice, this, month: 6 words, 5 masked; the company lost
    assert (t.words, t.words_lost, t.kept_n, t.kept) == (6, 5, 1, 0)
    negative = Tally()
    score_cell(
        _doc("Nothing to hide here."), "Nothing to hide here.", "Nothing to hide here.", negative
    )
    assert (negative.negatives, negative.negatives_touched) == (1, 0)


def test_json_and_csv_cells_are_compared_by_their_values():
    from benchmarks.masking_eval.placement import cell_for
    from benchmarks.masking_eval.scoring import Tally, score_cell

    form = _doc(
        "Member: Odalys Brenneke\nPolicy No: QX-44817\nPlan: Silver\nRenewal: yearly",
        ("PERSON", "Odalys Brenneke"),
        ("ID:POLICY_NUMBER", "QX-44817"),
    )
    slot, record = cell_for(form, 0)
    assert slot == "tool_record" and json.loads(record)["Policy No"] == "QX-44817"
    slot, table = cell_for(form, 1)
    assert slot == "tool_csv" and table.splitlines()[1] == "Odalys Brenneke,QX-44817,Silver,yearly"
    masked = json.dumps({**json.loads(record), "Member": "<PERSON_00aa11bb>"})
    t = Tally()
    score_cell(form, record, masked, t)
    assert (t.recall("PERSON"), t.recall("ID:POLICY_NUMBER"), t.n["ID (all)"]) == (1.0, 0.0, 1)


@pytest.mark.skipif(
    not (REPO.parent / "shared" / "external" / "pii-dev").is_dir(),
    reason="development corpora absent (../shared/external/pii-dev)",
)
def test_every_loader_gives_valid_spans_in_the_taxonomy():
    from benchmarks.masking_eval import corpora

    for name in (corpora.CONTEXTUAL, corpora.BTC, corpora.NANNIGALAXY, corpora.DLP):
        docs = corpora.load(name, 60)
        assert len(docs) == 60, name
        for d in docs:
            assert d.corpus == name
            end = 0
            for a, b, kind in d.spans:
                assert end <= a < b <= len(d.text) and d.text[a:b].strip() == d.text[a:b], d
                assert (
                    corpora.is_personal(kind)
                    or kind in corpora.NON_PERSONAL
                    or kind.startswith("OTHER:")
                ), kind
                end = b
    btc = corpora.load(corpora.BTC, 300)
    kinds = {k for d in btc for _, _, k in d.spans}
    assert {"PERSON", "USERNAME", "ORGANIZATION", "LOCATION"} <= kinds
    assert not [v for d in btc for k, v in d.values() if k == "USERNAME" and v.startswith("@")]
    dlp = corpora.load(corpora.DLP)
    negatives = [d for d in dlp if "-neg-" in d.doc_id]
    assert len(negatives) == 600 and not any(d.spans for d in negatives)


@pytest.mark.skipif(
    not (REPO.parent / "shared" / "external" / "pii-dev").is_dir(),
    reason="development corpora absent (../shared/external/pii-dev)",
)
def test_the_benchmark_runs_ours_beside_presidio_and_writes_its_results(tmp_path, capsys):
    from benchmarks.masking_eval.run import main

    out = tmp_path / "eval"
    code = main(
        [
            "--corpora",
            "nannigalaxy-pii-synthetic",
            "--size",
            "8",
            "--workers",
            "1",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    text = out.with_suffix(".txt").read_text()
    assert "nannigalaxy-pii-synthetic: 8 texts in 2 episodes" in text
    assert "presidio" in text and "non-personal words masked" in text
    figures = json.loads(out.with_suffix(".json").read_text())["corpora"][
        "nannigalaxy-pii-synthetic"
    ]
    assert (
        figures["ours"]["recall"]["PERSON"]["n"] == figures["presidio"]["recall"]["PERSON"]["n"] > 0
    )


def test_the_evaluation_code_is_out_of_the_product():
    """Issue #21 point 7: evaluation lives in benchmarks/; the product (the masking and the
    Dagster definitions, as loaded) never imports it."""
    import subprocess
    import sys

    product = REPO / "agentic_pipeline" / "masking"
    assert not (product / "evaluation.py").exists() and not (product / "misses.py").exists()
    probe = (
        "import sys, agentic_pipeline.masking, assets.definitions; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'benchmarks'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout
