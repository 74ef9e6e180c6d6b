"""Quality on a labelled set: tracefix against two baselines, in one run.

    python bench/quality.py ../shared/eval/public [--db PATH]

Baselines: BM25 alone over the records' text (SQLite FTS5 with the raw log's words), and dense
similarity alone (the raw log embedded, nearest record in FAISS). A baseline calls its first answer
confident when it has one at all (BM25) or when its cosine is >= 0.5 (dense), so negatives count.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tracefix.evaluation.cases import load_cases  # noqa: E402
from tracefix.evaluation.metrics import Ranked, score  # noqa: E402
from tracefix.evaluation.run import answer  # noqa: E402
from tracefix.match.loader import load_matcher  # noqa: E402
from tracefix.settings import Settings  # noqa: E402

DENSE_CONFIDENT = 0.5


def bm25_only(matcher, log: str) -> Ranked:
    hits = matcher.store.search(log, limit=3)
    return Ranked(ids=tuple(rid for rid, _ in hits), confident=bool(hits))


def dense_only(matcher, log: str) -> Ranked:
    vector = matcher.embedder.embed([log])
    scores, rows = matcher.index.search(vector, 3)
    ids = tuple(matcher.ids[r] for r in rows[0] if r >= 0)
    return Ranked(ids=ids, confident=bool(ids) and float(scores[0][0]) >= DENSE_CONFIDENT)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--db")
    args = parser.parse_args()
    cases = load_cases(args.folder)
    matcher = load_matcher(Settings.resolve(args.db))
    systems = {"tracefix": lambda c: answer(matcher, c), "bm25-only": lambda c: bm25_only(matcher, c.log),
               "dense-only": lambda c: dense_only(matcher, c.log)}
    print(f"{len(cases)} cases, {len(matcher.records)} records")
    print(f"{'system':<12}{'top1':>7}{'top3':>7}{'MRR':>7}{'conf-wrong':>12}{'(neg)':>7}{'ms/case':>9}")
    for name, system in systems.items():
        start = time.perf_counter()
        metrics = score(cases, [system(c) for c in cases])
        ms = (time.perf_counter() - start) * 1000 / len(cases)
        print(f"{name:<12}{metrics.top1:>7.3f}{metrics.top3_recall:>7.3f}{metrics.mrr:>7.3f}"
              f"{metrics.confident_wrong:>12}{metrics.confident_wrong_negatives:>7}{ms:>9.1f}")
        if name == "tracefix" and metrics.failures:
            print(f"  missed: {', '.join(metrics.failures)}")


if __name__ == "__main__":
    main()
