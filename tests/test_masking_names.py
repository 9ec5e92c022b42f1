"""Person names decided by the trained name model (issue #21, point 4): the kinds of names it must
find (lists, bullets, CSV columns, greetings, signatures, lower-case and foreign names, names that
are common words), the companies, products and places it must leave, the model file (versioned,
loadable, rebuilt from a sample) and its place in the masking pipeline.

Every sentence here is written for this test; none comes from a development corpus."""

from __future__ import annotations

import json
import re

import pytest
from conftest import masked_user_texts

from agentic_pipeline.masking import Masker
from agentic_pipeline.masking.names import (
    DETECTOR,
    MODEL_PATH,
    NameModelRecognizer,
    decide_persons,
    default_model,
    load_model,
)
from agentic_pipeline.masking.names.build import LabelledText, build_from_texts
from agentic_pipeline.masking.names.features import FEATURE_VERSION, TextFeatures


@pytest.fixture(scope="module")
def masker():
    m = Masker(key="test-key-names", n_workers=1)
    yield m
    m.close()


def _masked(masker, *texts: str) -> str:
    return json.dumps(masked_user_texts(masker, *texts), ensure_ascii=False)


def _kept(masked: str, *words: str) -> list[str]:
    """The words of ``words`` that the masked text no longer holds."""
    return [w for w in words if w not in masked]


def _leaked(masked: str, *words: str) -> list[str]:
    return [w for w in words if w in masked]


# ------------------------------------------------------------------------ names that must go
@pytest.mark.parametrize(
    "text, names",
    [
        # bullets and lists
        (
            "Attendees for Thursday:\n- Orla Brennan\n- Tomasz Wilk\n- Inés Carvajal\n",
            ["Orla", "Brennan", "Tomasz", "Wilk", "Carvajal"],
        ),
        ("Invite list: Petra Lindahl, Rosalind Achebe and Tobin Crane.", ["Lindahl", "Achebe"]),
        # greetings and signatures
        ("Dear Ms. Okonkwo,\nthank you for the quick reply.", ["Okonkwo"]),
        ("Hi Priyanka, can you resend the invoice?", ["Priyanka"]),
        ("Thanks for your help.\n\nBest regards,\nMarguerite Sadoie", ["Marguerite", "Sadoie"]),
        # lower-case and foreign names
        ("ok so my brother anders søndergaard will pick it up", ["anders", "søndergaard"]),
        ("Kontakt: Zofia Fiśviefbra, Björn Sjödahl", ["Fiśviefbra", "Sjödahl"]),
        # names that are common words, in context
        ("Please ask Hunter Bishop to sign the lease.", ["Hunter", "Bishop"]),
        ("My name is Summer Moss and I booked two seats.", ["Summer", "Moss"]),
    ],
)
def test_names_in_prose_lists_greetings_and_signatures_are_masked(masker, text, names):
    assert _leaked(_masked(masker, text), *names) == []


def test_a_kinship_word_before_a_name_is_a_form_of_address_not_part_of_it(masker):
    """A kinship word before a name ("Uncle", "Oma", "zia": ``data/titles.txt``) stays."""
    out = _masked(masker, "we stayed with Uncle Torvin at the lake", "Oma Hilke kommt.")
    assert _leaked(out, "Torvin", "Hilke") == [] and "Uncle <PERSON_" in out, out
    assert "Oma <PERSON_" in out, out


def test_names_in_csv_columns_under_person_headers(masker):
    statement = (
        "Date,Payee,Amount,Memo\n"
        "2025-02-03,Dagny Sorensen,120.00,rent share\n"
        "2025-02-07,Lucian Petrescu,45.10,books\n"
        "2025-02-09,Imogen Farrow,12.00,coffee\n"
    )
    accounts = "Account Name;Balance;Branch\nHalvard Eide;1200.55;Main\nNoor Haddad;88.10;North\n"
    out = _masked(masker, statement, accounts)
    assert _leaked(out, "Sorensen", "Petrescu", "Farrow", "Eide", "Haddad") == []
    assert _kept(out, "Payee", "Amount", "Memo", "Account Name", "Balance", "rent share") == []


def test_names_under_a_bank_statements_counterparty_column(masker):
    dutch = "Boekdatum;Naam tegenpartij;Omschrijving;Bedrag\n"
    dutch += "03-11-2026;Jildou Speerstra;Spaarpot;-42,10\n"
    english = "Date,Counterparty,Amount\n2026-11-04,Sjoerd Bakema,310.00\n"
    out = _masked(masker, dutch, english)
    assert _leaked(out, "Jildou", "Speerstra", "Sjoerd", "Bakema") == []
    assert _kept(out, "Naam tegenpartij", "Counterparty", "Spaarpot") == []


# ------------------------------------------------------------------------ words that must stay
def test_companies_products_and_places_stay(masker):
    system = "You are a customer support agent for Acme. Keep answers short and polite."
    user = (
        "I moved my savings to Harrow Fargo last week, and my Microsoft Teams subscription "
        "still bills the old card. I fly to Denver on Monday."
    )
    out = _masked(masker, system, user, "Acme support said the refund takes a week.")
    kept = ("Acme", "Harrow Fargo", "Microsoft Teams", "Denver", "Monday")
    assert _kept(out, *kept) == []


@pytest.mark.xfail(strict=True, reason="known miss of the model: see docs/names.md")
def test_a_product_of_an_unknown_word_and_a_bank_named_like_a_person_stay(masker):
    # a known miss on the small spaCy model's labels (right with en_core_web_md)
    out = _masked(masker, "Help users with Acme Cloud billing; my pay goes to Chase.")
    assert _kept(out, "Acme Cloud", "Chase") == []


def test_a_rare_surname_before_and_in_a_list_of_names(masker):
    # was a known miss of the model alone; spaCy's PERSON entity now counts (the floor)
    out = _masked(masker, "Invite list: Petra Lindahl, Kwame Asante and Rosalind Achebe.")
    assert "Asante" not in out


_NAME_BESIDE_COMPANY = "Rafaela Quintero from Globex Logistics will call you back."


def test_a_name_beside_a_company_goes(masker):
    assert _leaked(_masked(masker, _NAME_BESIDE_COMPANY), "Rafaela", "Quintero") == []


def test_the_company_beside_a_name_stays(masker):
    # an organisation word below the propagation bar overrules the model (model.unlike_a_person)
    assert "Globex Logistics" in _masked(masker, _NAME_BESIDE_COMPANY)


def test_field_labels_and_vocabulary_stay(masker):
    text = "Status: Approved\nPriority: High\nOwner: Ngozi Adeyemi\nCategory: Billing\n"
    out = _masked(masker, text)
    assert "Adeyemi" not in out
    assert _kept(out, "Status", "Approved", "Priority", "High", "Category", "Billing") == []


# ------------------------------------------------------------------------ the model and its file
def test_the_shipped_model_is_versioned_and_small():
    model = load_model(MODEL_PATH)
    assert model.version.startswith(f"names-f{FEATURE_VERSION}-")
    assert model.feature_version == FEATURE_VERSION
    assert 0 < model.threshold < model.propagate < 1
    assert MODEL_PATH.stat().st_size < 2_000_000
    assert model.meta["corpora"]  # says what it was trained on


def test_no_rare_word_is_a_feature_of_the_shipped_model():
    """Neighbour words are features only when frequent vocabulary, so the model file holds no
    name or corpus value: every word in a feature is frequent English or a word class."""
    from agentic_pipeline.masking.names.words import CONTEXT_WORD_ZIPF
    from agentic_pipeline.masking.vocabulary import STOP_WORDS, zipf

    model = default_model()
    rare = []
    for feat in model.weights:
        for part in feat.split("|"):
            key, _, value = part.partition("=")
            if key in ("p1", "n1", "p2", "n2") and value.isalpha() and value.islower():
                if value not in STOP_WORDS and zipf(value, ("en",)) < CONTEXT_WORD_ZIPF:
                    rare.append(feat)
    assert rare == []


def _labelled(text: str, *names: str, corpus: str = "fresh") -> LabelledText:
    spans = []
    for name in names:
        m = re.search(re.escape(name), text)
        assert m is not None, name
        spans.append((m.start(), m.end(), "PERSON"))
    return LabelledText(text, spans, corpus, f"t{len(text)}")


#: Fresh training sentences for the rebuild test: names in several positions, and capitalised
#: words that are not names (companies, places, products, sentence starts).
_SAMPLE = [
    ("Yesterday Edwina Marsh called about the refund.", "Edwina Marsh"),
    ("Please forward this to Caspian Wilde before noon.", "Caspian Wilde"),
    ("Dear Mr. Tobiah Rusk, your parcel has shipped.", "Tobiah Rusk"),
    ("Signed, Maren Holt", "Maren Holt"),
    ("Customer: Ilse Vandermeer", "Ilse Vandermeer"),
    ("The report was written by Anselm Kray.", "Anselm Kray"),
    ("Hello Bettina, the meeting moved to Friday.", "Bettina"),
    ("Contact person: Oskar Lindgren", "Oskar Lindgren"),
    ("We ordered new laptops from Dell for the Boston office.", None),
    ("The Paris branch of Northwind Traders opens in March.", None),
    ("Our Premium Plan includes Priority Support and Cloud Backup.", None),
    ("Shipping to Canada takes five days with Express Delivery.", None),
    ("Microsoft Word crashed again after the Windows update.", None),
    ("The Annual Report shows growth in Europe and Asia.", None),
]


def test_the_model_rebuilds_from_a_small_sample_and_predicts_sensibly():
    items = [
        _labelled(t, *([n] if n else []), corpus="a" if k % 2 else "b")
        for k, (t, n) in enumerate(_SAMPLE)
    ]
    model = build_from_texts(items)
    assert model.version.startswith(f"names-f{FEATURE_VERSION}-") and model.weights
    rec = NameModelRecognizer(model)
    from agentic_pipeline.masking.names.build import _parse_nocache

    probe = "Please forward the contract to Leopold Brandt in the Boston office."
    doc = _parse_nocache([LabelledText(probe, [], "p", "p")])[0]
    by_word = dict(model.word_probabilities(probe, doc))
    assert by_word["Brandt"] > by_word["Boston"]
    assert by_word["Leopold"] > by_word["Please"] if "Please" in by_word else True
    assert rec.supported_entities == ["PERSON"]


def test_a_sample_of_a_development_corpus_rebuilds_a_model_when_present():
    from agentic_pipeline.masking.names import build

    if not build.external_root().joinpath("pii-dev").is_dir():
        pytest.skip("no ../shared/external/pii-dev beside the checkout")
    model = build.build_model(corpora=["nannigalaxy-pii-synthetic"])
    probe = "The auditor Wilhelmina Strand forwarded the ledger to Initech."
    doc = build._parse_nocache([LabelledText(probe, [], "p", "p")])[0]
    found = [probe[s:e] for s, e, _ in model.spans(probe, doc)]
    assert any("Strand" in f for f in found), found


def test_candidates_include_lower_case_listed_pairs_and_person_columns():
    from agentic_pipeline.masking.names.build import _parse_nocache

    text = "Name,Plan\nmaria lopez,basic\n"
    doc = _parse_nocache([LabelledText(text, [], "p", "p")])[0]
    tf = TextFeatures(text, doc)
    cands = {tf.words[i] for i in tf.candidates()}
    assert {"maria", "lopez"} <= cands
    assert "basic" not in cands


# ------------------------------------------------------------------------ pipeline integration
def test_only_the_model_decides_person_spans():
    spans = [
        (0, 4, "PERSON", 0.85, "SpacyRecognizer"),
        (5, 9, "PERSON", 0.7, DETECTOR),
        (10, 20, "EMAIL_ADDRESS", 1.0, "EmailRecognizer"),
    ]
    assert decide_persons("x" * 20, spans) == [spans[1], spans[2]]


def test_confident_names_propagate_and_weak_ones_mask_where_they_stand():
    model = default_model()
    assert model.score(model.threshold) == pytest.approx(0.4)
    assert model.score(model.propagate) == pytest.approx(0.6)
    assert model.score(0.999) > 0.6 > model.score((model.threshold + model.propagate) / 2)


def test_a_confident_name_is_masked_in_every_string_of_the_episode(masker):
    out = masked_user_texts(
        masker, "Hello, my name is Fenella Okafor and I need help.", "Is Okafor on the list?"
    )
    assert "Okafor" not in out[0] and "Okafor" not in out[1]


def test_invented_names_replace_each_name_word_with_an_unlisted_unknown_word():
    from agentic_pipeline.masking.names.augment import invented_names
    from agentic_pipeline.masking.names.lexicon import listed_name
    from agentic_pipeline.masking.vocabulary import zipf

    texts = [
        ("Please ask Rosalind Whitcombe to sign the form.", "Rosalind Whitcombe"),
        ("The courier left it with BARNABY OKAFOR at the gate.", "BARNABY OKAFOR"),
        ("thanks again, tamsin, see you monday", "tamsin"),
        ("Rosalind called back about the invoice.", "Rosalind"),
    ]
    items = [
        LabelledText(t, [(t.index(n), t.index(n) + len(n), "PERSON")], "x", f"d{k}")
        for k, (t, n) in enumerate(texts)
    ]
    out = invented_names(items, "x", frozenset({"PERSON"}))
    assert len(out) == len(items)
    by_name: dict[str, str] = {}
    for x in out:
        text, name = texts[int(x.doc_id[1 : x.doc_id.index("-")])]
        ((a, b, kind),) = x.spans
        value = x.text[a:b]
        assert kind == "PERSON"
        for old, new in zip(name.split(), value.split(), strict=True):
            assert new != old and not listed_name(new) and zipf(new) == 0.0
            # the same letter case, and the same word gives the same invented word
            assert (new.isupper(), new.islower()) == (old.isupper(), old.islower())
            assert by_name.setdefault(old.lower(), new.lower()) == new.lower()
        # the other words stay, or lose their inner vowels (an unknown word is no name)
        start = text.index(name)
        for old, new in zip(
            (text[:start] + text[start + len(name) :]).split(),
            (x.text[:a] + x.text[b:]).split(),
            strict=True,
        ):
            assert new == old or (new[0] == old[0] and new[-1] == old[-1] and len(new) < len(old))


@pytest.mark.parametrize(
    ("text", "kept", "masked"),
    [
        ("Dearest Rosalind, I was so sorry to hear the news.", ["Dearest"], ["Rosalind"]),
        ("Aloha Makoa, here are the ferry times. Mahalo!", ["Aloha", "Mahalo"], ["Makoa"]),
        ("Thanks for the tea.\nGroetjes, Femke", ["Groetjes"], ["Femke"]),
        ("Spoštovani Rok Zavrnik, pišemo vam glede vloge.", ["Spoštovani"], ["Zavrnik"]),
        ("Please sign by Friday.\nSincerely,\nTomasz Wielgoszyn", ["Sincerely"], ["Wielgoszyn"]),
        ("Employer: Dana Ferrowby, Seabright Joinery", ["Seabright Joinery"], ["Ferrowby"]),
        ("Invoice from Brannock Landscaping, paid by Ilse Durrant", ["Brannock"], ["Durrant"]),
    ],
)
def test_greetings_closings_and_trades_stay_beside_the_names(masker, text, kept, masked):
    out = _masked(masker, text)
    assert all(w in out for w in kept), out
    assert not any(w in out for w in masked), out


def test_a_salutation_to_an_institution_names_no_one(masker):
    out = _masked(masker, "Dear Pellworth Foundation trustees, thank you for the grant.")
    assert "Pellworth Foundation" in out, out


def test_a_role_after_a_name_is_no_part_of_it(masker):
    out = _masked(masker, "Collected from Osvaldo Trenchard Donor ID on file, sealed at 09:10.")
    assert "Trenchard" not in out and "Donor ID" in out, out
