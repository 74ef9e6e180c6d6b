"""Scoring ranked answers against labels: top-1, top-3 recall, MRR, confident-wrong."""

from __future__ import annotations

from dataclasses import dataclass

from tracefix.evaluation.cases import Case


@dataclass(frozen=True)
class Ranked:
    """One system's answer for one case: ids best first, and whether the first is confident."""

    ids: tuple[str, ...]
    confident: bool


@dataclass(frozen=True)
class Metrics:
    cases: int
    top1: float
    top3_recall: float
    mrr: float
    confident_wrong: int
    confident_wrong_negatives: int
    failures: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"cases": self.cases, "top1": round(self.top1, 4), "top3_recall": round(self.top3_recall, 4),
                "mrr": round(self.mrr, 4), "confident_wrong": self.confident_wrong,
                "confident_wrong_negatives": self.confident_wrong_negatives, "failures": list(self.failures)}


def top1_correct(case: Case, answer: Ranked) -> bool:
    if not case.expected:
        return not answer.confident
    return answer.confident and bool(answer.ids) and answer.ids[0] in case.expected


def reciprocal_rank(case: Case, answer: Ranked) -> float:
    for n, rid in enumerate(answer.ids, 1):
        if rid in case.expected:
            return 1.0 / n
    return 0.0


def score(cases: list[Case], answers: list[Ranked]) -> Metrics:
    positives = [(c, a) for c, a in zip(cases, answers) if c.expected]
    wrong = [c for c, a in zip(cases, answers) if a.confident and a.ids and a.ids[0] not in c.expected]
    return Metrics(
        cases=len(cases),
        top1=sum(top1_correct(c, a) for c, a in zip(cases, answers)) / max(1, len(cases)),
        top3_recall=sum(any(i in c.expected for i in a.ids[:3]) for c, a in positives) / max(1, len(positives)),
        mrr=sum(reciprocal_rank(c, a) for c, a in positives) / max(1, len(positives)),
        confident_wrong=len(wrong),
        confident_wrong_negatives=sum(1 for c in wrong if not c.expected),
        failures=tuple(c.case for c, a in zip(cases, answers) if not top1_correct(c, a)),
    )
