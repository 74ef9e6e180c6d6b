"""From evidence to a probability, a confidence call and reasons a person can read.

The probability that a record is the right answer is a logistic model over `Evidence.features()`,
calibrated (isotonic) so that a first answer's score is how often such answers were right; its
weights, the calibration and the confidence threshold are fitted on labelled real logs by
`bench/fit_confidence.py` and live in `confidence.json` beside this module, never in code. The
threshold is chosen for precision: a confident wrong answer costs a user a day.

On top of the model, four rules no weight can overrule: a record the environment rules out is
never confident; a record whose signature is generic (shared, inherited from its family, or marked
`other_causes`) is confident only when its own situation shows in the log or the environment
confirms it; a record for a mere warning is not confident when the log fails with another
error; and a record whose error is not in the log is never confident.
"""

from __future__ import annotations

import bisect
import json
import math
from functools import cache
from importlib import resources

from tracefix.logs.signature import shown
from tracefix.match.evidence import FEATURES, Evidence


@cache
def model() -> dict:
    data = json.loads(resources.files("tracefix.match").joinpath("confidence.json").read_text())
    if tuple(data["features"]) != FEATURES:
        raise RuntimeError("confidence.json was fitted for other features; run bench/fit_confidence.py")
    return data


def raw_probability(e: Evidence, fitted: dict | None = None) -> float:
    """The logistic model's output before calibration: strictly ordered, so it breaks the ties the
    step-shaped calibration leaves among weak candidates."""
    fitted = fitted or model()
    z = fitted["intercept"] + sum(w * x for w, x in zip(fitted["weights"], e.features()))
    return 1.0 / (1.0 + math.exp(-z))


def probability(e: Evidence, fitted: dict | None = None) -> float:
    """`fitted`: another model of the same shape (the fitting script tries its own)."""
    fitted = fitted or model()
    return calibrated(raw_probability(e, fitted), fitted.get("calibration"))


def calibrated(raw: float, table: dict | None) -> float:
    """The isotonic map fitted on out-of-fold first answers: raw model output -> how often such an
    answer was right. Piecewise linear between the fitted points, flat beyond them."""
    if not table:
        return raw
    xs, ys = table["x"], table["y"]
    at = bisect.bisect_right(xs, raw)
    if at == 0:
        return ys[0]
    if at == len(xs):
        return ys[-1]
    x0, x1, y0, y1 = xs[at - 1], xs[at], ys[at - 1], ys[at]
    return y0 + (y1 - y0) * (raw - x0) / (x1 - x0) if x1 > x0 else y1


def is_confident(e: Evidence, p: float, threshold: float | None = None) -> bool:
    if e.verdict.verdict == "not-affected":
        return False
    if e.needs_situation and not e.situation_shown:
        return False
    if e.beside_failure:
        return False
    if not e.symptom:
        # Its error is not in the log: frames, words and meaning alone were right barely more often
        # than wrong on the labelled threads (4 of 7), far below what a confident answer must be.
        return False
    return p >= (model()["threshold"] if threshold is None else threshold)


def reasons(e: Evidence) -> tuple[str, ...]:
    """Why the record ranked where it did, most telling first."""
    out = []
    if e.symptom:
        where = "the root error" if e.on_root else "the log"
        out.append(f"its error signature appears in {where}: {shown(e.symptom)!r}")
    if e.frames_hit:
        out.append(f"the failure passes through {', '.join(e.frames_hit)}")
    elif e.packages_hit:
        out.append(f"the log involves {', '.join(e.packages_hit)}")
    signs = [h for h in e.situation_seen if h not in e.frames_hit]
    if signs:
        out.append(f"its situation shows in the log: {', '.join(signs)}")
    elif e.needs_situation and not e.situation_shown:
        named = f" ({', '.join(e.situation[:4])})" if e.situation else ""
        out.append(f"that message has several causes, and none of this one's signs{named} shows in the log")
    if e.beside_failure:
        out.append("its message is only a warning, and the log fails with another error")
    if e.frames_missed:
        out.append("none of its frames or packages appear in the log")
    out.append(f"meaning similarity {e.dense:.2f}, word overlap {e.bm25:.2f}")
    failed = [c.requirement for c in e.verdict.checks if c.result == "fails"]
    if failed:
        out.append(f"demoted: your environment fails {', '.join(failed)}")
    elif e.verdict.verdict == "affected":
        out.append("your environment is in the affected range")
    return tuple(out)
