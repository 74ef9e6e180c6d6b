"""The knowledge-base database: records in SQLite (sqlite-utils) with an FTS5 index.

One row per record: the record as JSON plus flattened text columns for full-text search. Each
ingest is one transaction, so either every article of a run lands or none does. Reads go through
the plain sqlite3 connection and sqlite-utils and pydantic are imported only to write: the query
path (`snapshot`, `search`) starts without them.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tracefix.errors import StoreError
from tracefix.kb import snapshot as snapshots

if TYPE_CHECKING:
    import sqlite_utils

    from tracefix.kb.record import Record

SCHEMA_VERSION = "1"
COMMON_TERMS_FROM = 5000  # records; smaller knowledge bases search every word
_FTS_COLUMNS = ("title", "symptoms", "frames", "packages", "cause", "fix")


@dataclass(frozen=True)
class IngestResult:
    """What one ingest run did, by record id."""

    added: tuple[str, ...]
    updated: tuple[str, ...]
    unchanged: tuple[str, ...]


class Store:
    """A knowledge-base database file. `Store(path)` creates the schema when missing."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._common: frozenset[str] | None = None
        self._db: sqlite_utils.Database | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path))
            self._ensure_schema()
        except (sqlite3.DatabaseError, OSError) as e:
            raise StoreError(f"{self.path}: not a usable tracefix database ({e})") from None

    @property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over the same connection, for writing."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn)
        return self._db

    def _query(self, sql: str, params: list | tuple = ()) -> Iterable[dict]:
        cursor = self.conn.execute(sql, params)
        columns = [d[0] for d in cursor.description]
        return (dict(zip(columns, row)) for row in cursor)

    def _ensure_schema(self) -> None:
        if next(self._query("select name from sqlite_master where type = 'table' and name = 'records'"), None):
            return
        with self.db.conn:
            self.db["records"].create(
                {"id": str, "origin": str, "content_hash": str, "source": str, "data": str,
                 **{c: str for c in _FTS_COLUMNS}},
                pk="id",
            )
            self.db["meta"].create({"key": str, "value": str}, pk="key")
            self.db["meta"].insert({"key": "schema", "value": SCHEMA_VERSION})
        self.db["records"].enable_fts(_FTS_COLUMNS, tokenize="porter", create_triggers=True)

    # -- writing ---------------------------------------------------------------------------

    def ingest(self, records: Iterable[Record], origin: str = "user", replace: bool = False) -> IngestResult:
        """Add or update records in one transaction; re-ingesting an unchanged record is a no-op.

        A record whose id is held by an article from another file is refused unless `replace`.
        """
        added, updated, unchanged = [], [], []
        try:
            with self.db.conn:
                for record in records:
                    old = self._row(record.id)
                    if old is None:
                        added.append(record.id)
                    elif old["content_hash"] == record.content_hash() and old["source"] == record.source:
                        unchanged.append(record.id)
                        continue
                    elif old["source"] != record.source and not replace and old["origin"] == origin:
                        raise StoreError(f"{record.source}: id {record.id!r} is already used by {old['source']} (use --replace to overwrite)")
                    elif old["origin"] != origin and not replace:
                        raise StoreError(f"{record.source}: id {record.id!r} belongs to the {old['origin']} knowledge base (use --replace to overwrite)")
                    else:
                        updated.append(record.id)
                    self.db["records"].upsert(_row(record, origin), pk="id")
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: write failed, nothing was stored ({e})") from None
        self._common = None
        return IngestResult(tuple(added), tuple(updated), tuple(unchanged))

    def sync_origin(self, records: list[Record], origin: str) -> IngestResult:
        """Make the records of `origin` exactly `records` (the shipped set after an upgrade)."""
        keep = {r.id for r in records}
        with self.db.conn:
            result = self.ingest(records, origin=origin, replace=True)
            stale = [r["id"] for r in self._query("select id from records where origin = ?", [origin]) if r["id"] not in keep]
            for record_id in stale:
                self.db["records"].delete(record_id)
        return result

    def get_meta(self, key: str) -> str | None:
        row = next(self._query("select value from meta where key = ?", [key]), None)
        return row["value"] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.db.conn:
            self.db["meta"].upsert({"key": key, "value": value}, pk="key")

    # -- reading ---------------------------------------------------------------------------

    def _row(self, record_id: str) -> dict | None:
        return next(self._query("select * from records where id = ?", [record_id]), None)

    def get(self, record_id: str) -> Record:
        row = self._row(record_id)
        if row is None:
            raise StoreError(f"no record with id {record_id!r} (see 'tracefix kb list')")
        from tracefix.kb.record import Record

        return Record.model_validate_json(row["data"])

    def records(self) -> list[Record]:
        """Every record, ordered by id, as validated `Record`s (for export and re-indexing)."""
        from tracefix.kb.record import Record

        return [Record.model_validate_json(r["data"]) for r in self._query("select data from records order by id")]

    def snapshot(self, fingerprint: str | None = None) -> snapshots.Snapshot:
        """Every record as the matcher reads it, from the cache file when the records have not changed.
        `fingerprint`: this store's, when the caller has just computed it (it takes a while at 100k records)."""
        fingerprint = fingerprint or self.fingerprint()
        cached = snapshots.load(self.path, fingerprint)
        if cached is not None:
            return cached
        built = snapshots.build([r["data"] for r in self._query("select data from records order by id")])
        snapshots.save(self.path, fingerprint, built)
        return built

    def origins(self) -> dict[str, str]:
        return {r["id"]: r["origin"] for r in self._query("select id, origin from records")}

    def fingerprint(self) -> str:
        """Changes whenever any record changes: the index manifest compares it."""
        row = next(self._query("select group_concat(id || ':' || content_hash, ',') as f from (select * from records order by id)"))
        return row["f"] or ""

    def count(self) -> int:
        return next(self._query("select count(*) as n from records"))["n"]

    def common_terms(self) -> frozenset[str]:
        """Index terms found in over a tenth of a large knowledge base: they add almost nothing to
        BM25 but make an OR query touch every row, so `search` leaves them out."""
        if self._common is None:
            total = self.count()
            self._common = frozenset()
            if total > COMMON_TERMS_FROM:
                self.conn.execute("create virtual table if not exists temp.records_vocab using fts5vocab(main, records_fts, row)")
                rows = self.conn.execute("select term from temp.records_vocab where doc > ?", [total // 10]).fetchall()
                self._common = frozenset(r[0] for r in rows)
        return self._common

    def search(self, text: str, limit: int = 20) -> list[tuple[str, float]]:
        """(id, BM25 score, higher is better) for the words of `text`, any of them."""
        query = fts_query(text, skip=self.common_terms())
        if not query:
            return []
        sql = (
            "select records.id as id, bm25(records_fts) as rank from records_fts "
            "join records on records.rowid = records_fts.rowid where records_fts match ? order by rank limit ?"
        )
        try:
            return [(r["id"], -r["rank"]) for r in self._query(sql, [query, limit])]
        except sqlite3.OperationalError:
            return []


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,40}")
_STOP = frozenset("the and for with not but was are this that from none true false line file self most recent call last".split())


def fts_query(text: str, max_terms: int = 64, skip: frozenset[str] = frozenset()) -> str:
    """An OR query of the distinctive words of `text` (FTS5 syntax is quoted away).

    `skip` holds stemmed index terms; a word is skipped when it or a stem of it is there.
    """
    words = [w.lower() for w in _WORD.findall(text)]
    terms = [w for w in dict.fromkeys(words) if w not in _STOP and not _in_terms(w, skip)][:max_terms]
    return " OR ".join(f'"{t}"' for t in terms)


def _in_terms(word: str, terms: frozenset[str]) -> bool:
    """Whether `word` or a stem of it (the Porter stemmer drops at most a few letters) is in `terms`."""
    return any(word[:k] in terms for k in range(max(3, len(word) - 3), len(word) + 1))


def _row(record: Record, origin: str) -> dict:
    return {
        "id": record.id,
        "origin": origin,
        "content_hash": record.content_hash(),
        "source": record.source,
        "data": json.dumps(record.model_dump(mode="json"), ensure_ascii=False),
        "title": record.title,
        "symptoms": "\n".join(record.symptoms),
        "frames": " ".join(record.frames),
        "packages": " ".join(record.all_packages()),
        "cause": record.cause,
        "fix": record.fix,
    }
