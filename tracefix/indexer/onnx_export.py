"""One-off export of the model's transformer to ONNX, cached per model fingerprint.

The export needs torch (slow to import), so it runs once, at index build or the first query, and
every later start only opens the cached file.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import warnings
from pathlib import Path

from tracefix.errors import ModelError
from tracefix.indexer.model import ModelInfo
from tracefix.settings import cache_home

_INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


def onnx_path(info: ModelInfo) -> Path:
    return cache_home() / "onnx" / info.fingerprint / "model.onnx"


def ensure_onnx(info: ModelInfo) -> Path:
    """The cached ONNX file for `info`, exporting it first when missing."""
    target = onnx_path(info)
    if not target.is_file():
        export(info, target)
    return target


def export(info: ModelInfo, target: Path) -> None:
    """Export with the TorchScript exporter, then let ONNX Runtime save its optimised graph.

    The exporter and the libraries under it print tracer warnings and progress bars that mean
    nothing to a user: they are silenced, and tracefix says what it is doing instead.
    """
    with _silenced() as terminal:
        _export(info, target, lambda n, what: os.write(terminal, _step(n, what).encode()))
    sys.stderr.write(_step(3, "done") + "\n")


def _step(n: int, what: str) -> str:
    return f"\rPreparing the embedding model for ONNX Runtime (once): {n}/3 {what}\033[K"


@contextlib.contextmanager
def _silenced():
    """Warnings off and file descriptor 2 to /dev/null (C++ code writes there too); yields the real
    stderr's descriptor for tracefix's own progress. Errors still surface as exceptions."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            os.dup2(null.fileno(), 2)
            yield saved
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def _export(info: ModelInfo, target: Path, say) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import torch
        from transformers import AutoModel
    except ImportError as e:
        raise ModelError(f"exporting the model to ONNX needs torch and transformers ({e})") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    say(1, "loading the model")
    model = AutoModel.from_pretrained(str(info.path), attn_implementation="eager").eval()

    class LastHidden(torch.nn.Module):
        """Plain tensor inputs and one output, so the graph is what OnnxEmbedder feeds."""

        def __init__(self):
            super().__init__()
            self.model = model  # a submodule, so its weights export as initialisers

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

    sample = torch.ones(1, 8, dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in [*_INPUTS, "last_hidden_state"]}
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        raw = Path(tmp) / "raw.onnx"
        say(2, "exporting")
        with torch.no_grad():
            torch.onnx.export(LastHidden(), (sample, sample, torch.zeros_like(sample)), str(raw),
                              input_names=_INPUTS, output_names=["last_hidden_state"], dynamic_axes=axes,
                              opset_version=17, dynamo=False)
        _optimise(raw, Path(tmp) / "model.onnx")
        os.replace(Path(tmp) / "model.onnx", target)


def _optimise(raw: Path, out: Path) -> None:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(out)
    ort.InferenceSession(str(raw), options, providers=["CPUExecutionProvider"])
