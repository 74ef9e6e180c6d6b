"""Fit the confidence model (tracefix/match/confidence.json) on labelled real logs.

    python bench/fit_confidence.py FOLDER [FOLDER ...] [--kb-logs DIR] [--precision 0.99] [--write]

Every candidate record the matcher considers for a case is one row: its evidence features
(`tracefix.match.evidence.FEATURES`) and whether it is a right answer for the case (a record only
`acceptable` for the case is left out: it is neither). A logistic regression (scikit-learn) gives
the weights. The confidence threshold is then chosen for precision: on out-of-fold probabilities
(folds grouped by thread, so no thread informs its own prediction), the lowest threshold whose
confident first answers reach `--precision` on the cases. Only pass tuning folders here: the
held-out set is never fitted on. `--kb-logs` adds each record's own example logs (`<id>.log`, `<id>@<case>.log`)
as cases whose answer is that record. `--write` stores the result; without it, figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
from sklearn.isotonic import IsotonicRegression  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GroupKFold  # noqa: E402

from tracefix.env.environment import build_environment  # noqa: E402
from tracefix.evaluation.cases import Case, load_cases  # noqa: E402
from tracefix.logs.report import read_log  # noqa: E402
from tracefix.match import scoring  # noqa: E402
from tracefix.match.evidence import FEATURES, Evidence  # noqa: E402
from tracefix.match.loader import load_matcher  # noqa: E402
from tracefix.settings import Settings  # noqa: E402

OUT = ROOT / "tracefix" / "match" / "confidence.json"
C = 1.0  # the regression's regularisation; the features are few and bounded


def observe(cases: list[Case]) -> list[list[tuple[str, Evidence]]]:
    matcher = load_matcher(Settings.resolve())
    out = []
    for case in cases:
        report = read_log(case.log)
        env = build_environment(freeze=case.pip_freeze, smi=case.nvidia_smi, report=report, gpu_count=case.gpu_count)
        out.append([(r.id, e) for r, e in matcher.evidence(report, env)])
    return out


def rows(cases: list[Case], observed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, groups = [], [], []
    for n, (case, candidates) in enumerate(zip(cases, observed)):
        for rid, e in candidates:
            if rid in case.acceptable:
                continue
            xs.append(e.features())
            ys.append(rid in case.expected)
            groups.append(case.url or case.case)
    return np.array(xs), np.array(ys, dtype=int), np.array(groups)


def fitted_dict(model: LogisticRegression, threshold: float) -> dict:
    return {"features": list(FEATURES), "weights": [round(float(w), 5) for w in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 5), "threshold": round(threshold, 4)}


def first_answer(candidates, fitted: dict, threshold: float) -> tuple[str | None, bool]:
    """The matcher's first answer under these weights: confident ones first, a confident specific
    record before its generic family record (as `matcher._families` orders them)."""
    scored = [(rid, e, scoring.probability(e, fitted), scoring.raw_probability(e, fitted)) for rid, e in candidates]
    confident = [c for c in scored if scoring.is_confident(c[1], c[2], threshold)]
    if confident:
        heads = {c[0] for c in confident if c[1].family_head}
        if any(c[1].family_member for c in confident) and heads:
            confident = [c for c in confident if not c[1].family_head] or confident
        return max(confident, key=lambda c: (not c[1].family_head, c[2], c[3]))[0], True  # as matcher._families
    return (max(scored, key=lambda c: (c[2], c[3]))[0] if scored else None), False


def calibration(cases, observed, fitted_per_case) -> dict:
    """Isotonic map from a first answer's out-of-fold raw probability to whether it was right."""
    raw, right = [], []
    for case, candidates, fitted in zip(cases, observed, fitted_per_case):
        scored = [(rid, scoring.raw_probability(e, fitted)) for rid, e in candidates]
        if not scored:
            continue
        rid, p = max(scored, key=lambda c: c[1])
        if rid not in case.acceptable:
            raw.append(p)
            right.append(rid in case.expected)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(raw, right)
    return {"x": [round(float(v), 5) for v in iso.X_thresholds_], "y": [round(float(v), 5) for v in iso.y_thresholds_]}


def precision_at(cases, observed, fitted_per_case, threshold) -> tuple[float, int]:
    right = wrong = 0
    for case, candidates, fitted in zip(cases, observed, fitted_per_case):
        rid, confident = first_answer(candidates, fitted, threshold)
        if not confident or rid in case.acceptable:
            continue
        right += rid in case.expected
        wrong += rid not in case.expected
    return (right / (right + wrong) if right + wrong else 1.0), right


def out_of_fold(cases, observed, folds: int = 5) -> list[dict]:
    """For each case, a model fitted without its thread."""
    groups = np.array([c.url or c.case for c in cases])
    per_case: list[dict | None] = [None] * len(cases)
    for train, test in GroupKFold(n_splits=folds).split(np.zeros(len(cases)), groups=groups):
        x, y, _ = rows([cases[i] for i in train], [observed[i] for i in train])
        fitted = fitted_dict(LogisticRegression(C=C, max_iter=1000).fit(x, y), 0.5)
        for i in test:
            per_case[i] = fitted
    return per_case  # type: ignore[return-value]


def kb_log_cases(folder: Path, seen_urls: set[str]) -> list[Case]:
    """Each record's example logs (`<id>.log`, `<id>@<case>.log`) as cases whose answer is that record;
    a log whose thread is already a case is left out (the same thread must not sit in two folds)."""
    cases = []
    for path in sorted(folder.glob("*.log")):
        sidecar = path.with_suffix(".json")
        url = json.loads(sidecar.read_text()).get("url") if sidecar.exists() else None
        if url in seen_urls:
            continue
        record_id = path.stem.split("@")[0]
        cases.append(Case(case=path.stem, expected=(record_id,), log=path.read_text(errors="replace"),
                          url=url or f"kb-log:{path.stem}"))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--kb-logs", help="folder of <record-id>.log example logs, each a case")
    parser.add_argument("--precision", type=float, default=0.99)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    cases = load_cases(*args.folders)
    if args.kb_logs:
        cases += kb_log_cases(Path(args.kb_logs), {c.url for c in cases})
    observed = observe(cases)
    x, y, _ = rows(cases, observed)
    oof = out_of_fold(cases, observed)
    table = calibration(cases, observed, oof)
    oof = [{**fitted, "calibration": table} for fitted in oof]
    print(f"{len(cases)} cases, {len(y)} candidate rows ({y.sum()} right)")
    chosen = None
    for threshold in np.round(np.arange(0.30, 0.96, 0.025), 3):
        precision, right = precision_at(cases, observed, oof, threshold)
        print(f"  threshold {threshold:.3f}: out-of-fold precision {precision:.3f}, {right} right confident answers")
        if chosen is None and precision >= args.precision:
            chosen = float(threshold)
    chosen = chosen if chosen is not None else 0.95
    fitted = fitted_dict(LogisticRegression(C=C, max_iter=1000).fit(x, y), chosen)
    fitted["calibration"] = table
    fitted["fitted_on"] = {"folders": [os.path.relpath(f, ROOT) for f in args.folders], "cases": len(cases),
                           "rows": int(len(y)), "target_precision": args.precision}
    fitted["fitted_by"] = "bench/fit_confidence.py"
    print(json.dumps({k: fitted[k] for k in ("weights", "intercept", "threshold")}))
    print(dict(zip(FEATURES, fitted["weights"])))
    if args.write:
        OUT.write_text(json.dumps(fitted, indent=2) + "\n")
        print(f"written: {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
