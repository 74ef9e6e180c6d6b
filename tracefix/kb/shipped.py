"""The knowledge base that ships with tracefix: found in the wheel or the source tree, and kept
current in the default database without touching what the user ingested."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from tracefix.errors import ArticleError
from tracefix.kb.store import Store
from tracefix.settings import Settings

ORIGIN = "shipped"


def shipped_dir() -> Path:
    """`tracefix/data/kb` inside an installed wheel, else `data/kb` of the source checkout."""
    packaged = Path(str(resources.files("tracefix"))) / "data" / "kb"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "data" / "kb"


def shipped_hash(folder: Path) -> str:
    """Hash of the shipped articles' names and bytes: cheap to compute at every start."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.md")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def refresh(store: Store) -> bool:
    """Bring the shipped records in `store` up to date; True when anything changed."""
    folder = shipped_dir()
    current = shipped_hash(folder)
    if store.get_meta("shipped_hash") == current:
        return False
    from tracefix.kb.validate import load_all  # parsers are needed only when the articles changed

    records, problems = load_all([folder])
    if problems:
        raise ArticleError(str(folder), None, f"shipped knowledge base is invalid: {problems[0]}")
    store.sync_origin(records, ORIGIN)
    store.set_meta("shipped_hash", current)
    return True


def open_store(settings: Settings) -> Store:
    """The store the settings name; the default database first gets the current shipped articles."""
    store = Store(settings.db_path)
    if settings.is_default_db:
        refresh(store)
    return store
