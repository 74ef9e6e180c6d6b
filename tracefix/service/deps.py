"""Typed dependencies shared by the routers: the knowledge base, the config, the CPU pool, the admin guard."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from functools import partial
from typing import Annotated, TypeVar

import anyio
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from tracefix.service.config import ServiceConfig
from tracefix.service.metrics import Metrics
from tracefix.service.state import KnowledgeBase

T = TypeVar("T")


class ApiError(Exception):
    """An error with a status and a stable code; rendered as `{"error": {"code", "message"}}`."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


class CpuPool:
    """Runs CPU-bound work off the event loop, at most `threads` at a time (about one per core)."""

    def __init__(self, threads: int):
        self.limiter = anyio.CapacityLimiter(threads)

    async def run(self, func: Callable[..., T], *args, **kwargs) -> T:
        return await anyio.to_thread.run_sync(partial(func, *args, **kwargs), limiter=self.limiter)


def _kb(request: Request) -> KnowledgeBase:
    return request.app.state.kb


def _config(request: Request) -> ServiceConfig:
    return request.app.state.config


def _cpu(request: Request) -> CpuPool:
    return request.app.state.cpu


def _metrics(request: Request) -> Metrics:
    return request.app.state.metrics


KbDep = Annotated[KnowledgeBase, Depends(_kb)]
ConfigDep = Annotated[ServiceConfig, Depends(_config)]
CpuDep = Annotated[CpuPool, Depends(_cpu)]
MetricsDep = Annotated[Metrics, Depends(_metrics)]
_bearer = HTTPBearer(auto_error=False, description="TRACEFIX_ADMIN_TOKEN")


def require_admin(config: ConfigDep,
                  credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> None:
    """Writes need `Authorization: Bearer $TRACEFIX_ADMIN_TOKEN`; without a configured token they are off."""
    if not config.admin_token:
        raise ApiError(403, "writes_disabled", "writing records is disabled: start the service with TRACEFIX_ADMIN_TOKEN set")
    if credentials is None:
        raise ApiError(401, "unauthorized", "missing bearer token", {"WWW-Authenticate": "Bearer"})
    if not hmac.compare_digest(credentials.credentials.encode(), config.admin_token.encode()):
        raise ApiError(401, "unauthorized", "invalid bearer token", {"WWW-Authenticate": "Bearer"})


AdminDep = Annotated[None, Depends(require_admin)]
