"""Person names that no list has, found by their context: greetings and vocatives, being called
or named, credits, speakers' labels, verbs of speech, roles ("songwriter X", "my kid X"), former
members ("ex-Zombie X"), authors of works ("the X novel"), person field labels ("Customer: X"),
names before an e-mail address, lists of names after a colon.
"""

from __future__ import annotations

import re

from presidio_analyzer import RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from agentic_pipeline.masking.names import (
    _TITLE_WORDS,
    NAME_EVIDENCE_SCORE,
    PersonRecognizer,
    listed_name,
    not_a_name_word,
    spacy_non_persons,
)
from agentic_pipeline.masking.pseudonyms import fold_word as fold
from agentic_pipeline.masking.vocabulary import LW as _LW
from agentic_pipeline.masking.vocabulary import STOP_WORDS as _STOP
from agentic_pipeline.masking.vocabulary import UP as _UP
from agentic_pipeline.masking.vocabulary import is_place, is_vocabulary

#: One capitalised name word ("Rościsław", "DeRose", "Anne-Marie"), without a possessive.
_W = rf"[{_UP}][{_LW}]+(?:[{_UP}][{_LW}]+)?(?:-[{_UP}][{_LW}]+)?"
#: A vocative opening a sentence: "Szemere, can I please speak to your boss?"
_VOCATIVE_RE = re.compile(
    rf"(?:^|(?<=[.!?][ \t])|(?<=\n))({_W}),[ \t]+(?:can|could|would|will|please|do|did|have|"
    r"are|is|I|we|you|thank|thanks|listen|look|come|wait|stop|remember)(?!\w)",
    re.MULTILINE,
)
#: The author of a work: "Unlike the Guðþórsson novel", "the Bazhaev memoirs".
_WORK_AUTHOR_RE = re.compile(
    rf"(?<!\w)[Tt]he[ \t]+({_W})[ \t]+(?:novel|novels|book|books|memoir|memoirs|poem|poems|"
    r"biography|autobiography|symphony|sonata|opera|painting|"
    r"paintings|short stories|stories|essay|essays|diaries|letters)(?!\w)"
)
#: Contexts that say the next (or previous) capitalised word is a person: a greeting or
#: vocative, being called or named, a credit, a speaker's label, a verb of speech, a person's
#: possessions, an action aimed at somebody, a person verb after a sentence's first word.
_NAME_CONTEXT_RES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"(?<!\w)(?:Hi|Hello|Hey|Dear|Dearest|Thanks|Thank you|Bye|Goodbye|Welcome|"
        rf"Congratulations|Cheers|Howdy|Good (?:morning|evening|afternoon))"
        rf",?[ \t]+({_W})(?![\w'’-])"
    ),
    re.compile(
        rf"(?i:(?<!\w)(?:call me|called|named(?: (?:him|her|them|it|me))?|name is|name's|"
        rf"(?:my|his|her|their|your|partner's|wife's|husband's|child's|son's|daughter's) name|"
        rf"(?:last|first|given|family|maiden|middle) name(?: is| was)?|surname(?: is| was)?))"
        rf"\W{{0,3}}({_W})(?![\w-])"
    ),
    re.compile(
        rf"(?i:(?<!\w)(?:starring|featuring|directed by|written by|produced by|played by|"
        rf"sung by|performed by|composed by|authored by|signed by|sent by|from the desk of))"
        rf"[ \t]+({_W})(?![\w-])"
    ),
    re.compile(rf"(?m)^[> \t]*({_W})[ \t]*:[ \t]*[\"“]"),
    re.compile(
        rf"(?<![\w@.])({_W})[ \t]+(?:said|says|asked|replied|wrote|writes|shouted|told|"
        rf"whispered|explained|answered|yelled|exclaimed)(?!\w)"
    ),
    re.compile(
        rf"(?<![\w@.])({_W})['’]s[ \t]+(?:address|phone|email|e-mail|number|birthday|wife|"
        rf"husband|mother|father|son|daughter|brother|sister|friend|family|account|card|"
        rf"passport|mobile|home|parents|children|child|kid|kids|baby|dad|mom|mum|boss|partner|"
        rf"name|signature|car|dog|cat|birth)(?!\w)"
    ),
    re.compile(
        rf"(?i:(?<!\w)(?:shouted|yelled|smiled|waved|looked|pointed|laughed|nodded|winked|"
        rf"stared|glared|screamed) at)[ \t]+({_W})(?![\w-])"
    ),
    re.compile(
        rf"(?:^|(?<=[.!?][ \t])|(?<=\n))[> \t]*({_W})[ \t]+(?:is from|was born|lives|lived|"
        r"spent|began|works|worked|studied|grew up|moved|went to|is very|was very|had given|"
        r"has given|gave)(?!\w)",
        re.MULTILINE,
    ),
    re.compile(rf",[ \t]+({_W})!"),
    # a person's field label: "Customer: Cazares, Calquín", "Passenger: Anna Lind"
    re.compile(
        rf"(?i:(?<!\w)(?:customer|passenger|guest|client|patient|traveller|traveler|"
        rf"account holder|cardholder|card holder|holder|full name|contact person|recipient|"
        rf"addressee|attn|attention|beneficiary))[ \t]*:[ \t]*({_W})(?:,?[ \t]+({_W}))?"
    ),
    # what is booked or ordered for somebody: "Booking for Gregorina Tórrez:"
    re.compile(
        rf"(?i:(?<!\w)(?:booking|reservation|ticket|tickets|order|seat|room|table|refund|"
        rf"invoice|receipt|parcel|package|appointment)[ \t]+for)[ \t]+({_W})"
        rf"(?:[ \t]+({_W}))?(?![\w-])"
    ),
    # two people doing something together: "Turgeon and Lind were precision engineers"
    re.compile(
        rf"(?<![\w@.])({_W})[ \t]+(?:and|&)[ \t]+({_W})[ \t]+(?:were|are|have been|had been|"
        r"married|met|went|live|lived|work|worked)(?!\w)"
    ),
    # a name before its e-mail address: "Bartele Exterkate (b.ex@example.nl)"
    re.compile(rf"(?<![\w@.])({_W})(?:[ \t]+({_W}))?[ \t]*[(<][\w.+-]+@"),
    _VOCATIVE_RE,
    # after a verb of speech: "..., says Kuivanen."
    re.compile(
        rf"(?<!\w)(?:says|said|asks|asked|writes|wrote|adds|added|explains|explained|replies|"
        rf"replied|according to)[ \t]+({_W})(?![\w-])"
    ),
    # a role before a name: "songwriter Ömür Bischoff", "my colleague Anna"
    re.compile(
        rf"(?i:(?<!\w)(?:songwriter|singer|actor|actress|author|writer|poet|composer|painter|"
        rf"artist|director|producer|founder|ceo|chairman|chairwoman|president|professor|"
        rf"colleague|coworker|co-worker|friend|boyfriend|girlfriend|fiancée?|wife|husband|son|"
        rf"daughter|mother|father|brother|sister|uncle|aunt|cousin|nephew|niece|grandson|"
        rf"granddaughter|grandmother|grandfather|kid|child|baby|partner|spouse|"
        rf"neighbou?r|guardian|passenger|traveller|traveler|"
        rf"customer|client|patient|tenant|landlord|employee|manager|assistant|secretary|"
        rf"commenter|reader|member|fan|blogger|reporter|journalist|spokesperson|spokesman|"
        rf"spokeswoman|analyst|critic|editor|coach|player|captain|pilot|officer|agent))"
        rf"[ \t]+({_W})(?![\w-])"
    ),
    # a former member: "ex-Beatle Ringo", "ex-Zombie Szöllösi"
    re.compile(rf"(?<![\w-])[Ee]x-[{_UP}][\w]+[ \t]+({_W})(?![\w-])"),
    _WORK_AUTHOR_RE,
    # a person added or named in a role: "add Isolda Marrero as guardian"
    re.compile(
        rf"(?<![\w@.])({_W})(?:[ \t]+{_W})?[ \t]+as[ \t]+(?:(?:an?|the|my|our|his|her)[ \t]+)?"
        r"(?:guardian|passenger|traveller|traveler|beneficiary|contact|driver|authori[sz]ed user|"
        r"emergency contact|co-?signer|account holder|cardholder|card holder)(?!\w)"
    ),
)
#: Position in ``_NAME_CONTEXT_RES`` of being called or named: there common words are names too.
_NAMING = 1
#: The patterns of "the X novel" and of a vocative opening a sentence: there an English word rarer
#: than vocabulary is a publisher or a series ("the Penguin books") or a sentence adverb
#: ("Lastly, you want to ...", "Alternatively, you can ..."), not a person.
_RARE_WORD_VETO = frozenset({_VOCATIVE_RE, _WORK_AUTHOR_RE})
#: Right before a name given as one: "My name is", "her maiden name was", "surname:".
_NAMED_BEFORE = re.compile(r"(?i)(?<!\w)(?:name|surname)(?:[ \t]+(?:is|was)|['’]s|:)[ \t]+$")
#: A speaker's label at a line's start ("Lahual: What a ..."): a name when it labels two lines.
_SPEAKER_RE = re.compile(rf"(?m)^[> \t]*({_W})[ \t]*:")

#: A list of three or more capitalised words after a colon ("They had 3: A, B and C").
_NAME_LIST_RE = re.compile(
    rf":[ \t]*((?:{_W},[ \t]+){{1,12}}{_W},?[ \t]+(?:and|&)[ \t]+{_W})(?![\w-])"
)


class NameContextRecognizer(PersonRecognizer):
    """A capitalised word that no name list has, found by its context: "Hi Rościsław", "call me
    Kuyra", "starring Bjelajac", "Kolos: \\"Who are you?\\"", "Sulimat's address", "shouted at
    Max", "Hideko is from ...". The word must not be vocabulary, a place or a calendar word."""

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Report names in context (``NAME_EVIDENCE_SCORE``: episode-wide values) and lists of
        names (0.55: masked where they stand)."""
        if entities and "PERSON" not in entities:
            return []
        places, others = spacy_non_persons(nlp_artifacts)
        out: dict[tuple[int, int], float] = {}
        for i, rx in enumerate(_NAME_CONTEXT_RES):
            for m, g in ((m, g) for m in rx.finditer(text) for g in range(1, rx.groups + 1)):
                if m.group(g) is None:
                    continue
                s, e = m.start(g), m.end(g)
                word = m.group(g)
                if (s, e) in out or fold(word) in _TITLE_WORDS:
                    continue
                f = fold(word)
                if i == _NAMING:  # "my partner's name Nail": a word can be a name here
                    if f in _STOP or is_place(word) and not _NAMED_BEFORE.search(text, 0, s):
                        continue  # ("her maiden name is Holland": a place named as a name)
                elif is_place(word) or (
                    not_a_name_word(word, calendar=False)
                    and not (listed_name(word) and f not in _STOP)
                ):
                    continue  # "Mark is very reliable": a listed name in context is one
                if not listed_name(word) and any(a < e and s < b for a, b in places):
                    continue
                if (
                    rx in _RARE_WORD_VETO
                    and not listed_name(word)
                    and is_vocabulary(word, 3.0, ("en",))
                ):
                    continue
                out[(s, e)] = NAME_EVIDENCE_SCORE
        labels = [(m.start(1), m.end(1), m.group(1)) for m in _SPEAKER_RE.finditer(text)]
        if len(labels) >= 2:
            counts: dict[str, int] = {}
            for _, _, w in labels:
                counts[w] = counts.get(w, 0) + 1
            for s, e, w in labels:
                if counts[w] >= 2 and not not_a_name_word(w) and fold(w) not in _TITLE_WORDS:
                    out.setdefault((s, e), NAME_EVIDENCE_SCORE)
        for m in _NAME_LIST_RE.finditer(text):  # "They had 3: Takaya, Hideko and Minik"
            items = list(re.finditer(_W, m.group(1)))
            if len(items) < 3 or any(not_a_name_word(w.group()) for w in items):
                continue
            if any(a < m.end(1) and m.start(1) < b for a, b in others):
                continue
            for w in items:
                out.setdefault((m.start(1) + w.start(), m.start(1) + w.end()), 0.55)
        return [RecognizerResult("PERSON", s, e, sc) for (s, e), sc in sorted(out.items())]
