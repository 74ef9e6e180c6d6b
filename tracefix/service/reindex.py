"""Bringing the on-disk index up to date after an ingest, embedding only the records that changed.

A full `faiss_store.build` embeds every record (about 0.75 s for 50 records on two cores); adding
one article through the API embeds one text and copies the other vectors out of the current index.
The result is written the same way as a full build (index, then manifest; temporary file + rename),
so a fresh process reading it sees the same thing `tracefix index build` would have written.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tracefix.errors import IndexError_
from tracefix.indexer import faiss_store
from tracefix.indexer.embed import Embedder
from tracefix.indexer.text import record_text
from tracefix.kb.store import Store


def update_index(store: Store, embedder: Embedder, index_path: Path, hash_before: str, changed: tuple[str, ...]) -> None:
    """Re-embed `changed` ids and drop deleted ones; a full build when the index was already stale.

    `hash_before` is `records_hash(store)` taken before the ingest: an index that did not match
    it then (built by another model, or the database edited by the CLI since) cannot be patched.
    """
    try:
        index, manifest = faiss_store.load(index_path)
        problem = manifest.problem_with(embedder.info.fingerprint, hash_before)
    except IndexError_ as e:
        problem = str(e)
    if problem:
        faiss_store.build(store, embedder, index_path)
        return
    records = {r.id: r for r in store.records()}
    keep = [i for i, rid in enumerate(manifest.ids) if rid in records and rid not in changed]
    fresh = [rid for rid in records if rid in changed or rid not in manifest.ids]
    vectors = _rows(index, keep, embedder.embed([record_text(records[rid]) for rid in fresh]) if fresh else None)
    ids = tuple(manifest.ids[i] for i in keep) + tuple(fresh)
    _write(vectors, ids, embedder, store, index_path)


def _rows(index, keep: list[int], new: np.ndarray | None) -> np.ndarray:
    old = index.reconstruct_n(0, index.ntotal)[keep] if index.ntotal else np.zeros((0, index.d), np.float32)
    return old if new is None else np.vstack([old, new.astype(np.float32)])


def _write(vectors: np.ndarray, ids: tuple[str, ...], embedder: Embedder, store: Store, index_path: Path) -> None:
    import faiss

    index = faiss.IndexFlatIP(vectors.shape[1])
    if len(ids):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    manifest = faiss_store.Manifest(embedder.info.name, embedder.info.fingerprint, faiss_store.records_hash(store), ids)
    # NOTE: faiss_store has no public "write these vectors" function yet; `_write` is the same
    # atomic writer `build` uses, so the two paths cannot disagree on the file layout.
    faiss_store._write(index, manifest, index_path)
