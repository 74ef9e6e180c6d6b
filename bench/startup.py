"""Start-up: `tracefix < error.log` against the floor of any query that uses the model.

    python bench/startup.py [LOG] [--runs 9] [--torch]

The floor is a bare interpreter that imports onnxruntime and tokenizers, opens the same ONNX
file, and embeds the same query text tracefix embeds for LOG. Every run of the floor, of
`tracefix < LOG` on the shipped knowledge base and of `tracefix < LOG` on a knowledge base of
1,000 records (the shipped ones plus synthetic ones) is interleaved in one loop, so the machine's
load falls on all of them alike; the ratios of the medians are the figures.
Floors: shipped <= 1.3 x the floor process, 1,000 records <= 1.5 x. `--torch` adds the
sentence-transformers backend for comparison; then a warm in-process match is timed.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

FLOOR = """
import sys
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
model, tokenizer, text = sys.argv[1:4]
tok = Tokenizer.from_file(tokenizer)
tok.enable_truncation(max_length=int(sys.argv[4]))
options = ort.SessionOptions()
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
enc = tok.encode(text)
ids, mask = np.array([enc.ids], dtype=np.int64), np.array([enc.attention_mask], dtype=np.int64)
feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
names = {i.name for i in session.get_inputs()}
hidden = session.run(None, {k: v for k, v in feed.items() if k in names})[0]
print((hidden * mask[:, :, None]).sum(axis=1).shape)
"""


def timed(cmd: list[str], stdin: Path | None = None, env: dict | None = None) -> float:
    start = time.perf_counter()
    with (stdin.open("rb") if stdin else open(os.devnull, "rb")) as f:
        done = subprocess.run(cmd, stdin=f, capture_output=True, env={**os.environ, "NO_COLOR": "1", **(env or {})})
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:3])} failed: {done.stderr.decode()[-800:]}")
    return elapsed


def floor_command(log: Path) -> list[str]:
    """The floor process for this log: same model file, same tokenizer, same query text."""
    from tracefix.indexer.model import resolve_model
    from tracefix.indexer.onnx_export import ensure_onnx
    from tracefix.logs.report import read_log
    from tracefix.match.matcher import build_query

    info = resolve_model(None)
    text = build_query(read_log(log.read_bytes())).text
    return [sys.executable, "-c", FLOOR, str(ensure_onnx(info)), str(info.path / "tokenizer.json"), text, str(info.max_length)]


def thousand_record_db(folder: Path) -> Path:
    """A database of the shipped records plus synthetic ones up to 1,000, index built."""
    sys.path.insert(0, str(ROOT / "bench"))
    from synthetic import synthetic_record

    from tracefix.kb import shipped
    from tracefix.kb.store import Store
    from tracefix.kb.validate import load_all
    from tracefix.match.loader import build_index
    from tracefix.settings import Settings

    db = folder / "kb1000.db"
    store = Store(db)
    records, _ = load_all([shipped.shipped_dir()])
    rng = random.Random(7)
    store.ingest(records, origin="shipped")
    store.ingest([synthetic_record(n, rng) for n in range(1000 - len(records))])
    build_index(Settings.resolve(db), store)
    return db


def warm_match_ms(log: Path, repeats: int = 50) -> float:
    from tracefix.env.environment import build_environment
    from tracefix.logs.report import read_log
    from tracefix.match.loader import load_matcher
    from tracefix.settings import Settings

    matcher = load_matcher(Settings.resolve())
    text = log.read_bytes()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        report = read_log(text)
        matcher.match(report, build_environment(report=report))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[5:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("log", nargs="?", default=str(ROOT / "examples" / "nccl-timeout-4rank.log"))
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--torch", action="store_true", help="also time TRACEFIX_BACKEND=torch")
    args = parser.parse_args()
    log = Path(args.log)
    tracefix = [sys.executable, "-m", "tracefix"]
    with tempfile.TemporaryDirectory() as tmp:
        big = {"TRACEFIX_DB": str(thousand_record_db(Path(tmp)))}
        floor = floor_command(log)
        kinds = {"floor": (floor, None, None), "tracefix": (tracefix, log, None), "tracefix-1000": (tracefix, log, big)}
        if args.torch:
            kinds["tracefix-torch"] = (tracefix, log, {"TRACEFIX_BACKEND": "torch"})
        for cmd, stdin, env in kinds.values():  # warm-up: index, snapshot and ONNX export, page cache
            timed(cmd, stdin, env)
        times: dict[str, list[float]] = {k: [] for k in kinds}
        for _ in range(args.runs):
            for kind, (cmd, stdin, env) in kinds.items():
                times[kind].append(timed(cmd, stdin, env))
    medians = {k: statistics.median(v) for k, v in times.items()}
    print(f"median of {args.runs} interleaved runs: " + ", ".join(f"{k} {v:.3f} s" for k, v in medians.items()))
    for kind, limit in (("tracefix", 1.3), ("tracefix-1000", 1.5)):
        ratio = medians[kind] / medians["floor"]
        print(f"{kind}: {ratio:.2f} x the floor process (floor: <= {limit} x): {'PASS' if ratio <= limit else 'FAIL'}")
    if args.torch:
        print(f"torch backend: {medians['tracefix-torch'] / medians['tracefix']:.1f} x the onnx one")
    print(f"warm match, median: {warm_match_ms(log):.1f} ms")


if __name__ == "__main__":
    main()
