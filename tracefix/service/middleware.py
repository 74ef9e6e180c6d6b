"""Pure ASGI middleware: the request body limit and per-endpoint metrics.

The body limit reads the whole body here (it is at most `max_body` bytes, and every route reads it
whole anyway) and replays it to the app: a declared Content-Length over the limit is refused before
reading, and a chunked or lying body is refused as soon as the bytes received pass the limit.
"""

from __future__ import annotations

import json
import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tracefix.service.metrics import Metrics

log = logging.getLogger(__name__)


def error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


async def send_error(send: Send, status: int, code: str, message: str) -> None:
    body = error_body(code, message)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    def __init__(self, app: ASGIApp, max_body: int):
        self.app, self.max_body = app, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body:
            return await self._too_large(send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return await self._too_large(send)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    async def _too_large(self, send: Send) -> None:
        await send_error(send, 413, "body_too_large", f"request body is larger than {self.max_body} bytes")


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class MetricsMiddleware:
    """Counts requests and times them by route template (`/v1/records/{record_id}`, not the raw path)."""

    def __init__(self, app: ASGIApp, metrics: Metrics):
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start, status = time.perf_counter(), 500

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            route = scope.get("route")
            endpoint = getattr(route, "path", None) or "unmatched"
            self.metrics.observe(scope["method"], endpoint, status, time.perf_counter() - start)


class ContainErrors:
    """The catch-all: an unexpected exception becomes a JSON 500, and is logged by type and path only
    (its message may quote the request body, which can hold secrets)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as e:  # noqa: BLE001 - the one place every failure is contained
            log.error("unexpected %s while serving %s %s", type(e).__name__, scope.get("method"), scope.get("path"))
            if scope["type"] == "http" and not started:
                await send_error(send, 500, "internal_error", "the service failed to handle this request")
