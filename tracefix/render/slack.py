"""MatchResult -> a Slack message: Block Kit blocks within Slack's limits, plus a plain-text fallback.

NOTE: limits from https://api.slack.com/reference/block-kit/blocks: at most 50 blocks per message,
3000 characters of section text, 150 of header plain text. Text from logs and articles is escaped
(`&`, `<`, `>`) so it cannot form links or mentions: https://api.slack.com/reference/surfaces/formatting#escaping
"""

from __future__ import annotations

from tracefix.logs.advice import launcher_advice
from tracefix.match.result import Match, MatchResult

MAX_BLOCKS = 50
MAX_SECTION = 3000
MAX_HEADER = 150
MAX_FALLBACK = 3000
_VERDICT = {"holds": "environment matches", "fails": "environment rules it out", "unknown": "environment not known"}


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(result: MatchResult, response_type: str = "in_channel") -> dict:
    """The slash-command reply: `{"response_type", "text", "blocks"}`."""
    blocks = [_header(result), *_query(result), *_warnings(result)]
    advice = launcher_advice(result.report) if not result.confident else ()
    if advice:
        blocks.append(_section("\n".join(f"• {escape(a)}" for a in advice)))
    for rank, match in enumerate(result.matches, start=1):
        blocks += [{"type": "divider"}, *_match(rank, match)]
    if not result.matches:
        blocks.append(_section("No known issue in the knowledge base matches this log."))
    return {"response_type": response_type, "text": fallback(result), "blocks": blocks[:MAX_BLOCKS]}


def message(text: str, response_type: str = "ephemeral") -> dict:
    """A reply without a match result (usage help, refusals)."""
    return {"response_type": response_type, "text": clip(text, MAX_FALLBACK), "blocks": [_section(escape(text))]}


def fallback(result: MatchResult) -> str:
    """The plain text shown in notifications and by clients without blocks."""
    if not result.matches:
        return "tracefix: no known issue matches this log."
    best = result.matches[0]
    state = "likely" if best.confident else "possible"
    fix = " ".join(best.fix.split())
    return clip(f"tracefix: {state} match {best.title} ({best.id}, score {best.score:.2f}). Fix: {clip(fix, 400)}", MAX_FALLBACK)


def _header(result: MatchResult) -> dict:
    text = "tracefix: likely cause found" if result.confident else "tracefix: no confident match"
    return {"type": "header", "text": {"type": "plain_text", "text": clip(text, MAX_HEADER), "emoji": True}}


def _query(result: MatchResult) -> list[dict]:
    root = result.report.root
    if root is None:
        return [_section("No error was recognised in the log.")]
    failure = f"{root.exception}: {root.message}" if root.exception else root.message
    rank = f" (rank {result.report.root_rank})" if result.report.root_rank is not None else ""
    return [_section(f"*Root failure{rank}:*\n" + _code(failure, MAX_SECTION - 40))]


def _warnings(result: MatchResult) -> list[dict]:
    if not result.warnings:
        return []
    return [_section("*Environment warnings:*\n" + "\n".join(f"• {escape(w)}" for w in result.warnings))]


def _match(rank: int, m: Match) -> list[dict]:
    state = ":white_check_mark: likely" if m.confident else ":grey_question: possible"
    title = f"*{rank}. {escape(m.title)}*\n{state} · score {m.score:.2f} · {_VERDICT.get(m.verdict, m.verdict)} · `{m.id}`"
    blocks = [_section(title), _section(f"*Cause:* {escape(m.cause)}"), _section(f"*Fix:* {escape(m.fix)}")]
    if m.commands:
        blocks.append(_section("*Commands:*\n" + _code("\n".join(m.commands), MAX_SECTION - 20)))
    failing = [c for c in m.checks if c.result == "fails"]
    notes = [*(f"why: {w}" for w in m.why[:3]), *(f"fails: {c.requirement} (found {c.found})" for c in failing[:3])]
    if m.references:
        notes.append(f"see <{m.references[0]}|{escape(clip(m.references[0], 80))}>")
    if notes:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": clip(n if n.startswith("see <") else escape(n), MAX_SECTION)} for n in notes[:10]]})
    return blocks


def _section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, MAX_SECTION)}}


def _code(text: str, limit: int) -> str:
    body = clip(escape(text.replace("```", "'''")), limit)
    return f"```{body}```"
