"""The FAISS index beside the database, with a manifest that says what it was built from.

Built to a temporary file and renamed, so a crash never leaves a half-written index behind. A
manifest naming another model or another set of records marks the index stale.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tracefix.errors import IndexError_
from tracefix.indexer.embed import Embedder
from tracefix.indexer.text import record_text
from tracefix.kb.store import Store

MANIFEST_VERSION = 1
BATCH = 64


@dataclass(frozen=True)
class Manifest:
    model: str
    model_fingerprint: str
    records_hash: str
    ids: tuple[str, ...]
    version: int = MANIFEST_VERSION

    def problem_with(self, model_fingerprint: str, records_hash: str) -> str | None:
        """Why this index cannot serve that model and those records, or None."""
        if self.version != MANIFEST_VERSION:
            return "it was written by another version of tracefix"
        if self.model_fingerprint != model_fingerprint:
            return f"it was built with another model ({self.model})"
        if self.records_hash != records_hash:
            return "the knowledge base changed since it was built"
        return None


def manifest_path(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + ".json")


def records_hash(store: Store, fingerprint: str | None = None) -> str:
    return hashlib.sha256((fingerprint or store.fingerprint()).encode()).hexdigest()[:16]


def build(store: Store, embedder: Embedder, index_path: Path, progress: Callable[[int, int], None] | None = None) -> Manifest:
    """Embed every record and write index + manifest atomically."""
    import faiss

    records = store.records()
    texts = [record_text(r) for r in records]
    chunks = []
    for start in range(0, len(texts), BATCH):
        chunks.append(embedder.embed(texts[start : start + BATCH]))
        if progress:
            progress(min(start + BATCH, len(texts)), len(texts))
    dim = chunks[0].shape[1] if chunks else 384
    index = faiss.IndexFlatIP(dim)
    if chunks:
        index.add(np.vstack(chunks))
    fingerprint = store.fingerprint()
    manifest = Manifest(embedder.info.name, embedder.info.fingerprint, records_hash(store, fingerprint), tuple(r.id for r in records))
    _write(index, manifest, index_path)
    store.snapshot(fingerprint)  # written beside the database now, so the first query does not wait for it
    return manifest


def _write(index, manifest: Manifest, index_path: Path) -> None:
    import faiss

    index_path.parent.mkdir(parents=True, exist_ok=True)
    tmp_index = index_path.with_name(f".{index_path.name}.{os.getpid()}.tmp")
    tmp_manifest = tmp_index.with_suffix(".json.tmp")
    faiss.write_index(index, str(tmp_index))
    tmp_manifest.write_text(json.dumps(manifest.__dict__ | {"ids": list(manifest.ids)}))
    # Manifest last: an index without its manifest is treated as missing, never as valid.
    os.replace(tmp_index, index_path)
    os.replace(tmp_manifest, manifest_path(index_path))


def load(index_path: Path):
    """(faiss index, manifest); IndexError_ when missing or unreadable."""
    import faiss

    mpath = manifest_path(index_path)
    if not index_path.is_file() or not mpath.is_file():
        raise IndexError_(f"no index at {index_path} (run 'tracefix index build')")
    try:
        data = json.loads(mpath.read_text())
        manifest = Manifest(**{**data, "ids": tuple(data["ids"])})
        index = faiss.read_index(str(index_path))
    except (OSError, ValueError, TypeError, KeyError, RuntimeError) as e:
        raise IndexError_(f"index at {index_path} is unreadable ({e}); run 'tracefix index build'") from None
    if index.ntotal != len(manifest.ids):
        raise IndexError_(f"index at {index_path} does not match its manifest; run 'tracefix index build'")
    return index, manifest
