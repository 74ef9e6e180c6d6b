"""The one match path every front-end shares (`tracefix < log`, `tracefix run`, the exception hooks):
log bytes (+ environment reports) -> MatchResult. Front-ends only render what it returns."""

from __future__ import annotations

import json
from collections.abc import Callable


def match_log(data: bytes, settings, *, freeze: str | None = None, smi: str | None = None, gpus: int | None = None,
              top: int = 3, progress: Callable[[int, int], None] | None = None):
    from tracefix.indexer.background import start_embedder

    embedder = start_embedder(settings.model, settings.backend)  # model start-up overlaps the rest
    from tracefix.env.environment import build_environment
    from tracefix.logs.report import read_log
    from tracefix.match.loader import load_matcher

    matcher = load_matcher(settings, progress=progress, embedder=embedder)
    report = read_log(data)
    env = build_environment(freeze=freeze, smi=smi, report=report, gpu_count=gpus)
    return matcher.match(report, env, top=top)


def result_json(result) -> str:
    """The `--json` object as text."""
    from tracefix.render.json import render

    return json.dumps(render(result), indent=2, ensure_ascii=False)
