"""Scale: a synthetic knowledge base of N records (default 100,000).

    python bench/scale.py [--records 100000] [--queries 30]

Reports embedding throughput (records/s), index build time, the process's peak memory, and the
median time of one match in a warm process. Floor: a query in <= 50 ms median.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tracefix.env.environment import build_environment  # noqa: E402
from tracefix.indexer import faiss_store  # noqa: E402
from tracefix.kb.store import Store  # noqa: E402
from tracefix.logs.report import read_log  # noqa: E402
from tracefix.match.loader import load_matcher  # noqa: E402
from tracefix.settings import Settings  # noqa: E402
from tracefix.indexer.embed import make_embedder  # noqa: E402
from tracefix.indexer.model import resolve_model  # noqa: E402
from synthetic import synthetic_record  # noqa: E402

def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "scale.db"
        store = Store(db)
        start = time.perf_counter()
        records = [synthetic_record(n, rng) for n in range(args.records)]
        store.ingest(records)
        print(f"stored {args.records} records in {time.perf_counter() - start:.1f} s")
        settings = Settings.resolve(db)
        embedder = make_embedder(resolve_model(None), "onnx")
        start = time.perf_counter()
        faiss_store.build(store, embedder, settings.index_path)
        build_s = time.perf_counter() - start
        print(f"index build: {build_s:.1f} s, {args.records / build_s:.0f} records/s embedded")
        matcher = load_matcher(settings, rebuild=False)
        logs = [f"Traceback (most recent call last):\n  File \"/x/site-packages/{r.packages[0]}/a.py\", line 3, in f\n{r.symptoms[0]}"
                for r in rng.sample(records, args.queries)]
        times = []
        for log in logs:
            start = time.perf_counter()
            report = read_log(log)
            matcher.match(report, build_environment(report=report))
            times.append((time.perf_counter() - start) * 1000)
        print(f"warm query: median {statistics.median(times[3:]):.1f} ms over {len(times) - 3} queries")
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory (whole run, RSS): {peak_mib:.0f} MiB")


if __name__ == "__main__":
    main()
