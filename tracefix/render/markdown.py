"""MatchResult -> Markdown, for the generic chat-ops webhook (Mattermost, Teams, Discord, Matrix bots).

Text from the log goes into code spans or fences (it may hold `*`, `_` or HTML); article text is
Markdown already and is kept as written.
"""

from __future__ import annotations

from tracefix.logs.advice import launcher_advice
from tracefix.match.result import Match, MatchResult

MAX_FAILURE_CHARS = 1500


def render(result: MatchResult) -> str:
    parts = [_headline(result), _query(result), *_warnings(result)]
    if not result.confident:
        parts += [_advice(result)]
    parts += [_match(rank, m) for rank, m in enumerate(result.matches, start=1)]
    if not result.matches:
        parts.append("No known issue in the knowledge base matches this log.")
    return "\n\n".join(p for p in parts if p) + "\n"


def fence(text: str, info: str = "") -> str:
    """A fenced block longer than any backtick run inside `text`."""
    longest = max((len(run) for run in text.split("\n") for run in _backtick_runs(run)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def _backtick_runs(line: str) -> list[str]:
    runs, current = [], ""
    for ch in line:
        if ch == "`":
            current += ch
        elif current:
            runs.append(current)
            current = ""
    return [*runs, current] if current else runs


def _headline(result: MatchResult) -> str:
    if result.confident:
        return "**tracefix: likely cause found**"
    return "**tracefix: no confident match**" if result.matches else "**tracefix: no match**"


def _query(result: MatchResult) -> str:
    root = result.report.root
    if root is None:
        return "No error was recognised in the log."
    failure = f"{root.exception}: {root.message}" if root.exception else root.message
    if len(failure) > MAX_FAILURE_CHARS:
        failure = failure[: MAX_FAILURE_CHARS - 1] + "…"
    rank = f" (rank {result.report.root_rank})" if result.report.root_rank is not None else ""
    return f"Root failure{rank}:\n\n" + fence(failure)


def _advice(result: MatchResult) -> str:
    """Where the real error is, for a log holding only a launcher's summary ("" otherwise)."""
    return "\n".join(f"- {a}" for a in launcher_advice(result.report))


def _warnings(result: MatchResult) -> list[str]:
    if not result.warnings:
        return []
    return ["**Environment warnings**\n\n" + "\n".join(f"- {w}" for w in result.warnings)]


def _match(rank: int, m: Match) -> str:
    state = "likely" if m.confident else "possible"
    lines = [f"### {rank}. {m.title}", "", f"`{m.id}` · {state} · score {m.score:.2f} · verdict: {m.verdict}", "",
             f"**Cause:** {m.cause}", "", f"**Fix:** {m.fix}"]
    if m.commands:
        lines += ["", fence("\n".join(m.commands), "sh")]
    failing = [c for c in m.checks if c.result == "fails"]
    if m.why or failing:
        lines += ["", *(f"- why: {w}" for w in m.why), *(f"- fails: {c.requirement} (found {c.found})" for c in failing)]
    if m.references:
        lines += ["", "References: " + ", ".join(f"<{r}>" for r in m.references)]
    return "\n".join(lines)
