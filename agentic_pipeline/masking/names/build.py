"""Build the name model from the development corpora.

    python -m agentic_pipeline.masking.names.build [--exclude CORPUS ...] [--out PATH]

reads the labelled corpora of ``../shared/external`` (``$AGENTIC_PIPELINE_EXTERNAL``), runs the
analyzer's spaCy model over them once (cached under ``~/.cache/agentic-pipeline/names``), turns
every candidate token into its features (``features.py``) with the label "inside a labelled
person span", fits a logistic regression (scikit-learn, pinned) with each corpus weighted equally,
and writes the weights as JSON (``data/name_model.json`` by default) with a version string made of
the feature version, the corpora and a hash of the weights. ``build_model(exclude=...)`` is what
the leave-one-corpus-out benchmark (``benchmarks/names_loco.py``) calls.

Corpora: the labelled texts of ``benchmarks/masking_eval/corpora.py`` (all development corpora;
the build runs from a checkout of the repository), plus the tables and lists ``augment.py``
makes from each corpus's own values (tables, lists, names in lower and upper case, invented
names, words of the other main European languages around the names).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentic_pipeline.masking.names.augment import (
    LabelledText,
    foreign_words,
    invented_names,
    lower_case_names,
    tables_and_lists,
    upper_case_texts,
)
from agentic_pipeline.masking.names.features import FEATURE_VERSION, TextFeatures
from agentic_pipeline.masking.names.model import MODEL_PATH, NameModel, neighbour_features

Span = tuple[int, int, str]
#: Corpus labels that are person names.
PERSON_TYPES = frozenset({"PERSON"})
#: A feature seen in fewer training tokens than this is dropped (no one-off memorised context).
MIN_FEATURE_COUNT = 3
#: Inverse regularisation strength of the logistic regression.
C = 0.5
#: Default probability bars written in the model: masked where it stands / propagated (0.3: the
#: best recall for under 1% of other words masked in the leave-one-corpus-out run).
THRESHOLD = 0.3
PROPAGATE = 0.85
#: The floor's veto bar (``NameModel.veto``): a spaCy PERSON entity is dropped only when the
#: model's probability of its best word is below this and it carries a non-person signal.
VETO: float | None = THRESHOLD
#: The floor's bar in a text of another language than English (``NameModel.veto_other_language``):
#: a spaCy PERSON entity there is dropped below it whatever its signals. Chosen on
#: fresh-blind-18 with the model built before it was written (analyzer level: other words 110 to
#: 98 of 5,648, no name lost at 0.1; one lost at 0.15, three at 0.3).
VETO_OTHER_LANGUAGE: float | None = 0.1
#: The entity floor's bar (``NameModel.entity_floor``): a spaCy organisation/place/group entity
#: of one word (or a listed first and last name) with no non-person signal is a person from this
#: probability. Off (None): at 0.1 it found 4 more of btc's 203 person values (trained without
#: btc) and 5 of the templates' 466 (in-sample) while masking 7 and 19 more organisations, places
#: and other words, and it took one-word companies and regions named alone in prose.
ENTITY_FLOOR: float | None = None
#: The extension bar (``NameModel.extend``): a unit from this probability joins a name unit beside
#: it or repeats one's word.
EXTEND: float | None = 0.15


# ------------------------------------------------------------------------------------- corpora
def external_root() -> Path:
    """Where the development corpora live (``../shared/external`` beside the checkout)."""
    return _corpora().external_root()


def _shared_corpora():
    """``benchmarks.masking_eval.corpora`` when importable (from a checkout of the repo)."""
    repo = Path(__file__).resolve().parents[3]
    if str(repo) not in sys.path and (repo / "benchmarks").is_dir():
        sys.path.append(str(repo))
    try:
        from benchmarks.masking_eval import corpora  # type: ignore[import-not-found]
    except ImportError:
        return None
    try:  # the tau loader reads the files with the evaluation helpers
        importlib.import_module("benchmarks.masking_eval.evaluation")
    except ImportError:  # a checkout where they still live in the product package
        sys.modules["benchmarks.masking_eval.evaluation"] = importlib.import_module(
            "agentic_pipeline.masking.evaluation"
        )
    return corpora


def _corpora():
    shared = _shared_corpora()
    if shared is None:
        raise RuntimeError(
            "the name model is built from a checkout of the repository: "
            "benchmarks/masking_eval/corpora.py reads the development corpora"
        )
    return shared


def corpus_names() -> list[str]:
    """The development corpora available (none without ``../shared/external/pii-dev``)."""
    shared = _corpora()
    return [*shared.TEXT_CORPORA, *shared.TAU_CORPORA] if shared.available() else []


#: How many labelled texts each tau file gives (episodes: its strings are many and alike).
TAU_EPISODES = 10


def load_corpus(name: str, limit: int | None = None) -> list[LabelledText]:
    """The labelled texts of one corpus (the tau files: ``TAU_EPISODES`` episodes)."""
    shared = _corpora()
    lim = TAU_EPISODES if name in shared.TAU_CORPORA and limit is None else limit
    items = shared.load(name, limit=lim)
    return [LabelledText(x.text, list(x.spans), x.corpus, x.doc_id) for x in items]


# --------------------------------------------------------------------------------- spaCy docs
def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentic-pipeline" / "names"


def _nlp(model: str | None = None):
    """The analyzer's NER pipeline of spaCy model ``model`` (default: the analyzer's model), loaded
    once per process."""
    import spacy

    from agentic_pipeline.masking.engine import DEFAULT_MODEL, UNNEEDED_COMPONENTS

    name = model or DEFAULT_MODEL
    if name not in _NLP:
        _NLP[name] = spacy.load(name, exclude=list(UNNEEDED_COMPONENTS))
    return _NLP[name]


_NLP: dict[str, object] = {}


def parse(texts: Sequence[str], cache_key: str | None = None, model: str | None = None) -> list:
    """spaCy documents of ``texts`` by the analyzer's NER pipeline (of spaCy model ``model``,
    default the analyzer's), cached on disk by content."""
    from spacy.tokens import DocBin

    nlp = _nlp(model)
    digest = hashlib.sha256("\x00".join(texts).encode("utf-8")).hexdigest()[:16]
    path = cache_dir() / f"{cache_key or 'docs'}-{nlp.meta['name']}-{digest}.spacy"
    if path.exists():
        docs = list(DocBin().from_bytes(path.read_bytes()).get_docs(nlp.vocab))
        if [d.text for d in docs] == list(texts):
            return docs
    docs = list(nlp.pipe(texts, batch_size=64))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(DocBin(attrs=["ENT_IOB", "ENT_TYPE"], docs=docs).to_bytes())
    tmp.replace(path)
    return docs


# ------------------------------------------------------------------------------------ training
@dataclass
class Examples:
    """Candidate units of some texts: features, labels (1: inside a person span) and, per unit,
    the example indices of its candidate neighbours on the same line (-1: none)."""

    X: list[list[str]]
    y: list[int]
    prev: list[int]
    next: list[int]


def token_examples(items: Sequence[LabelledText], docs: Sequence) -> Examples:
    """The examples of ``items``; past ``MAX_EXAMPLES`` whole texts are left out (in a seeded
    order), so that one large corpus does not make training slow."""
    import random

    order = list(range(len(items)))
    random.Random(21).shuffle(order)
    ex = Examples([], [], [], [])
    for k in order:
        if len(ex.y) >= MAX_EXAMPLES:
            break
        item, doc = items[k], docs[k]
        persons = [(a, b) for a, b, t in item.spans if t in PERSON_TYPES]
        tf = TextFeatures(item.text, doc)
        cands = tf.candidates()
        base = len(ex.y)
        pos = {i: base + n for n, i in enumerate(cands)}
        for i in cands:
            s, e = tf.starts[i], tf.ends[i]
            ex.X.append(tf.features(i))
            ex.y.append(int(any(a < e and s < b for a, b in persons)))
            p, n = tf.neighbours(i)
            ex.prev.append(pos.get(p, -1))
            ex.next.append(pos.get(n, -1))
    return ex


#: At most this many candidate units per corpus are used for training.
MAX_EXAMPLES = 60_000


def _matrix(rows_feats: Sequence[Sequence[str]], vocab: dict[str, int]):
    import numpy as np
    from scipy.sparse import csr_matrix

    rows, cols = [], []
    for r, feats in enumerate(rows_feats):
        for f in set(feats):
            k = vocab.get(f)
            if k is not None:
                rows.append(r)
                cols.append(k)
    return csr_matrix(
        (np.ones(len(rows), dtype=np.float64), (rows, cols)), shape=(len(rows_feats), len(vocab))
    )


def _logistic(X, y, weights, vocab: dict[str, int], c: float) -> tuple[dict[str, float], float]:
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=c, max_iter=3000, solver="liblinear", random_state=0)
    clf.fit(X, y, sample_weight=weights)
    coef = clf.coef_[0]
    names = sorted(vocab, key=vocab.get)  # type: ignore[arg-type]
    w = {f: float(coef[k]) for k, f in enumerate(names) if abs(coef[k]) >= 1e-4}
    return w, float(clf.intercept_[0])


def fit(
    examples: dict[str, Examples],
    c: float = C,
    threshold: float = THRESHOLD,
    propagate: float = PROPAGATE,
    veto: float | None = VETO,
    veto_other_language: float | None = VETO_OTHER_LANGUAGE,
    entity_floor: float | None = ENTITY_FLOOR,
    extend: float | None = EXTEND,
) -> NameModel:
    """The two-stage logistic regression over the examples of each corpus, each corpus weighing
    the same: stage 1 reads a unit's features, stage 2 the same and the stage-1 probabilities of
    its neighbours ("Orla Brown": a confident first name makes "Brown" a surname)."""
    import numpy as np

    per_corpus = {name: len(ex.y) for name, ex in examples.items() if ex.y}
    if not per_corpus:
        raise ValueError("no candidate tokens in the training texts")
    total = sum(per_corpus.values())
    X: list[list[str]] = []
    y: list[int] = []
    weights: list[float] = []
    prev: list[int] = []
    nxt: list[int] = []
    for ex in examples.values():
        if not ex.y:
            continue
        w = total / (len(per_corpus) * len(ex.y))
        off = len(y)
        X += ex.X
        y += ex.y
        weights += [w] * len(ex.y)
        prev += [p + off if p >= 0 else -1 for p in ex.prev]
        nxt += [n + off if n >= 0 else -1 for n in ex.next]
    counts: Counter[str] = Counter(f for feats in X for f in set(feats))
    vocab = {
        f: k for k, f in enumerate(sorted(f for f, n in counts.items() if n >= MIN_FEATURE_COUNT))
    }
    ys, ws = np.array(y), np.array(weights)
    w1, b1 = _logistic(_matrix(X, vocab), ys, ws, vocab, c)
    stage1 = NameModel(weights=w1, intercept=b1)
    p1 = [stage1.probability(feats) for feats in X]
    X2 = [
        feats + neighbour_features(p1[p] if p >= 0 else None, p1[n] if n >= 0 else None)
        for feats, p, n in zip(X, prev, nxt, strict=True)
    ]
    vocab2 = dict(vocab)
    for feats in X2:
        for f in feats:
            if f.startswith("nb") and f not in vocab2:
                vocab2[f] = len(vocab2)
    w2, b2 = _logistic(_matrix(X2, vocab2), ys, ws, vocab2, c)
    model = NameModel(
        weights=w1,
        intercept=b1,
        weights2=w2,
        intercept2=b2,
        threshold=threshold,
        propagate=propagate,
        veto=veto,
        veto_other_language=veto_other_language,
        entity_floor=entity_floor,
        extend=extend,
        meta={
            "corpora": sorted(per_corpus),
            "examples": dict(sorted(per_corpus.items())),
            "C": c,
            "min_feature_count": MIN_FEATURE_COUNT,
        },
    )
    body = json.dumps([model.to_json()["weights"], model.to_json()["weights2"]])
    model.version = f"names-f{FEATURE_VERSION}-{hashlib.sha256(body.encode()).hexdigest()[:10]}"
    return model


_EXAMPLES: dict[tuple[str, int | None, str | None], Examples] = {}


def corpus_examples(
    names: Iterable[str], limit: int | None = None, spacy_model: str | None = None
) -> dict[str, Examples]:
    """Training examples of each named corpus (kept for the next call in this process)."""
    out = {}
    for name in names:
        key = (name, limit, spacy_model)
        if key not in _EXAMPLES:
            items = load_corpus(name, limit)
            docs = parse([x.text for x in items], name, spacy_model)
            ex = token_examples(items, docs)
            extra = tables_and_lists(items, name, PERSON_TYPES)
            extra += lower_case_names(items, name, PERSON_TYPES)
            extra += invented_names(items, name, PERSON_TYPES)
            extra += foreign_words(items, name, PERSON_TYPES)
            extra += upper_case_texts(items, name, PERSON_TYPES)
            if extra:
                more = token_examples(
                    extra, parse([x.text for x in extra], f"{name}-tables", spacy_model)
                )
                off = len(ex.y)
                ex.X += more.X
                ex.y += more.y
                ex.prev += [p + off if p >= 0 else -1 for p in more.prev]
                ex.next += [q + off if q >= 0 else -1 for q in more.next]
            _EXAMPLES[key] = ex
        out[name] = _EXAMPLES[key]
    return out


def build_model(
    exclude: Iterable[str] = (),
    corpora: Iterable[str] | None = None,
    limit: int | None = None,
    out: str | Path | None = None,
    spacy_model: str | None = None,
) -> NameModel:
    """The name model trained on every available corpus but ``exclude`` (or on ``corpora``),
    also written to ``out`` when given; ``spacy_model``: the spaCy model whose labels it reads
    (default: the analyzer's)."""
    excluded = set(exclude)
    names = [c for c in (corpus_names() if corpora is None else corpora) if c not in excluded]
    if not names:
        raise ValueError("no training corpus: is ../shared/external/pii-dev there?")
    model = fit(corpus_examples(names, limit, spacy_model))
    if out is not None:
        model.save(out)
    return model


def build_from_texts(items: Sequence[LabelledText], **kwargs) -> NameModel:
    """A model trained on the given labelled texts only (tests, small samples)."""
    by_corpus: dict[str, list[LabelledText]] = {}
    for x in items:
        by_corpus.setdefault(x.corpus, []).append(x)
    examples = {}
    for name, group in by_corpus.items():
        docs = _parse_nocache(group)
        examples[name] = token_examples(group, docs)
    return fit(examples, **kwargs)


def _parse_nocache(items: Sequence[LabelledText]) -> list:
    return list(_nlp().pipe([x.text for x in items]))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exclude", nargs="*", default=[], help="corpora left out of training")
    ap.add_argument("--out", default=str(MODEL_PATH), help="model file to write")
    ap.add_argument("--limit", type=int, default=None, help="texts per corpus (for a quick try)")
    args = ap.parse_args(argv)
    model = build_model(exclude=args.exclude, limit=args.limit, out=args.out)
    print(
        f"{model.version}: {len(model.weights)} weights, corpora {model.meta['corpora']}, "
        f"written to {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
