"""Running the matcher over labelled cases (used by `tracefix eval` and bench/quality.py)."""

from __future__ import annotations

from tracefix.env.environment import build_environment
from tracefix.evaluation.cases import Case
from tracefix.evaluation.metrics import Ranked
from tracefix.logs.report import read_log
from tracefix.match.matcher import Matcher


def answer(matcher: Matcher, case: Case, top: int = 3) -> Ranked:
    report = read_log(case.log)
    env = build_environment(freeze=case.pip_freeze, smi=case.nvidia_smi, report=report, gpu_count=case.gpu_count)
    result = matcher.match(report, env, top=top)
    first = result.matches[0] if result.matches else None
    return Ranked(ids=tuple(m.id for m in result.matches), confident=bool(first and first.confident),
                  score=first.score if first else None)
