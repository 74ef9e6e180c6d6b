"""Floor: `read_log` on a 200 MB multi-rank log stays under 300 MB peak RSS and takes seconds.

Builds a synthetic 8-rank torchrun log (step lines, tqdm redraws, ANSI colour, warnings and NCCL
INFO noise, a failure in rank 2 near the end followed by SIGTERM'd ranks and the ChildFailedError
summary), writes it to a temporary file (never committed), then runs `read_log` on it in a fresh
subprocess so that generating the log does not count towards the measured peak.

    python bench/log_memory.py [--mb 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEAK_FLOOR_MB = 300

_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from tracefix.logs.report import read_log
report = read_log(open(sys.argv[1], "rb"))
elapsed = time.perf_counter() - t0
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
root = report.root
print(json.dumps({"seconds": round(elapsed, 2), "peak_mb": round(peak_kb / 1024, 1), "lines": report.lines,
                  "root": f"{root.exception}: {root.message}" if root else None, "root_rank": report.root_rank,
                  "world_size": report.world_size, "failures": len(report.failures), "excerpt_chars": len(report.excerpt)}))
"""

_FAILURE = """[rank2]:Traceback (most recent call last):
[rank2]:  File "/workspace/train.py", line 212, in <module>
[rank2]:    trainer.train()
[rank2]:  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/stage3.py", line 2123, in unscale_and_clip_grads
[rank2]:    self.fp32_partitioned_groups_flat[sub_group_id].grad.mul_(1. / combined_scale)
[rank2]:RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:2 and cpu!
[2024-05-02 10:21:41,233] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 81230 closing signal SIGTERM
[2024-05-02 10:21:42,101] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 2 (pid: 81232) of binary: /usr/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-05-02_10:21:40
  rank      : 2 (local_rank: 2)
  exitcode  : 1 (pid: 81232)
============================================================
"""


def _noise_line(rng: random.Random, step: int) -> str:
    rank = rng.randrange(8)
    kind = rng.random()
    if kind < 0.70:
        return f"[rank{rank}]:{{'loss': {rng.random():.4f}, 'grad_norm': {rng.random() * 3:.3f}, 'learning_rate': 1.9e-05, 'epoch': {step / 1e5:.4f}}}\n"
    if kind < 0.85:
        bar = "".join(f"\r {p}%|{'#' * (p // 10):<10}| {p}/100 [00:{p % 60:02d}<00:30, 3.2it/s]" for p in range(0, 100, 20))
        return f"[rank{rank}]:{bar}\n"
    if kind < 0.97:
        return f"[rank{rank}]:\x1b[32m[2024-05-02 10:{step % 60:02d}:00]\x1b[0m step {step} throughput {rng.random() * 1000:.1f} samples/s\n"
    if kind < 0.99:
        return f"[rank{rank}]:node-7:81{rank}3:81{rank}9 [{rank}] NCCL INFO Channel 00/32 : {rank} -> {(rank + 1) % 8} via P2P/IPC\n"
    return f"[rank{rank}]:/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:429: UserWarning: use_reentrant should be passed explicitly\n"


def build(path: Path, megabytes: int, seed: int = 0) -> int:
    """Write the synthetic log; returns its size in bytes."""
    rng = random.Random(seed)
    target = megabytes * 2**20
    written, step = 0, 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("torchrun --nnodes 1 --nproc_per_node 8 train.py --deepspeed ds.json --bf16 True\n")
        while written < target:
            block = "".join(_noise_line(rng, step + i) for i in range(2000))
            step += 2000
            f.write(block)
            written += len(block)
        f.write(_FAILURE)
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="size of the synthetic log in MB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic-8rank.log"
        size = build(path, args.mb)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, env=env, cwd=ROOT)
        if out.returncode != 0:
            sys.exit(f"read_log failed:\n{out.stderr}")
        result = json.loads(out.stdout)
    print(f"log size:     {size / 2**20:.1f} MB ({result['lines']} lines)")
    print(f"read_log:     {result['seconds']} s")
    print(f"peak RSS:     {result['peak_mb']} MB (floor: < {PEAK_FLOOR_MB} MB)")
    print(f"root:         rank {result['root_rank']}: {result['root']}")
    print(f"world size:   {result['world_size']}, failures: {result['failures']}, excerpt: {result['excerpt_chars']} chars")
    print("PASS" if result["peak_mb"] < PEAK_FLOOR_MB else "FAIL")
    sys.exit(0 if result["peak_mb"] < PEAK_FLOOR_MB else 1)


if __name__ == "__main__":
    main()
