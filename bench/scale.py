"""Scale: a synthetic knowledge base of N records (default 100,000).

    python bench/scale.py [--records 100000] [--queries 30]

Reports embedding throughput (records/s), index build time, the time a fresh process takes to
load the knowledge base (the first load builds the snapshot beside the database, later ones read
it), the process's peak memory, and the median time of one match in a warm process.
Floors: a query in <= 50 ms median; loading the knowledge base at start in <= 2 s.
`--keep DIR` keeps (and on later runs reuses) the database and index there.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tracefix.env.environment import build_environment  # noqa: E402
from tracefix.indexer import faiss_store  # noqa: E402
from tracefix.kb import snapshot  # noqa: E402
from tracefix.kb.store import Store  # noqa: E402
from tracefix.logs.report import read_log  # noqa: E402
from tracefix.match.loader import load_matcher  # noqa: E402
from tracefix.settings import Settings  # noqa: E402
from tracefix.indexer.embed import make_embedder  # noqa: E402
from tracefix.indexer.model import resolve_model  # noqa: E402
from synthetic import synthetic_record  # noqa: E402

def build(db: Path, records: list, settings: Settings) -> None:
    store = Store(db)
    start = time.perf_counter()
    store.ingest(records)
    print(f"stored {len(records)} records in {time.perf_counter() - start:.1f} s")
    embedder = make_embedder(resolve_model(None), "onnx")
    start = time.perf_counter()
    faiss_store.build(store, embedder, settings.index_path)
    build_s = time.perf_counter() - start
    print(f"index build: {build_s:.1f} s, {len(records) / build_s:.0f} records/s embedded")


LOAD = """
import sys, time
start = time.perf_counter()
from tracefix.match.loader import load_matcher
from tracefix.settings import Settings
matcher = load_matcher(Settings.resolve(sys.argv[1]), rebuild=False)
print(time.perf_counter() - start, len(matcher.records))
"""


def load_seconds(db: Path) -> float:
    """A fresh process: imports, store, index and records loaded, ready to match (the model aside)."""
    done = subprocess.run([sys.executable, "-c", LOAD, str(db)], capture_output=True, text=True, check=True)
    return float(done.stdout.split()[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--keep", help="folder for the database and index, reused when already built")
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        db = folder / "scale.db"
        settings = Settings.resolve(db)
        records = [synthetic_record(n, rng) for n in range(args.records)]
        if not (args.keep and settings.index_path.exists() and Store(db).count() == args.records):
            build(db, records, settings)
        snapshot.path_for(db).unlink(missing_ok=True)  # index build wrote it; time building it too
        for attempt in ("without a snapshot (builds it)", "with the snapshot (every later start)"):
            print(f"load at start, {attempt}: {load_seconds(db):.2f} s")
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
