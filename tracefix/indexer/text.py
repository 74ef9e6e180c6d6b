"""What gets embedded: for a record, the parts a log shares with it (signatures, frames, title,
packages), not the whole article; for a log, its failure and where it happened."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracefix.kb.record import Record


def record_text(record: Record) -> str:
    parts = [record.title, *record.symptoms, " ".join(record.frames), " ".join(record.all_packages())]
    return "\n".join(p for p in parts if p)
