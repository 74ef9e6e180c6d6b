"""Service settings beyond where the database lives, read from TRACEFIX_* environment variables.

Worker processes started by uvicorn get their settings this way too (`run()` exports them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_MAX_BODY = 2 * 2**20


@dataclass(frozen=True)
class ServiceConfig:
    """What the HTTP layer enforces."""

    max_body: int = DEFAULT_MAX_BODY          # bytes; larger request bodies get 413
    slack_signing_secret: str | None = None   # None: Slack requests are not verified
    admin_token: str | None = None            # None: POST /v1/records is disabled (403)
    cpu_threads: int = max(2, os.cpu_count() or 1)  # matches run in parallel at most this many at once

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> ServiceConfig:
        env = os.environ if environ is None else environ
        return cls(
            max_body=int(env.get("TRACEFIX_MAX_BODY") or DEFAULT_MAX_BODY),
            slack_signing_secret=env.get("TRACEFIX_SLACK_SIGNING_SECRET") or None,
            admin_token=env.get("TRACEFIX_ADMIN_TOKEN") or None,
            cpu_threads=int(env.get("TRACEFIX_CPU_THREADS") or cls.cpu_threads),
        )
