"""MatchResult -> terminal text. Colour comes from rich only when writing to a terminal and
NO_COLOR is unset; the words are the same either way."""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO

from tracefix.logs.advice import launcher_advice
from tracefix.match.result import Match, MatchResult

_RESULT_STYLE = {"holds": "green", "fails": "red", "unknown": "yellow"}


def use_colour(stream: TextIO) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR")


def render(result: MatchResult) -> str:
    """Rich markup; `print_result` strips it when colour is off."""
    lines = [_summary(result)]
    lines += [f"[yellow]warning:[/] {_esc(w)}" for w in result.warnings]
    confident = [m for m in result.matches if m.confident]
    if not confident:
        lines.append("\n[bold]No confident match.[/] None of the known issues fits this log well enough.")
        lines += [f"  {_esc(a)}" for a in launcher_advice(result.report)]
        if result.matches:
            lines.append("Nearest records, for a look only:")
            lines += [_nearest(m) for m in result.matches]
        return "\n".join(lines)
    for n, match in enumerate(confident, 1):
        lines += ["", *_match_lines(n, match)]
    return "\n".join(lines)


def _nearest(m: Match) -> str:
    line = f"  {m.id}  {_esc(m.title)}  (score {m.score:.2f})"
    failed = next((c for c in m.checks if c.result == "fails"), None) if m.verdict == "not-affected" else None
    if failed:
        line += f"; ruled out by the environment: {_esc(failed.requirement)} (found: {_esc(failed.found or '')})"
    return line


def _summary(result: MatchResult) -> str:
    root = result.report.root
    if root is None:
        return "[bold]Failure:[/] no error found in the log"
    rank = f" (rank {result.report.root_rank})" if result.report.root_rank is not None else ""
    head = f"{root.exception}: {root.message}" if root.exception else root.message
    return f"[bold]Failure{rank}:[/] {_esc(head[:300])}"


def _match_lines(n: int, m: Match) -> list[str]:
    lines = [f"[bold cyan]{n}. {_esc(m.title)}[/]  [dim]{m.id} · score {m.score:.2f}[/]"]
    lines += [f"   why: {_esc(w)}" for w in m.why]
    lines.append(f"   environment: [bold]{m.verdict}[/]")
    for c in m.checks:
        style = _RESULT_STYLE.get(c.result, "white")
        lines.append(f"     [{style}]{c.result:<7}[/] {_esc(c.requirement)} (found: {_esc(c.found or 'not in input')})")
    lines += ["   [bold]Cause[/]", *_indent(m.cause), "   [bold]Fix[/]"]
    lines += [f"     $ {_esc(cmd)}" for cmd in m.commands]
    lines += _indent(m.fix)
    if m.specific:
        lines.append("   This message has several known causes; look for these in your log or code:")
        lines += [f"     {_esc(', '.join(s.signs[:4]) or s.title)} -> [bold]{s.id}[/] ({_esc(s.title)})" for s in m.specific]
    if m.references:
        lines.append(f"   see: {_esc(m.references[0])}")
    return lines


def _indent(text: str) -> list[str]:
    return [f"     {_esc(line)}" for line in text.strip().splitlines()]


def _esc(text: str) -> str:
    return text.replace("[", r"\[")


_TAG = re.compile(r"(?<!\\)\[/?(?:bold|dim|yellow|green|red|cyan|white)?(?: ?(?:bold|dim|yellow|green|red|cyan|white))*\]")


def plain(markup: str) -> str:
    """The markup without its style tags: what a pipe or NO_COLOR gets (and rich is not imported)."""
    return _TAG.sub("", markup).replace("\\[", "[")


def print_result(result: MatchResult, stream: TextIO | None = None) -> None:
    stream = stream or sys.stdout
    colour = use_colour(stream)
    if not colour:
        stream.write(plain(render(result)) + "\n")
        return
    from rich.console import Console

    console = Console(file=stream, no_color=not colour, force_terminal=colour, highlight=False,
                      soft_wrap=True, emoji=False, color_system="auto" if colour else None)
    console.print(render(result))
