"""Opening everything a match needs, once: store, index (rebuilt when stale, if allowed), embedder."""

from __future__ import annotations

from collections.abc import Callable

from tracefix.errors import IndexError_
from tracefix.indexer import faiss_store
from tracefix.indexer.background import StartedEmbedder, start_embedder
from tracefix.indexer.embed import make_embedder
from tracefix.indexer.model import resolve_model
from tracefix.kb.shipped import open_store
from tracefix.kb.store import Store
from tracefix.match.matcher import Matcher
from tracefix.settings import Settings


def build_index(settings: Settings, store: Store | None = None, progress: Callable[[int, int], None] | None = None):
    store = store or open_store(settings)
    embedder = make_embedder(resolve_model(settings.model), settings.backend)
    return faiss_store.build(store, embedder, settings.index_path, progress)


def load_matcher(settings: Settings, rebuild: bool = True, progress: Callable[[int, int], None] | None = None,
                 embedder: StartedEmbedder | None = None) -> Matcher:
    """A ready Matcher. A missing or stale index is rebuilt when `rebuild`, else refused.

    `embedder` is one already started with `start_embedder` (the CLI starts it first thing).
    """
    embedder = embedder or start_embedder(settings.model, settings.backend)
    store = open_store(settings)
    fingerprint = store.fingerprint()
    try:
        index, manifest = faiss_store.load(settings.index_path)
        problem = manifest.problem_with(embedder.info.fingerprint, faiss_store.records_hash(store, fingerprint))
    except IndexError_ as e:
        if not rebuild:
            raise  # its message already names the index and the command that rebuilds it
        problem = str(e)
    if problem and not rebuild:
        raise IndexError_(f"the index at {settings.index_path} cannot be used: {problem} (run 'tracefix index build')")
    if problem:
        faiss_store.build(store, embedder.get(), settings.index_path, progress)
        index, manifest = faiss_store.load(settings.index_path)
    return Matcher(store, index, manifest.ids, embedder.get, store.snapshot(fingerprint))
