"""How many of the facts stated in real pasted environment reports tracefix reads correctly.

Each report under tests/assets/env-reports/<kind>/ is read the way a user gives it (the text as a
log: `tracefix env FILE`), and every fact its sidecar lists is compared with what was read.
Prints, per kind, facts read correctly / facts stated, then the total; `--misses` lists the wrong ones.
`--match-path` reads each report as the matcher reads a log instead (blocks only near failure words).

    .venv/bin/python bench/env_reports.py [--misses] [--match-path]
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "tests" / "assets" / "env-reports"


def reports(base: Path = REPORTS) -> list[tuple[Path, dict]]:
    """(text path, sidecar) for every collected report, in a stable order."""
    return [(p.with_suffix(".txt"), json.loads(p.read_text())) for p in sorted(base.glob("*/*.json"))]


def _same_error(expected: str | None, got: str | None) -> bool:
    squash = lambda s: re.sub(r"\s+", " ", s).strip() if s else s  # noqa: E731
    return squash(expected) == squash(got)


def check(read: dict, expected: dict) -> list[tuple[str, object, object, bool]]:
    """(fact, expected, read, correct) for every fact the sidecar states; `read` is environment_dict()."""
    out = []
    for name, version in expected.get("packages", {}).items():
        got = read["packages"].get(name)
        out.append((f"package {name}", version, got, got == version))
    for name in expected.get("absent_packages", []):
        got = read["packages"].get(name)
        out.append((f"no package {name}", None, got, got is None))
    if "gpu_names" in expected:
        got = sorted({g["name"] for g in read["gpus"] if g["name"]})
        out.append(("gpu_names", sorted(expected["gpu_names"]), got, got == sorted(expected["gpu_names"])))
    for key in ("gpu_count", "driver_version", "cuda_version", "torch_cuda"):
        if key in expected:
            out.append((key, expected[key], read[key], read[key] == expected[key]))
    if "smi_error" in expected:
        out.append(("smi_error", expected["smi_error"], read["smi_error"], _same_error(expected["smi_error"], read["smi_error"])))
    return out


def main(argv: list[str]) -> int:
    from tracefix.env.environment import build_environment, environment_dict, from_text
    from tracefix.logs.report import read_log

    if "--match-path" in argv:
        from_text = lambda text: build_environment(report=read_log(text))  # noqa: E731
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    misses = []
    for path, sidecar in reports():
        results = check(environment_dict(from_text(path.read_text())), sidecar["expected"])
        tally = per_kind[sidecar["kind"]]
        tally[0] += sum(ok for *_, ok in results)
        tally[1] += len(results)
        tally[2] += 1
        misses += [(path.relative_to(REPORTS), fact, want, got) for fact, want, got, ok in results if not ok]
    print(f"{'kind':<14}{'reports':>8}{'facts read / stated':>22}{'share':>8}")
    right = stated = count = 0
    for kind, (ok, total, n) in sorted(per_kind.items()):
        print(f"{kind:<14}{n:>8}{ok:>14} / {total:<6}{ok / total:>8.1%}")
        right, stated, count = right + ok, stated + total, count + n
    print(f"{'total':<14}{count:>8}{right:>14} / {stated:<6}{right / stated:>8.1%}")
    if "--misses" in argv:
        for path, fact, want, got in misses:
            print(f"MISS {path}: {fact}: expected {want!r}, read {got!r}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
