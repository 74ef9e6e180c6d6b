"""Embedders: ONNX Runtime + tokenizers (default, starts fast) and sentence-transformers (reference).

Both return L2-normalised float32 rows, so inner product is cosine similarity.
"""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np

from tracefix.errors import ModelError
from tracefix.indexer.model import ModelInfo

BACKENDS = ("onnx", "torch")


class Embedder(Protocol):
    info: ModelInfo

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray: ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


class OnnxEmbedder:
    """Mean pooling over the exported transformer, as the sentence-transformers Pooling module does."""

    def __init__(self, info: ModelInfo):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from tracefix.indexer.onnx_export import ensure_onnx

        self.info = info
        self.tokenizer = Tokenizer.from_file(str(info.path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=info.max_length)
        self.tokenizer.enable_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = int(os.environ.get("TRACEFIX_ONNX_THREADS") or min(4, os.cpu_count() or 1))
        # The cached file is already optimised at export: skip redoing it at every start.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.log_severity_level = 3
        # Spinning threads burn the other core that a concurrent request (or the main thread) needs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(ensure_onnx(info)), options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        rows = [self._batch(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        return np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    def _batch(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return _normalise(pooled) if self.info.normalize else pooled.astype(np.float32)


class TorchEmbedder:
    """The sentence-transformers reference path (slow to import; used to check the ONNX one)."""

    def __init__(self, info: ModelInfo):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        self.info = info
        self.model = SentenceTransformer(str(info.path), device="cpu")

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        vectors = self.model.encode(texts, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False)
        return _normalise(vectors) if self.info.normalize else vectors.astype(np.float32)


def make_embedder(info: ModelInfo, backend: str) -> Embedder:
    if backend not in BACKENDS:
        raise ModelError(f"unknown backend {backend!r} (TRACEFIX_BACKEND must be one of: {', '.join(BACKENDS)})")
    return OnnxEmbedder(info) if backend == "onnx" else TorchEmbedder(info)
