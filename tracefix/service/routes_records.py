"""GET /v1/records, GET /v1/records/{id}, POST /v1/records (admin): the knowledge base over HTTP."""

from __future__ import annotations

import json

from fastapi import APIRouter, Path, Request, Response

from tracefix.errors import ArticleError, StoreError
from tracefix.kb.load import MAX_ARTICLE_BYTES, parse_article
from tracefix.kb.record import Record
from tracefix.service.deps import AdminDep, ApiError, CpuDep, KbDep
from tracefix.service.schemas import ERROR_RESPONSES, RecordList, RecordSummary, RecordWritten

router = APIRouter(prefix="/v1/records", tags=["records"])
SOURCE = "api"
_ID = Path(pattern=r"^[a-z0-9][a-z0-9-]{1,79}$", description="Record id (slug)")
_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "text/markdown": {"schema": {"type": "string"}},
            "application/json": {"schema": {"type": "object", "required": ["markdown"],
                                            "properties": {"markdown": {"type": "string"}}}},
        },
    }
}


@router.get("", response_model=RecordList, summary="List records")
def list_records(kb: KbDep) -> RecordList:
    origins = kb.origins()
    records = sorted(kb.records(), key=lambda r: r.id)
    return RecordList(count=len(records), records=[_summary(r, origins.get(r.id)) for r in records])


@router.get("/{record_id}", responses={404: {"description": "No such record"}}, summary="One record")
def get_record(kb: KbDep, record_id: str = _ID) -> dict:
    record = kb.get(record_id)
    if record is None:
        raise ApiError(404, "not_found", f"no record with id {record_id!r}")
    return record.to_dict()


@router.post("", status_code=201, response_model=RecordWritten, openapi_extra=_BODY,
             responses={401: {"description": "Bad token"}, 403: {"description": "Writes disabled"},
                        415: {"description": "Unsupported content type"}, **ERROR_RESPONSES},
             summary="Add or replace an article")
async def add_record(request: Request, response: Response, _: AdminDep, kb: KbDep, cpu: CpuDep) -> RecordWritten:
    record = _parse(await _article_text(request))
    try:
        result = await cpu.run(kb.add, record)
    except StoreError as e:
        raise ApiError(409, "store_conflict", str(e)) from None
    status = "added" if result.added else "updated" if result.updated else "unchanged"
    if status != "added":
        response.status_code = 200
    return RecordWritten(id=record.id, status=status, count=len(kb.matcher().records))


async def _article_text(request: Request) -> str:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await request.body()
    if len(body) > MAX_ARTICLE_BYTES:
        raise ApiError(413, "body_too_large", f"articles are limited to {MAX_ARTICLE_BYTES} bytes")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ApiError(422, "invalid_article", "the article is not valid UTF-8 text") from None
    if kind in ("text/markdown", "text/x-markdown", "text/plain"):
        return text
    if kind == "application/json":
        return _json_markdown(text)
    raise ApiError(415, "unsupported_media_type", "send the article as text/markdown, or JSON {\"markdown\": ...}")


def _json_markdown(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ApiError(422, "invalid_json", f"the body is not valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("markdown"), str):
        raise ApiError(422, "invalid_article", "expected a JSON object {\"markdown\": \"<article>\"}")
    return data["markdown"]


def _parse(text: str) -> Record:
    if "\x00" in text:
        raise ApiError(422, "invalid_article", "binary content, not an article")
    if not text.strip():
        raise ApiError(422, "invalid_article", "the article is empty")
    try:
        return parse_article(text, SOURCE)
    except ArticleError as e:
        raise ApiError(422, "invalid_article", str(e)) from None


def _summary(record: Record, origin: str | None) -> RecordSummary:
    return RecordSummary(id=record.id, title=record.title, area=record.area, origin=origin, source=record.source)
