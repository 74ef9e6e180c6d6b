"""The record schema: one known issue, validated with pydantic.

Every parser (front-matter Markdown, scraped text) produces a `Record`; the store, the index, the
matcher and the renderers only ever see records. Version logic goes through `packaging`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from pydantic import BaseModel, ConfigDict, Field, field_validator

from tracefix.kb.conditions import ENV_KEYS, parse_condition  # noqa: F401  (re-exported)
from tracefix.kb.view import all_packages
from tracefix.logs.signature import MAX_SYMPTOM_CHARS, compile_symptom, mask

Provenance = Literal["explicit", "heuristic"]

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{1,79}$")
_URL = re.compile(r"^https?://[^\s<>\"']+$")



def _ranges(value: dict[str, str]) -> dict[str, str]:
    """Canonical package names and valid PEP 440 specifier sets."""
    out = {}
    for name, spec in value.items():
        try:
            SpecifierSet(str(spec))
        except InvalidSpecifier:
            raise ValueError(f"invalid version specifier {spec!r} for {name}") from None
        out[canonicalize_name(str(name))] = str(spec).replace(" ", "")
    return dict(sorted(out.items()))


class Record(BaseModel):
    """One known issue. Field docs double as the article format's documentation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="slug: lowercase letters, digits and dashes")
    title: str = Field(min_length=3, max_length=200)
    symptoms: tuple[str, ...] = Field(min_length=1, description="error signatures; `...` marks an open gap")
    frames: tuple[str, ...] = Field(default=(), description="module or package hints: `sat.training`, `deepspeed.runtime`")
    packages: tuple[str, ...] = Field(default=(), description="packages involved (canonical names)")
    area: str = Field(default="general", description="grouping on the docs site: distributed, cuda, deepspeed...")
    cause: str = Field(min_length=1)
    fix: str = Field(min_length=1, description="Markdown; commands kept in code spans or blocks")
    affected: dict[str, str] = Field(default_factory=dict, description="package -> PEP 440 specifier of affected versions")
    fixed: dict[str, str] = Field(default_factory=dict, description="package -> specifier of versions with the fix")
    works: dict[str, str] = Field(default_factory=dict, description="package -> specifier of versions known to work")
    environment: tuple[str, ...] = Field(default=(), description="conditions such as `gpus>=2`, `compute_capability<8.0`")
    situation: tuple[str, ...] = Field(default=(), description="what shows this record's own cause when its message is shared: "
                                       "frame modules (`lightning.pytorch.tuner`), calls (`lr_find`), packages, launcher or setting names")
    family: str | None = Field(default=None, description="id of the generic record whose message this specific record shares")
    warning: bool = Field(default=False, description="its message is a warning the job survives: it explains a log only when "
                          "the log shows no other failure")
    other_causes: bool = Field(default=False, description="labelled threads show its message with causes this record does not "
                               "describe: it is confident only when its situation shows in the log or the environment confirms it")
    references: tuple[str, ...] = Field(default=(), description="upstream issues, PRs and docs (http/https)")
    language: str = Field(default="en", description="language of the article text: en, zh...")
    translated_from: str | None = Field(default=None, description="language of the original, for articles written from a seed in another language")
    source: str = Field(default="", description="the article file this record came from")
    provenance: dict[str, Provenance] = Field(default_factory=dict, description="field -> explicit or heuristic")

    @field_validator("id", "family")
    @classmethod
    def _slug(cls, v: str | None) -> str | None:
        if v is not None and not _SLUG.match(v):
            raise ValueError(f"invalid id {v!r} (use lowercase letters, digits and dashes)")
        return v

    @field_validator("situation")
    @classmethod
    def _hints(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        hints = tuple(dict.fromkeys(h.strip() for h in v if h.strip()))
        too_short = [h for h in hints if len(h) < 3]
        if too_short:
            raise ValueError(f"situation hints must be at least 3 characters: {too_short[0]!r}")
        return hints

    @field_validator("symptoms")
    @classmethod
    def _symptoms(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for s in v:
            if len(s) > MAX_SYMPTOM_CHARS or len(mask(s)) < 8:
                raise ValueError(f"symptom must be 8 to {MAX_SYMPTOM_CHARS} characters: {s[:60]!r}")
            compile_symptom(s)
        return tuple(s.strip() for s in v)

    @field_validator("packages")
    @classmethod
    def _packages(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(canonicalize_name(p) for p in v))

    @field_validator("affected", "fixed", "works")
    @classmethod
    def _specifiers(cls, v: dict[str, str]) -> dict[str, str]:
        return _ranges(v)

    @field_validator("environment")
    @classmethod
    def _conditions(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple("".join(parse_condition(c)) for c in v)

    @field_validator("references")
    @classmethod
    def _urls(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for url in v:
            if not _URL.match(url):
                raise ValueError(f"reference must be an http(s) URL: {url!r}")
        return v

    def all_packages(self) -> tuple[str, ...]:
        return all_packages(self)

    def content_hash(self) -> str:
        """Hash of everything but the source path, so moving a file is not a change."""
        data = self.model_dump(exclude={"source"})
        return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]

    def to_json(self) -> dict:
        """The export shape: the schema's field names plus `content_hash`."""
        return {**self.model_dump(mode="json"), "content_hash": self.content_hash()}


FIELDS = tuple(Record.model_fields)
