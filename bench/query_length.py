"""Quality against the length of the embedded query text: the model's cost is its tokens.

    python bench/query_length.py FOLDER [FOLDER ...] [--lengths 80,120,160,240,320,480]

For each cut-off of the query text (`tracefix.match.matcher.QUERY_CHARS`), runs the matcher over
the labelled cases and prints top-1, precision of confident answers and the model's median time
per query (one ONNX thread, as the service runs it). Pick the shortest that keeps the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["TRACEFIX_ONNX_THREADS"] = "1"

from tracefix.evaluation.cases import load_cases  # noqa: E402
from tracefix.evaluation.metrics import score  # noqa: E402
from tracefix.evaluation.run import answer  # noqa: E402
from tracefix.logs.report import read_log  # noqa: E402
from tracefix.match import matcher as matcher_module  # noqa: E402
from tracefix.match.loader import load_matcher  # noqa: E402
from tracefix.settings import Settings  # noqa: E402


def model_ms(matcher, texts: list[str]) -> float:
    times = []
    for text in texts:
        start = time.perf_counter()
        matcher.embedder.embed([text])
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--lengths", default="80,120,160,240,320,480")
    args = parser.parse_args()
    cases = load_cases(*args.folders)
    matcher = load_matcher(Settings.resolve())
    reports = [read_log(c.log) for c in cases]
    print(f"{len(cases)} cases; {'chars':>6} {'tokens':>7} {'model ms':>9} {'top1':>6} {'top3':>6} {'MRR':>6} {'precision':>10} {'neg unanswered':>15}")
    for length in map(int, args.lengths.split(",")):
        matcher_module.QUERY_CHARS = length
        texts = [matcher_module.build_query(r).text for r in reports]
        tokens = statistics.median(len(matcher.embedder.tokenizer.encode(t).ids) for t in texts)
        metrics = score(cases, [answer(matcher, c) for c in cases])
        print(f"{'':>{len(str(len(cases))) + 8}}{length:>6} {tokens:>7.0f} {model_ms(matcher, texts):>9.1f} {metrics.top1:>6.3f} "
              f"{metrics.top3_recall:>6.3f} {metrics.mrr:>6.3f} {metrics.precision:>10.3f} {metrics.negatives_unanswered:>15.3f}")


if __name__ == "__main__":
    main()
