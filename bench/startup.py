"""Start-up and warm-match speed, index already built.

    python bench/startup.py [LOG] [--runs 7]

Runs `tracefix < LOG` end to end (process start to exit) with the ONNX backend and with
TRACEFIX_BACKEND=torch, interleaved in one run, and reports medians and their ratio; then the
median of one match inside a warm process. Floors: <= 0.6 s, >= 8x, <= 30 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def run_once(log: Path, backend: str) -> float:
    env = {**os.environ, "TRACEFIX_BACKEND": backend, "NO_COLOR": "1"}
    start = time.perf_counter()
    with log.open("rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "tracefix"], stdin=stdin, capture_output=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"tracefix failed ({backend}): {done.stderr.decode()[-500:]}")
    return elapsed


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
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    log = Path(args.log)
    run_once(log, "onnx")  # builds the index and the ONNX export if missing; not timed
    onnx, torch = [], []
    for _ in range(args.runs):
        onnx.append(run_once(log, "onnx"))
        torch.append(run_once(log, "torch"))
    m_onnx, m_torch = statistics.median(onnx), statistics.median(torch)
    print(f"end to end, median of {args.runs}: onnx {m_onnx:.3f} s, torch {m_torch:.3f} s, ratio {m_torch / m_onnx:.1f}x")
    print(f"warm match, median: {warm_match_ms(log):.1f} ms")


if __name__ == "__main__":
    main()
