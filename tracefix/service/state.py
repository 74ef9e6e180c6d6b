"""The knowledge base a service process answers from: one Matcher, swapped whole when records change.

Readers take the current Matcher reference and keep using it for their whole request; a writer
builds the next store state and index beside it and swaps the reference under a lock, so a match
never sees half an update. Several worker processes share one database: each compares the index
manifest's stat on every request (a few microseconds) and reloads when another process wrote it.
A lock file next to the database serialises writers and keeps readers from loading a half-written
index (`flock`: exclusive for writers, shared for loaders).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tracefix.env.environment import build_environment
from tracefix.errors import TracefixError
from tracefix.indexer import faiss_store
from tracefix.indexer.cache import CachedEmbedder
from tracefix.kb.record import Record
from tracefix.kb.view import RecordView
from tracefix.kb.store import IngestResult, Store
from tracefix.logs.report import read_log
from tracefix.match.matcher import Matcher
from tracefix.match.result import MatchResult
from tracefix.service import reindex
from tracefix.settings import Settings

log = logging.getLogger(__name__)
RELOAD_RETRY_SECONDS = 1.0
Stamp = tuple[int, int, int] | None


class ThreadLocalStore:
    """One `Store` per thread, looking like a single Store.

    NOTE: sqlite3 connections refuse use from another thread (`check_same_thread`), and matching
    runs in a thread pool; see https://docs.python.org/3/library/sqlite3.html#sqlite3.connect.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()

    def store(self) -> Store:
        store = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = Store(self.path)
        return store

    def __getattr__(self, name: str):
        return getattr(self.store(), name)


def _stamp(path: Path) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


@contextlib.contextmanager
def file_lock(path: Path, exclusive: bool) -> Iterator[None]:
    """An advisory lock shared by every process serving the same database."""
    with open(path, "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class KnowledgeBase:
    """The service's view of the database, index and matcher (safe to use from many threads)."""

    def __init__(self, settings: Settings, matcher_or_loader: Matcher | Callable[[], Matcher]):
        self.settings = settings
        self.lock_path = settings.db_path.with_name(settings.db_path.name + ".lock")
        self.manifest_path = faiss_store.manifest_path(settings.index_path)
        self.store = ThreadLocalStore(settings.db_path)
        self._swap, self._reload_lock, self._write_lock = threading.Lock(), threading.Lock(), threading.Lock()
        self._writing, self._retry_at = False, 0.0
        self.loaded_at = time.time()
        first = self._first(matcher_or_loader)
        # Waits for the model: the service is ready when this returns.
        self.embedder = CachedEmbedder(first.embedder)
        self._matcher, self._stamp = self._wrap(first), _stamp(self.manifest_path)

    def _first(self, matcher_or_loader: Matcher | Callable[[], Matcher]) -> Matcher:
        if isinstance(matcher_or_loader, Matcher):
            return matcher_or_loader
        _enable_wal(self.settings.db_path)
        with file_lock(self.lock_path, exclusive=True):  # a missing index is built by one worker only
            return matcher_or_loader()

    def _wrap(self, matcher: Matcher) -> Matcher:
        """The same index and embedder over a thread-safe store (the loader's store is single-threaded)."""
        if not isinstance(matcher.store, Store):
            return matcher
        embedder = self.embedder
        return Matcher(self.store, matcher.index, matcher.ids, lambda: embedder)

    # -- reading ---------------------------------------------------------------------------

    def matcher(self) -> Matcher:
        """The current Matcher, reloaded first when another process changed the index."""
        if self._writing or _stamp(self.manifest_path) == self._stamp or time.monotonic() < self._retry_at:
            return self._matcher
        with self._reload_lock:
            if _stamp(self.manifest_path) != self._stamp:
                self._reload()
        return self._matcher

    def _reload(self) -> None:
        try:
            with file_lock(self.lock_path, exclusive=False):
                stamp = _stamp(self.manifest_path)
                index, manifest = faiss_store.load(self.settings.index_path)
                embedder = self.embedder
                matcher = Matcher(self.store, index, manifest.ids, lambda: embedder)
        except (TracefixError, OSError) as e:
            log.warning("keeping the previous knowledge base: reload failed (%s)", e)
            self._retry_at = time.monotonic() + RELOAD_RETRY_SECONDS
            return
        self._publish(matcher, stamp)

    def _publish(self, matcher: Matcher, stamp: Stamp) -> None:
        with self._swap:
            self._matcher, self._stamp, self.loaded_at = matcher, stamp, time.time()

    def match(self, log_text: str, freeze: str | None = None, smi: str | None = None, top: int = 3) -> MatchResult:
        """The CLI's code path: read the log, build the environment, match (CPU-bound; call in a thread)."""
        report = read_log(log_text)
        env = build_environment(freeze=freeze, smi=smi, report=report)
        return self.matcher().match(report, env, top=top)

    def records(self) -> list[RecordView]:
        return list(self.matcher().records.values())

    def get(self, record_id: str) -> RecordView | None:
        return self.matcher().records.get(record_id)

    def origins(self) -> dict[str, str]:
        return self.store.origins()

    # -- writing ---------------------------------------------------------------------------

    def add(self, record: Record) -> IngestResult:
        """Store and index one record, then swap; matches keep using the previous state meanwhile."""
        with self._write_lock:
            self._writing = True
            try:
                with file_lock(self.lock_path, exclusive=True):
                    result = self._ingest(record)
                    stamp = _stamp(self.manifest_path)
                    index, manifest = faiss_store.load(self.settings.index_path)
                embedder = self.embedder
                self._publish(Matcher(self.store, index, manifest.ids, lambda: embedder), stamp)
            finally:
                self._writing = False
        return result

    def _ingest(self, record: Record) -> IngestResult:
        store = self.store.store()
        before = faiss_store.records_hash(store)
        result = store.ingest([record], origin="user", replace=True)
        changed = result.added + result.updated
        if changed:
            reindex.update_index(store, self.embedder, self.settings.index_path, before, changed)
        return result


def _enable_wal(db_path: Path) -> None:
    """Readers in other workers never wait for a writer's commit in WAL mode (persistent per file)."""
    store = Store(db_path)
    store.db.execute("PRAGMA journal_mode=WAL")
    store.db.conn.close()
