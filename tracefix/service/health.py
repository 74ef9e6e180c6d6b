"""GET /healthz and GET /metrics (Prometheus text format).

NOTE: metrics are per process. With `--workers N`, each scrape reaches one worker; Prometheus sums
the series by instance only if every worker is scraped, so run one worker per scrape target or
read them as samples. prometheus-client's multiprocess mode would need a shared directory.
"""

from __future__ import annotations

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from tracefix.service.deps import KbDep, MetricsDep
from tracefix.service.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, summary="Knowledge base and index loaded")
def healthz(kb: KbDep) -> Health:
    matcher = kb.matcher()
    return Health(status="ok", records=len(matcher.records), indexed=len(matcher.ids),
                  model=kb.embedder.info.name, loaded_at=kb.loaded_at)


@router.get("/metrics", response_class=Response, summary="Prometheus metrics",
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}})
def metrics(kb: KbDep, metrics: MetricsDep) -> Response:
    metrics.records.set(len(kb.matcher().records))
    metrics.cache.labels("hit").set(kb.embedder.hits)
    metrics.cache.labels("miss").set(kb.embedder.misses)
    return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)
