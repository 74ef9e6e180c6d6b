"""What a match produces: frozen values that every renderer (text, JSON, Slack, Markdown) reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from tracefix.env.environment import Environment
from tracefix.logs.report import LogReport
from tracefix.match.constraints import Check


@dataclass(frozen=True)
class Specific:
    """A specific record of a generic one's family, and the signs in a log that point to it."""

    id: str
    title: str
    signs: tuple[str, ...]


@dataclass(frozen=True)
class Match:
    """One knowledge-base record ranked against the log."""

    id: str
    title: str
    score: float
    confident: bool
    verdict: str
    checks: tuple[Check, ...]
    why: tuple[str, ...]
    cause: str
    fix: str
    source: str
    commands: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    language: str = "en"
    specific: tuple[Specific, ...] = ()   # for a generic record: its specific records, when none of them fits
    strength: float = 0.0                 # the model's uncalibrated output: orders matches of equal score


@dataclass(frozen=True)
class MatchResult:
    """The answer for one log: the query as understood, the environment read, the ranked matches."""

    report: LogReport
    environment: Environment
    matches: tuple[Match, ...]
    warnings: tuple[str, ...] = field(default=())

    @property
    def confident(self) -> bool:
        return any(m.confident for m in self.matches)
