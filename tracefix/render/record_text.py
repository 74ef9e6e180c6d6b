"""A record as plain terminal text (`tracefix kb show`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracefix.kb.record import Record


def _ranges(label: str, ranges: dict[str, str]) -> list[str]:
    return [f"{label:<12}{name}{spec}" for name, spec in ranges.items()]


def render_record(record: Record) -> str:
    lines = [f"{record.title}  [{record.id}]", ""]
    lines += ["Symptoms:"] + [f"  {s}" for s in record.symptoms]
    if record.frames:
        lines.append(f"Frames:     {', '.join(record.frames)}")
    lines += _ranges("Affected:", record.affected) + _ranges("Fixed:", record.fixed) + _ranges("Works:", record.works)
    if record.environment:
        lines.append(f"Needs:      {', '.join(record.environment)}")
    lines += ["", "Cause:", record.cause, "", "Fix:", record.fix]
    if record.references:
        lines += ["", "References:"] + [f"  {u}" for u in record.references]
    lines.append(f"\nSource: {record.source} ({record.language})")
    return "\n".join(lines)
