"""Issue #21: no half of a name in clear. A word the model finds weakly (from the ``extend`` bar)
is a name when it touches a name the model found, or repeats one's word in the same text; a
listed surname that is also a word joins a listed first name before it; the
floor judges a spaCy person without the links glued to it, and a word as frequent in several
languages as in its own is no vocabulary of one language (a public figure's name, a loan word).

Probabilities are set by hand on real spaCy documents, so each case tests the mechanism whatever
the shipped model says. Every sentence and name is written for this test."""

from __future__ import annotations

from agentic_pipeline.masking.names.features import TextFeatures
from agentic_pipeline.masking.names.floor import non_person_signal
from agentic_pipeline.masking.names.model import NameModel, load_model
from agentic_pipeline.masking.vocabulary import international


class _Fixed(NameModel):
    """A model whose word probabilities are given by hand (other words: 0)."""

    def __init__(self, probs: dict[str, float], extend: float | None = 0.15) -> None:
        super().__init__(weights={}, intercept=0.0, threshold=0.3, propagate=0.85, veto=0.3)
        self.extend = extend
        self.by_word = probs

    def unit_probabilities(self, tf: TextFeatures) -> dict[int, float]:
        return {i: self.by_word.get(tf.words[i], 0.0) for i in tf.candidates()}


def _names(model: NameModel, nlp, text: str) -> list[str]:
    doc = nlp.make_doc(text)
    doc.ents = []
    return [text[s:e] for s, e, _ in model.spans(text, doc)]


def test_a_weak_first_name_joins_the_surname_beside_it(nlp):
    text = "Please add Brannoc Amblesade as the second driver."
    model = _Fixed({"Brannoc": 0.2, "Amblesade": 0.5})
    assert _names(model, nlp, text) == ["Brannoc Amblesade"]
    # without the extension bar a word no list or language has joins all the same, as an
    # unlisted part of the name beside it; a word of the vocabulary does not
    assert _names(_Fixed(model.by_word, extend=None), nlp, text) == ["Brannoc Amblesade"]
    text = "Please add Garden Amblesade as the second driver."
    assert _names(_Fixed({"Garden": 0.2, "Amblesade": 0.5}), nlp, text) == ["Amblesade"]


def test_a_listed_surname_that_is_also_a_word_joins_the_first_name_before_it(nlp):
    # "Black", "Green": listed surnames and colours; after a masked first name, a surname
    text = "[09:20] Nora Black (Facilities): the lift is fixed."
    model = _Fixed({"Nora": 0.5})
    assert _names(model, nlp, text) == ["Nora Black"]
    # a first name that no list has, as a chat's speaker: the model masked it, so its surname goes
    assert _names(_Fixed({"Qerrin": 0.5}), nlp, "[16:05] Qerrin Green: on my way") == [
        "Qerrin Green"
    ]
    # not across a comma or a full stop, not after a word the model left, not a lower-case word
    assert _names(model, nlp, "Thanks Nora, Black coffee for me.") == ["Nora"]
    assert _names(model, nlp, "Thanks Nora. Black coffee for me.") == ["Nora"]
    assert _names(_Fixed({"Qerrin": 0.1}), nlp, "Qerrin Black called.") == []
    assert _names(model, nlp, "Nora black coffee") == ["Nora"]


def test_a_word_below_the_extension_bar_or_across_a_comma_stays(nlp):
    # a word of the vocabulary below the bar stays (a listed first name or a word no list has
    # joins whatever its probability: ``joins.with_name_parts``)
    text = "Book Garden Amblesade for Friday."
    assert _names(_Fixed({"Garden": 0.1, "Amblesade": 0.5}), nlp, text) == ["Amblesade"]
    text = "Dear Amblesade, Overton will call."
    assert _names(_Fixed({"Amblesade": 0.5, "Overton": 0.2}), nlp, text) == ["Amblesade"]


def test_a_second_mention_of_a_name_word_goes_too(nlp):
    text = "Quenby phoned, and later Quenby wrote back."
    model = _Fixed({})  # the first mention scores high, the second low: set per position below
    doc = nlp.make_doc(text)
    doc.ents = []
    tf = TextFeatures(text, doc)
    first, second = (i for i, w in enumerate(tf.words) if w == "Quenby")
    probs = {i: 0.0 for i in tf.candidates()} | {first: 0.6, second: 0.2}
    assert model.name_units(tf, probs) >= {first, second}
    probs[second] = 0.1
    assert second not in model.name_units(tf, probs)


def test_a_joined_unit_is_masked_where_it_stands(nlp):
    text = "Brannoc Amblesade signed."
    model = _Fixed({"Brannoc": 0.2, "Amblesade": 0.5})
    doc = nlp.make_doc(text)
    doc.ents = []
    ((s, e, p),) = model.spans(text, doc)
    assert text[s:e] == "Brannoc Amblesade" and model.score(p) >= 0.4


def test_the_shipped_model_has_an_extension_bar_below_its_threshold():
    m = load_model()
    assert m.extend is not None and 0 < m.extend < m.threshold


def test_a_spacy_person_is_judged_without_the_link_glued_to_it(nlp):
    text = "Great goal from Orwen Tallisk http://t.example/Qx81z tonight"
    doc = nlp.make_doc(text)
    start = text.index("Orwen")
    doc.ents = [doc.char_span(start, text.index(" tonight"), label="PERSON")]
    blind = _Fixed({})
    assert _names(blind, nlp, text) == []  # no entity on this document
    assert [text[s:e] for s, e, _ in blind.spans(text, doc)] == ["Orwen Tallisk"]


def test_a_word_as_frequent_in_several_languages_is_no_vocabulary_of_one():
    # loan words are about as frequent in the main European languages as in English; a word of
    # one language is much rarer in the others
    assert international("Hotel") and international("Pizza")
    assert not international("Window") and not international("Garden")
    assert not international("Drucker")  # German vocabulary
    assert not international("Qendrelle")  # unknown to every language


def test_the_floor_keeps_a_person_whose_word_is_international(nlp):
    text = "We met Pizza at the station."
    doc = nlp.make_doc(text)
    start = text.index("Pizza")
    doc.ents = [doc.char_span(start, start + 5, label="PERSON")]
    tf = TextFeatures(text, doc)
    assert non_person_signal(tf, start, start + 5) is None
    text = "We met Window at the station."
    doc = nlp.make_doc(text)
    doc.ents = [doc.char_span(start, start + 6, label="PERSON")]
    assert non_person_signal(TextFeatures(text, doc), start, start + 6) == "vocabulary"


def test_the_s_of_a_possessive_is_no_word_of_the_name(nlp):
    # "s" is frequent English: read as the last word it made "Little Quenby's" a thing
    text = "Little Quenby's parents thanked the nurses."
    doc = nlp.make_doc(text)
    doc.ents = [doc.char_span(0, text.index(" parents"), label="PERSON")]
    assert non_person_signal(TextFeatures(text, doc), 0, text.index(" parents")) is None


def test_a_title_or_vocabulary_word_never_joins_a_name(nlp):
    text = "Producer Brannoc Amblesade explained the plan."
    model = _Fixed({"Producer": 0.2, "Brannoc": 0.2, "Amblesade": 0.5})
    assert _names(model, nlp, text) == ["Brannoc Amblesade"]


def test_a_phrase_of_loan_words_stays_vocabulary(nlp):
    # each word alone would be international; together they name a thing
    text = "The Premium Laptop arrived broken."
    doc = nlp.make_doc(text)
    start = text.index("Premium")
    end = text.index(" arrived")
    doc.ents = [doc.char_span(start, end, label="PERSON")]
    assert non_person_signal(TextFeatures(text, doc), start, end) == "vocabulary"


def test_a_country_or_nationality_alone_is_no_person_unless_a_listed_name(nlp):
    # the model's probability is no excuse below the propagation bar: a country is a place
    text = "A 1988 Portugal road movie, shot in two weeks."
    model = _Fixed({"Portugal": 0.6})
    assert _names(model, nlp, text) == []
    assert non_person_signal(TextFeatures(text, nlp.make_doc(text)), 7, 15) == "place"
    # a country that is also a listed first name stays a person ("Jordan")
    text = "Jordan phoned about the refund."
    assert _names(_Fixed({"Jordan": 0.6}), nlp, text) == ["Jordan"]
