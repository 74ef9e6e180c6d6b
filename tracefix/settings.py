"""Where things live: database, index, model and caches, resolved once from flags and TRACEFIX_* env."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def data_home() -> Path:
    """Per-user data that must survive upgrades of tracefix (the default database)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "tracefix"


def cache_home() -> Path:
    """Rebuildable artefacts: exported ONNX models."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tracefix"


@dataclass(frozen=True)
class Settings:
    """Resolved paths and choices; flags win over the environment, which wins over defaults."""

    db_path: Path
    is_default_db: bool
    model: str | None
    backend: str

    @property
    def index_path(self) -> Path:
        return self.db_path.with_suffix(".faiss")

    @classmethod
    def resolve(cls, db: str | Path | None = None, model: str | None = None, backend: str | None = None) -> Settings:
        chosen = db or os.environ.get("TRACEFIX_DB")
        return cls(
            db_path=Path(chosen).expanduser() if chosen else data_home() / "tracefix.db",
            is_default_db=not chosen,
            model=model or os.environ.get("TRACEFIX_MODEL") or None,
            backend=(backend or os.environ.get("TRACEFIX_BACKEND") or "onnx").lower(),
        )
