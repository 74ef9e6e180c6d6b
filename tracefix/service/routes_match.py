"""POST /v1/match: the same object as `tracefix --json`, from the same Matcher and renderer."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from tracefix.render.json import render
from tracefix.service.deps import CpuDep, KbDep
from tracefix.service.schemas import ERROR_RESPONSES, MatchRequest, MatchResponse

router = APIRouter(prefix="/v1", tags=["match"])


@router.post("/match", response_model=MatchResponse, responses=ERROR_RESPONSES, summary="Match a failure log")
async def match(body: MatchRequest, kb: KbDep, cpu: CpuDep) -> JSONResponse:
    result = await cpu.run(kb.match, body.log, freeze=body.pip_freeze, smi=body.nvidia_smi, top=body.top)
    # NOTE: returned as a ready response: `render` already is the contract (a test compares it with
    # `tracefix --json`), so re-validating it through the response model would only cost time.
    return JSONResponse(render(result))
