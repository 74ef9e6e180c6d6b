"""The query-embedding cache: same text, same vector, no model run; bounded."""

from __future__ import annotations

import numpy as np

from tracefix.indexer.cache import CachedEmbedder
from tracefix.indexer.embed import make_embedder
from tracefix.indexer.model import resolve_model


def test_cached_rows_equal_the_models_and_the_cache_stays_bounded():
    model = make_embedder(resolve_model(None), "onnx")
    cached = CachedEmbedder(model, entries=2)
    texts = ["NCCL watchdog timeout", "CUDA out of memory", "No backend type associated with device type cpu"]
    for text in texts + texts[-1:]:
        np.testing.assert_allclose(cached.embed([text]), model.embed([text]), rtol=1e-5, atol=1e-6)
    assert (cached.hits, cached.misses) == (1, 3)
    cached.embed([texts[0]])  # the oldest entry was evicted: the model runs again
    assert cached.misses == 4
