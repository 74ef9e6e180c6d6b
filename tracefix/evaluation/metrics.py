"""Scoring ranked answers against labels: top-1, top-3 recall, MRR, the precision of confident
answers, the share of negatives left unanswered, and a reliability table.

A confident first answer that is only `acceptable` (the generic record of the right family) counts
neither as right nor as wrong (see shared/eval/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from tracefix.evaluation.cases import Case

BANDS = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Ranked:
    """One system's answer for one case: ids best first, whether the first is confident, its score."""

    ids: tuple[str, ...]
    confident: bool
    score: float | None = None


@dataclass(frozen=True)
class Band:
    low: float
    high: float
    answers: int      # first answers whose score falls in the band
    right: int        # ...that are a correct answer


@dataclass(frozen=True)
class Metrics:
    cases: int
    positives: int
    negatives: int
    top1: float
    top1_positives: float
    top3_recall: float
    mrr: float
    confident: int
    confident_right: int
    confident_wrong: int
    confident_wrong_negatives: int
    confident_acceptable: int
    negatives_unanswered: float
    reliability: tuple[Band, ...]
    failures: tuple[str, ...]

    @property
    def precision(self) -> float:
        """Of the confident first answers that are right or wrong (not merely acceptable), the right share."""
        judged = self.confident_right + self.confident_wrong
        return self.confident_right / judged if judged else 1.0

    def as_dict(self) -> dict:
        out = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items()
               if k not in ("reliability", "failures")}
        out["precision"] = round(self.precision, 4)
        out["reliability"] = [b.__dict__ for b in self.reliability]
        out["failures"] = list(self.failures)
        return out


def top1_correct(case: Case, answer: Ranked) -> bool:
    if not case.expected:
        return not answer.confident
    return answer.confident and bool(answer.ids) and answer.ids[0] in case.expected


def reciprocal_rank(case: Case, answer: Ranked) -> float:
    for n, rid in enumerate(answer.ids, 1):
        if rid in case.expected:
            return 1.0 / n
    return 0.0


def _verdict(case: Case, answer: Ranked) -> str | None:
    """right / wrong / acceptable for a confident first answer; None when there is none."""
    if not (answer.confident and answer.ids):
        return None
    first = answer.ids[0]
    if first in case.expected:
        return "right"
    return "acceptable" if first in case.acceptable else "wrong"


def reliability(cases: list[Case], answers: list[Ranked]) -> tuple[Band, ...]:
    """How often the first answer is right, by its score: is a 0.9 right nine times in ten?"""
    bands = []
    for low, high in zip(BANDS, BANDS[1:]):
        inside = [(c, a) for c, a in zip(cases, answers) if a.score is not None and a.ids
                  and low <= a.score < high + (1e-9 if high == 1.0 else 0)]
        bands.append(Band(low, high, len(inside), sum(a.ids[0] in c.expected for c, a in inside)))
    return tuple(bands)


def score(cases: list[Case], answers: list[Ranked]) -> Metrics:
    pairs = list(zip(cases, answers))
    positives = [(c, a) for c, a in pairs if c.expected]
    negatives = [(c, a) for c, a in pairs if not c.expected]
    verdicts = [(c, _verdict(c, a)) for c, a in pairs]
    wrong = [c for c, v in verdicts if v == "wrong"]
    return Metrics(
        cases=len(cases), positives=len(positives), negatives=len(negatives),
        top1=sum(top1_correct(c, a) for c, a in pairs) / max(1, len(cases)),
        top1_positives=sum(top1_correct(c, a) for c, a in positives) / max(1, len(positives)),
        top3_recall=sum(any(i in c.expected for i in a.ids[:3]) for c, a in positives) / max(1, len(positives)),
        mrr=sum(reciprocal_rank(c, a) for c, a in positives) / max(1, len(positives)),
        confident=sum(v is not None for _, v in verdicts),
        confident_right=sum(v == "right" for _, v in verdicts),
        confident_wrong=len(wrong),
        confident_wrong_negatives=sum(1 for c in wrong if not c.expected),
        confident_acceptable=sum(v == "acceptable" for _, v in verdicts),
        negatives_unanswered=sum(not a.confident for _, a in negatives) / max(1, len(negatives)),
        reliability=reliability(cases, answers),
        failures=tuple(c.case for c, a in pairs if not top1_correct(c, a)),
    )
