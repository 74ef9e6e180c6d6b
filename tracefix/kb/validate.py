"""validate(paths) -> problems, one line each; used by `tracefix kb validate` and the tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tracefix.errors import ArticleError
from tracefix.kb.load import article_paths, load_article
from tracefix.kb.record import Record


def load_all(paths: Iterable[str | Path]) -> tuple[list[Record], list[ArticleError]]:
    """Every article under `paths`, parsed; problems collected instead of raised."""
    records, problems = [], []
    try:
        files = list(article_paths(paths))
    except ArticleError as e:
        return [], [e]
    for path in files:
        try:
            records.append(load_article(path))
        except ArticleError as e:
            problems.append(e)
    problems += duplicate_ids(records)
    return records, problems


def duplicate_ids(records: list[Record]) -> list[ArticleError]:
    """Two articles claiming one id is an error naming both files."""
    first: dict[str, Record] = {}
    problems = []
    for record in records:
        if record.id in first and first[record.id].source != record.source:
            problems.append(ArticleError(record.source, None, f"id {record.id!r} is already used by {first[record.id].source}"))
        first.setdefault(record.id, record)
    return problems
