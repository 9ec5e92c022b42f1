"""Words that name a thing whose number follows them ("order 77120334", "Bestellnummer:
5520194", "n° de commande 771204"): a loose id shape right after one is that thing's id, kept in
clear for replay and joins. The words are data (``labels.yaml``, ``thing_words``), in English and
the main European languages. (The second-line scan keeps its own list: it is an independent
detector family.)"""

from __future__ import annotations

import re

from agentic_pipeline.masking.detectors.data_files import data_file


def _alternation() -> str:
    words = sorted({w.lower() for w in data_file("labels.yaml")["thing_words"]}, key=len)
    return "(?:" + "|".join(re.escape(w) for w in reversed(words)) + ")"


#: One thing word (case-insensitive, used inside larger patterns).
THING_WORDS = _alternation()
#: A number word between a thing word and its number ("order no.", "Commande n°", "pedido número").
_NUMBER_WORD = r"(?:no|nr|number|id|code|ref|n°|nº|numéro|numero|número|nummer|numer|#)"
#: A thing word right before a value, with an optional number word and "is"/"was"; not "on
#: file:", which says where a person's value is kept.
THING_BEFORE = re.compile(
    rf"(?i)(?<!\w)(?<!\bon ){THING_WORDS}(?!\w)"
    rf"[ \t#:.(\[-]*(?:{_NUMBER_WORD}\.?[ \t#:.]*)?(?:(?:is|was|ist|est|es|è)[ \t#:]*)?$"
)
#: A thing word right before a generic label ("Order ID", "flight no."): the id is the thing's.
THING_WORD_BEFORE = re.compile(rf"(?i)(?<!\w){THING_WORDS}(?!\w)[ \t#:.(\[-]*$")
#: A thing word anywhere in a phrase (between a label and its value, or inside a label); not in
#: "on file" or "on record", which say where a person's value is kept ("member ID on file is").
THING_WORD_IN = re.compile(rf"(?i)(?<!\w)(?<!\bon ){THING_WORDS}s?(?!\w)")
