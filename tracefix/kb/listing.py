"""Finding records in a large knowledge base: by area, by package, by a pasted error line.

No model is loaded: a pasted line is compared with the records' signatures (masked, as the matcher
does) and with their words (FTS5 BM25), so `tracefix kb list --search` answers at once.
"""

from __future__ import annotations

from packaging.utils import canonicalize_name

from tracefix.kb.store import Store
from tracefix.kb.view import RecordView
from tracefix.logs.signature import mask, symptom_matches

# A pasted error line shares common words (ValueError, CUDA, tensor) with many records: a word match
# far below the best one is noise in a list meant to be read.
WORD_SHARE = 0.25


def select(store: Store, area: str | None = None, package: str | None = None, query: str | None = None) -> list[RecordView]:
    records = list(store.snapshot().records)
    if area:
        records = [r for r in records if r.area.lower() == area.lower()]
    if package:
        name = canonicalize_name(package)
        records = [r for r in records if name in r.all_packages()]
    return _ranked(store, records, query) if query else records


def _ranked(store: Store, records: list[RecordView], query: str) -> list[RecordView]:
    """Records whose signature is in the text first, then by word match; records matching neither, or
    matching only a few common words (a quarter of the best word score or less), are left out."""
    masked = mask(query)
    words = dict(store.search(query, limit=max(50, len(records))))
    floor = WORD_SHARE * max(words.values(), default=0.0)
    by_signature = {r.id for r in records if any(symptom_matches(s, masked) for s in r.symptoms)}
    hits = [r for r in records if r.id in by_signature or words.get(r.id, 0.0) > floor]
    return sorted(hits, key=lambda r: (r.id not in by_signature, -words.get(r.id, 0.0), r.id))
