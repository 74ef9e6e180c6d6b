"""A bounded cache of query embeddings, keyed by the text embedded.

In the service the same error arrives again and again (every rank, every retry, every colleague
pasting it); its query text is the same, so its vector is too, and a repeat costs no model run.
Batches (index builds) pass straight through.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from tracefix.indexer.embed import Embedder

DEFAULT_ENTRIES = 4096  # one 384-float row each: about 6 MiB


class CachedEmbedder:
    """Wraps an embedder; least recently used texts leave first. Safe from many threads."""

    def __init__(self, inner: Embedder, entries: int = DEFAULT_ENTRIES):
        self.inner = inner
        self.info = inner.info
        self.entries = entries
        self.hits = self.misses = 0
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        if len(texts) != 1:
            return self.inner.embed(texts, batch_size)
        key = texts[0]
        with self._lock:
            row = self._rows.get(key)
            if row is not None:
                self._rows.move_to_end(key)
                self.hits += 1
                return row
            self.misses += 1
        row = self.inner.embed(texts, batch_size)
        row.setflags(write=False)  # shared between requests: nobody may change it in place
        with self._lock:
            self._rows[key] = row
            while len(self._rows) > self.entries:
                self._rows.popitem(last=False)
        return row
