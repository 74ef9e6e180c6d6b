"""One matcher over the shipped knowledge base per session: real SQLite, real FAISS, real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tracefix.kb.store import Store
from tracefix.kb.validate import load_all
from tracefix.match.loader import load_matcher
from tracefix.settings import Settings


@pytest.fixture(scope="session")
def shipped_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("shipped") / "kb.db"
    records, problems = load_all([ROOT / "data" / "kb"])
    assert not problems, problems
    Store(db).ingest(records)
    return db


@pytest.fixture(scope="session")
def matcher(shipped_db):
    return load_matcher(Settings.resolve(shipped_db))
