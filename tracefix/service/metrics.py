"""Prometheus metrics of one app: request counts and latency histograms by endpoint."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """One registry per app, so several apps in one test process do not collide."""

    def __init__(self):
        self.registry = CollectorRegistry()
        self.requests = Counter("tracefix_http_requests", "HTTP requests by endpoint and status",
                                ["method", "endpoint", "status"], registry=self.registry)
        self.latency = Histogram("tracefix_http_request_duration_seconds", "Request latency by endpoint",
                                 ["method", "endpoint"], buckets=_BUCKETS, registry=self.registry)
        self.records = Gauge("tracefix_kb_records", "Records in the loaded knowledge base", registry=self.registry)
        self.cache = Gauge("tracefix_query_embedding_cache", "Query embeddings served from the cache (hit) or the model (miss) since start",
                           ["result"], registry=self.registry)

    def observe(self, method: str, endpoint: str, status: int, seconds: float) -> None:
        self.requests.labels(method, endpoint, str(status)).inc()
        self.latency.labels(method, endpoint).observe(seconds)
