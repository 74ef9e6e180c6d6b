"""Wire schemas: what clients send and receive. Storage types (Record, MatchResult) stay behind them.

`MatchResponse` mirrors `tracefix.render.json.render`, the `--json` contract; the route returns that
dict and FastAPI checks it against this model, so the OpenAPI document and the CLI cannot drift.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_TOP = 50


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MatchRequest(_Wire):
    log: str = Field(min_length=1, description="The failure log: a traceback, or a whole training log.")
    pip_freeze: str | None = Field(default=None, description="`pip freeze`, `pip list` or `conda list` output.")
    nvidia_smi: str | None = Field(default=None, description="`nvidia-smi` output (table, -L, csv or -q).")
    top: int = Field(default=3, ge=1, le=MAX_TOP, description="How many matches to return.")


class Frame(BaseModel):
    file: str
    line: int | None
    function: str | None
    package: str | None
    module: str | None


class Query(BaseModel):
    exception: str | None
    message: str | None
    signature: str | None
    packages: list[str]
    root_rank: int | None
    kind: str | None
    frames: list[Frame]
    world_size: int | None
    launcher: dict | None = None   # what a launcher's summary said (see the README's JSON section)


class Gpu(BaseModel):
    name: str
    memory_mib: int | None
    compute_capability: str | None


class EnvironmentOut(BaseModel):
    packages: dict[str, str]
    gpus: list[Gpu]
    driver_version: str | None
    cuda_version: str | None
    torch_cuda: str | None
    warnings: list[str]
    gpu_count: int | None


class Check(BaseModel):
    requirement: str
    found: str | None
    result: str


class Specific(BaseModel):
    id: str
    title: str
    look_for: list[str]


class MatchOut(BaseModel):
    id: str
    title: str
    score: float
    confident: bool
    verdict: str
    checks: list[Check]
    why: list[str]
    cause: str
    fix: str
    source: str
    commands: list[str]
    references: list[str]
    specific: list[Specific] = []   # for a generic record: its specific records and what points to each


class MatchResponse(BaseModel):
    """The same object as `tracefix --json`."""

    query: Query
    environment: EnvironmentOut
    matches: list[MatchOut]
    advice: list[str] = []   # where the real error is when the log shows only a launcher's summary


class WebhookRequest(_Wire):
    """A generic chat bot's message: the log in `text` (or `log`)."""

    text: str | None = Field(default=None, description="The message text holding the log.")
    log: str | None = Field(default=None, description="Alias of `text`.")
    top: int = Field(default=3, ge=1, le=10)


class WebhookResponse(BaseModel):
    text: str = Field(description="Markdown answer.")


class SlackResponse(BaseModel):
    model_config = ConfigDict(extra="allow")

    response_type: Literal["in_channel", "ephemeral"]
    text: str
    blocks: list[dict[str, Any]] = []


class RecordJson(_Wire):
    markdown: str = Field(min_length=1, description="The article: Markdown with YAML front matter.")


class RecordSummary(BaseModel):
    id: str
    title: str
    area: str
    origin: str | None
    source: str


class RecordList(BaseModel):
    count: int
    records: list[RecordSummary]


class RecordWritten(BaseModel):
    id: str
    status: Literal["added", "updated", "unchanged"]
    count: int = Field(description="Records in the knowledge base afterwards.")


class Health(BaseModel):
    status: Literal["ok"]
    records: int
    indexed: int
    model: str
    loaded_at: float


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text}
    for code, text in ((413, "Body too large"), (422, "Invalid request"), (500, "Internal error"))
}
