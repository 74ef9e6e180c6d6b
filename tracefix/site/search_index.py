"""The client-side search index, written at build time as `search-index.js`.

Chromium refuses fetch()/XHR of JSON from file://, so the index is a script that assigns
`window.TRACEFIX_INDEX`. It holds, per record, the symptom patterns cut the way
`tracefix.logs.signature.compile_symptom` cuts them (masked, split on `...`), and weighted term
postings for BM25. `static/site.js` mirrors `tokenize` below and `signature.mask`; a browser test
checks both against this module on the same strings.
"""

from __future__ import annotations

import json
import re

from tracefix.kb.record import Record
from tracefix.logs.signature import ends_line, symptom_pieces
from tracefix.site.pages import plain_title, record_url

INDEX_VERSION = 1
FIELD_WEIGHTS = (("title", 3), ("id", 2), ("symptoms", 3), ("frames", 2), ("packages", 2), ("cause", 1))
K1, B = 1.2, 0.75
STOP = frozenset(
    "the and for with not but was are this that from none true false line file self most recent call last "
    "in of to is on it be or an as at by if no py site packages lib usr local home dist python".split()
)
_WORD = re.compile(r"[A-Za-z0-9_]+")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_NOISE = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*|(?=[a-f]*[0-9])[0-9a-f]{8,})$")


def _keep(token: str) -> bool:
    return len(token) >= 2 and token not in STOP and not _NOISE.match(token)


def _word_tokens(word: str) -> list[str]:
    """The word itself plus its camelCase / snake_case / letter-digit parts, lowercased."""
    parts = [word.lower()] + [p.lower() for p in _PART.findall(word)]
    return [t for t in dict.fromkeys(parts) if _keep(t)]


def _cjk_tokens(run: str) -> list[str]:
    """Chinese has no spaces: index character bigrams (a lone character stands for itself)."""
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]


def tokenize(text: str) -> list[str]:
    """Search terms of `text`; site.js `tokenize` must give the same list."""
    tokens = [t for m in _WORD.finditer(text) for t in _word_tokens(m.group())]
    return tokens + [t for m in _CJK.finditer(text) for t in _cjk_tokens(m.group())]


def _field_text(record: Record, field: str) -> str:
    if field == "packages":
        return " ".join(record.all_packages())
    value = getattr(record, field)
    return " ".join(value) if isinstance(value, tuple) else value


def term_counts(record: Record) -> dict[str, int]:
    """Field-weighted term frequencies of one record."""
    counts: dict[str, int] = {}
    for field, weight in FIELD_WEIGHTS:
        for token in tokenize(_field_text(record, field)):
            counts[token] = counts.get(token, 0) + weight
    return counts


def _doc(record: Record, length: int) -> dict:
    return {
        "id": record.id,
        "url": record_url(record.id),
        "title": plain_title(record.title),
        "area": record.area,
        "lang": record.language or "en",
        "symptoms": [symptom_pieces(s) for s in record.symptoms],
        "line_end": [ends_line(s) for s in record.symptoms],
        "len": length,
    }


def build_index(records: list[Record]) -> dict:
    """The index for `records` (any order in, sorted by id out)."""
    records = sorted(records, key=lambda r: r.id)
    counts = [term_counts(r) for r in records]
    postings: dict[str, list[list[int]]] = {}
    for i, c in enumerate(counts):
        for term, tf in c.items():
            postings.setdefault(term, []).append([i, tf])
    lengths = [sum(c.values()) for c in counts]
    return {
        "version": INDEX_VERSION,
        "k1": K1,
        "b": B,
        "avgdl": round(sum(lengths) / len(lengths), 4) if lengths else 1,
        "stop": sorted(STOP),
        "docs": [_doc(r, n) for r, n in zip(records, lengths)],
        "postings": dict(sorted(postings.items())),
    }


def index_js(index: dict) -> str:
    """The index as a script; sorted keys and fixed separators keep rebuilds byte-identical."""
    data = json.dumps(index, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    # `</` and the two JS-hostile line separators are escaped so the file is safe in any context.
    data = data.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.TRACEFIX_INDEX = {data};\n"
