"""Turning the evidence for one record into a score, a confidence call and reasons a person can read.

The weights were tuned on the public labelled logs, for the general case: a record is only called
confident when its own error signature is in the log (or, without one, when meaning, words and
frames all agree strongly), and a failed environment check demotes it below the confident line.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracefix.logs.signature import anchor
from tracefix.match.constraints import Verdict

W_SYMPTOM, W_ROOT, W_DENSE, W_BM25, W_FRAMES, W_PACKAGES = 0.45, 0.10, 0.30, 0.10, 0.12, 0.05
W_SPECIFIC, SPECIFIC_CHARS = 0.15, 60
VERDICT_BONUS = {"affected": 0.06, "unknown": 0.0, "not-affected": -0.30}
CONFIDENT_WITH_SYMPTOM = 0.55
CONFIDENT_WITHOUT_SYMPTOM = 0.62
DENSE_FLOOR, DENSE_SPAN = 0.25, 0.55  # cosine below the floor says nothing; above floor+span, all it can


@dataclass(frozen=True)
class Evidence:
    """What was observed about one record for one log."""

    symptom: str | None       # the record's signature found in the log, if any
    on_root: bool             # ...and found in the root failure itself
    dense: float              # cosine similarity of the log's query text and the record's text
    bm25: float               # BM25 of the log's words against the record, scaled to 0..1 over candidates
    frames_hit: tuple[str, ...]   # record frame hints seen in the log's frames or text
    packages_hit: tuple[str, ...] # record packages seen in the log's frames or text
    frames_missed: bool       # the record names specific frames and the log shows none of them
    log_has_frames: bool      # the log shows a traceback with frames, so a missing frame is telling
    shared_symptom: bool      # the matched signature belongs to other records too
    verdict: Verdict


def score(e: Evidence) -> float:
    dense = min(1.0, max(0.0, (e.dense - DENSE_FLOOR) / DENSE_SPAN))
    total = W_DENSE * dense + W_BM25 * e.bm25 + VERDICT_BONUS[e.verdict.verdict]
    if e.symptom:
        # A longer literal signature is more specific evidence than a short generic one.
        specific = W_SPECIFIC * min(len(anchor(e.symptom)), SPECIFIC_CHARS) / SPECIFIC_CHARS
        total += W_SYMPTOM + (W_ROOT if e.on_root else 0.0) + specific
    if e.frames_hit:
        total += W_FRAMES
    elif e.frames_missed:
        total -= W_FRAMES
    if e.packages_hit and not e.frames_hit:
        total += W_PACKAGES
    return round(total, 4)


def is_confident(e: Evidence, value: float) -> bool:
    if e.verdict.verdict == "not-affected":
        return False
    if e.symptom and e.shared_symptom and e.frames_missed and e.log_has_frames:
        # Several records share this message and the traceback goes through none of this one's code.
        return False
    if e.symptom:
        return value >= CONFIDENT_WITH_SYMPTOM
    return value >= CONFIDENT_WITHOUT_SYMPTOM and bool(e.frames_hit) and e.bm25 >= 0.5


def reasons(e: Evidence) -> tuple[str, ...]:
    """Why the record ranked where it did, most telling first."""
    out = []
    if e.symptom:
        where = "the root error" if e.on_root else "the log"
        out.append(f"its error signature appears in {where}: {e.symptom!r}")
    if e.frames_hit:
        out.append(f"the failure passes through {', '.join(e.frames_hit)}")
    elif e.packages_hit:
        out.append(f"the log involves {', '.join(e.packages_hit)}")
    if e.frames_missed:
        out.append("none of its frames or packages appear in the log")
    out.append(f"meaning similarity {e.dense:.2f}, word overlap {e.bm25:.2f}")
    failed = [c.requirement for c in e.verdict.checks if c.result == "fails"]
    if failed:
        out.append(f"demoted: your environment fails {', '.join(failed)}")
    elif e.verdict.verdict == "affected":
        out.append("your environment is in the affected range")
    return tuple(out)
