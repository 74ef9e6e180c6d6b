"""Chat-ops: a Slack slash command (signed, form-encoded) and a generic JSON webhook (Markdown out).

Both answer inline: a match takes tens of milliseconds, well inside Slack's 3-second deadline, so
the service never calls `response_url` (it makes no outbound requests at all).
"""

from __future__ import annotations

from urllib.parse import parse_qs

from fastapi import APIRouter, Request

from tracefix.render import markdown, slack
from tracefix.service.deps import ApiError, CpuDep, KbDep
from tracefix.service.schemas import ERROR_RESPONSES, SlackResponse, WebhookRequest, WebhookResponse
from tracefix.service.slack_verify import SignatureError

router = APIRouter(prefix="/v1/chatops", tags=["chatops"])
SLACK_TOP = 3
_USAGE = "Paste a failure log after the command, e.g. `/tracefix RuntimeError: CUDA error: ...`"
_SLACK_FORM = {
    "requestBody": {
        "required": True,
        "content": {"application/x-www-form-urlencoded": {"schema": {
            "type": "object",
            "properties": {k: {"type": "string"} for k in ("text", "command", "response_url", "user_id", "channel_id", "team_id")},
        }}},
    }
}


@router.post("/slack", response_model=SlackResponse, openapi_extra=_SLACK_FORM,
             responses={401: {"description": "Bad or replayed signature"}, **ERROR_RESPONSES},
             summary="Slack slash command")
async def slack_command(request: Request, kb: KbDep, cpu: CpuDep) -> dict:
    body = await request.body()
    verifier = request.app.state.slack_verifier
    if verifier is not None:
        try:
            verifier.verify(request.headers.get("x-slack-request-timestamp"), request.headers.get("x-slack-signature"), body)
        except SignatureError as e:
            raise ApiError(401, "bad_signature", str(e)) from None
    text = _form_text(body)
    if not text.strip():
        return slack.message(_USAGE)
    result = await cpu.run(kb.match, text, top=SLACK_TOP)
    return slack.render(result, "in_channel")


def _form_text(body: bytes) -> str:
    try:
        form = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=100)
    except (UnicodeDecodeError, ValueError):
        raise ApiError(422, "invalid_form", "the body is not a UTF-8 form-encoded Slack command") from None
    return (form.get("text") or [""])[0]


@router.post("/webhook", response_model=WebhookResponse, responses=ERROR_RESPONSES, summary="Generic chat bot webhook")
async def webhook(body: WebhookRequest, kb: KbDep, cpu: CpuDep) -> WebhookResponse:
    text = body.text if body.text is not None else body.log
    if not text or not text.strip():
        raise ApiError(422, "missing_text", "send the log as {\"text\": ...} or {\"log\": ...}")
    result = await cpu.run(kb.match, text, top=body.top)
    return WebhookResponse(text=markdown.render(result))
