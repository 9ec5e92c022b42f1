"""The name parts joined to the units the model masks, whatever their probability: half a name
left in clear names the person. Used by ``model.NameModel.name_units``."""

from __future__ import annotations

from agentic_pipeline.masking.names.features import TextFeatures, is_role, is_title
from agentic_pipeline.masking.names.floor import between_names
from agentic_pipeline.masking.names.lexicon import (
    given_names_before_a_name,
    surnames_after_a_first_name,
)
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import (
    STOP_WORDS,
    WEEKDAYS,
    is_city,
    is_place_or_calendar,
    is_vocabulary,
)


def with_name_parts(tf: TextFeatures, probs: dict[int, float], names: set[int]) -> set[int]:
    """``names`` with the name parts around the capitalised ones among them, without a word that
    joins two people (``two_people``):

    * a listed surname right after one: a surname that is also a word ("Brown", "White", and the
      census's frequent ones, ``surnames_after_a_first_name``) is no vocabulary after a masked
      first name, listed or not ("<first> Green: hi" in a chat);
    * a frequent given name right before one ("Lucky <Surname>", ``given_names_before_a_name``),
      but a title, role or weekday ("Judge", "Sunday");
    * a surname written first, before a comma and a masked first name, at the start of a
      line or after a colon ("Okoro, <First>" of a list or a form): a listed surname or a word no
      language has, in capitals or not, but a place or calendar word ("Lagos, <First>")."""
    lasts, firsts = surnames_after_a_first_name(), given_names_before_a_name()
    out = set(names)
    for i in sorted(names):
        if not tf.words[i][:1].isupper():
            continue
        for j, listed in ((i + 1, lasts), (i - 1, firsts)):
            w = tf.words[j] if j in probs and j not in out else ""
            if not w[:1].isupper() or fold(w) not in listed or fold(w) in STOP_WORDS:
                continue
            if j < i and (is_title(w) or is_role(w) or fold(w) in WEEKDAYS):
                continue
            if tf.text[tf.ends[min(i, j)] : tf.starts[max(i, j)]] == " ":
                out.add(j)
        j = i - 2 if i >= 2 and tf.words[i - 1] == "," else -1  # the unit before the comma
        if j in probs and j not in out and _surname_first(tf, j, i, lasts):
            out.add(j)
    return two_people(tf, out)


def _surname_first(tf: TextFeatures, j: int, i: int, lasts: frozenset[str]) -> bool:
    """Unit ``j`` is a surname written before a comma and the masked first name ``i``, at the
    start of its line or after a colon."""
    w, f = tf.words[j], fold(tf.words[j])
    if tf.text[tf.ends[j] : tf.starts[i]] != ", " or not w[:1].isupper():
        return False
    if tf.text[max(0, tf.starts[j] - 2) : tf.starts[j]].strip() not in ("", ":"):
        return False
    if f in STOP_WORDS or is_place_or_calendar(w) or is_city(w) or is_title(w) or is_role(w):
        return False
    return f in lasts or not is_vocabulary(w)


def two_people(tf: TextFeatures, names: set[int]) -> set[int]:
    """``names`` without a word that joins two of them as two people's ("<First> und <First>":
    ``floor.between_names``)."""
    return {
        i for i in names if not (i - 1 in names and i + 1 in names and between_names(tf.words[i]))
    }
