"""The HTTP service: `create_app(matcher_or_loader, settings)` builds it, `run(...)` serves it.

Every error leaves as `{"error": {"code", "message"}}`: the core's TracefixError classes, request
validation (422), HTTP errors, and a catch-all (middleware.ContainErrors) that never shows a traceback. Request bodies are
never logged (logs hold secrets); uvicorn's access log prints method, path and status only.

>>> from tracefix.service.app import create_app          # doctest: +SKIP
>>> app = create_app(lambda: load_matcher(settings), settings)   # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from tracefix import __version__
from tracefix.errors import ArticleError, InputError, StoreError, TracefixError
from tracefix.match.matcher import Matcher
from tracefix.service import health, routes_chatops, routes_match, routes_records
from tracefix.service.config import ServiceConfig
from tracefix.service.deps import ApiError, CpuPool
from tracefix.service.metrics import Metrics
from tracefix.service.middleware import BodyLimit, ContainErrors, MetricsMiddleware
from tracefix.service.slack_verify import SlackVerifier
from tracefix.service.state import KnowledgeBase
from tracefix.settings import Settings

log = logging.getLogger(__name__)
_STATUS = {InputError: (400, "invalid_input"), ArticleError: (422, "invalid_article"), StoreError: (409, "store_error")}


def create_app(matcher_or_loader: Matcher | Callable[[], Matcher], settings: Settings,
               config: ServiceConfig | None = None) -> FastAPI:
    """A ready app: the knowledge base is loaded (and the index built if missing) before this returns."""
    config = config or ServiceConfig.from_env()
    app = FastAPI(title="tracefix", version=__version__,
                  description="Match ML training failure logs against a knowledge base of known issues.")
    app.state.config, app.state.metrics = config, Metrics()
    app.state.kb = KnowledgeBase(settings, matcher_or_loader)
    app.state.cpu = CpuPool(config.cpu_threads)
    seen = settings.db_path.with_name(settings.db_path.name + ".slack-seen")  # shared by the workers
    app.state.slack_verifier = SlackVerifier(config.slack_signing_secret, seen_path=seen) if config.slack_signing_secret else None
    for module in (routes_match, routes_chatops, routes_records, health):
        app.include_router(module.router)
    _add_error_handlers(app)
    # Added last = outermost: metrics also time the 413s the body limit sends, and ContainErrors
    # turns any exception into the JSON error shape before Starlette would log its traceback.
    app.add_middleware(BodyLimit, max_body=config.max_body)
    app.add_middleware(MetricsMiddleware, metrics=app.state.metrics)
    app.add_middleware(ContainErrors)
    return app


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, e: ApiError) -> JSONResponse:
        return error(e.status, e.code, e.message, e.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, e: RequestValidationError) -> JSONResponse:
        return error(422, "invalid_request", validation_message(e))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(e.status_code, "http_error")
        return error(e.status_code, code, str(e.detail), getattr(e, "headers", None))

    @app.exception_handler(TracefixError)
    async def core_error(_: Request, e: TracefixError) -> JSONResponse:
        status, code = next((v for k, v in _STATUS.items() if isinstance(e, k)), (503, "unavailable"))
        return error(status, code, str(e))


def validation_message(e: RequestValidationError) -> str:
    """One readable line per problem: `body.top: Input should be less than or equal to 50`."""
    parts = []
    for problem in e.errors()[:5]:
        if problem.get("type") == "json_invalid":
            reason = (problem.get("ctx") or {}).get("error", "invalid JSON")
            parts.append(f"malformed JSON body: {reason} (at character {problem['loc'][-1]})")
            continue
        where = ".".join(str(p) for p in problem.get("loc", ()))
        parts.append(f"{where}: {problem.get('msg', 'invalid')}" if where else problem.get("msg", "invalid"))
    return "; ".join(parts) or "invalid request"


# -- serving -------------------------------------------------------------------------------

def app_from_env() -> FastAPI:
    """The uvicorn factory each worker process calls (`tracefix.service.app:app_from_env`)."""
    from tracefix.match.loader import load_matcher

    settings = Settings.resolve()
    return create_app(lambda: load_matcher(settings, rebuild=True), settings, ServiceConfig.from_env())


def run(host: str = "127.0.0.1", port: int = 8000, workers: int | None = None, max_body: int = 2 * 2**20,
        db: str | None = None, model: str | None = None) -> None:
    """Serve until interrupted. Settings reach the worker processes through TRACEFIX_* variables."""
    import uvicorn

    if db:
        os.environ["TRACEFIX_DB"] = str(db)
    if model:
        os.environ["TRACEFIX_MODEL"] = model
    os.environ["TRACEFIX_MAX_BODY"] = str(max_body)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # Several requests run at once: one model thread each keeps the cores busy without
    # oversubscribing them (a single CLI query uses them all instead).
    os.environ.setdefault("TRACEFIX_ONNX_THREADS", "1")
    uvicorn.run("tracefix.service.app:app_from_env", factory=True, host=host, port=port, workers=workers or os.cpu_count() or 1,
                access_log=True, log_level="info", server_header=False)
