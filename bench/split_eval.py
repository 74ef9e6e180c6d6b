"""Split harvested labelled cases into a tuning part and a held-out part, once, by thread.

    python bench/split_eval.py data/eval/harvest data/eval

Every case of one thread (its `url`) lands on the same side, decided by a hash of the URL, so the
split never depends on the order cases were found in and re-running it moves nothing. About a
third of the threads are held out. The held-out part is for reporting only: nothing is fitted or
tuned on it (bench/fit_confidence.py is only ever given the tuning part).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path

HELD_OUT_SHARE = 0.35


def held_out(url: str) -> bool:
    digest = hashlib.sha256(url.strip().rstrip("/").lower().encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < HELD_OUT_SHARE


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("source", help="folder with harvested cases (searched recursively)")
    parser.add_argument("target", help="folder that gets tune/ and holdout/")
    args = parser.parse_args()
    target = Path(args.target)
    counts = {"tune": 0, "holdout": 0}
    for path in sorted(Path(args.source).rglob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        side = "holdout" if held_out(case["url"]) else "tune"
        (target / side).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / side / f"{case['case']}.json")
        counts[side] += 1
    print(counts)


if __name__ == "__main__":
    main()
