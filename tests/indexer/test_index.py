"""The embedders agree; the index knows what it was built from and is rebuilt or refused when stale."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import ASSETS
from tracefix.errors import IndexError_
from tracefix.indexer import faiss_store
from tracefix.indexer.embed import OnnxEmbedder, TorchEmbedder
from tracefix.indexer.model import resolve_model
from tracefix.kb.load import load_article
from tracefix.kb.store import Store
from tracefix.match.loader import load_matcher
from tracefix.settings import Settings

TEXTS = [
    "RuntimeError: No backend type associated with device type cpu",
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800000 milliseconds",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB " * 30,  # past the 256-token limit
    "中文日志：分布式训练失败",
]


def test_onnx_and_torch_backends_give_the_same_vectors():
    info = resolve_model(None)
    onnx = OnnxEmbedder(info).embed(TEXTS)
    torch = TorchEmbedder(info).embed(TEXTS)
    cosine = (onnx * torch).sum(axis=1) / (np.linalg.norm(onnx, axis=1) * np.linalg.norm(torch, axis=1))
    assert cosine.min() >= 0.999, cosine


@pytest.fixture
def small_db(tmp_path, asset):
    db = tmp_path / "kb.db"
    Store(db).ingest([load_article(asset("articles", "good.md"))])
    return db


def test_stale_index_is_rebuilt_by_the_cli_path(small_db, asset, tmp_path):
    settings = Settings.resolve(small_db)
    first = load_matcher(settings)
    assert first.ids == ("good-example",)
    other = tmp_path / "other.md"
    other.write_text(asset("articles", "good.md").read_text().replace("id: good-example", "id: other-example"))
    Store(small_db).ingest([load_article(other)])
    with pytest.raises(IndexError_, match="the knowledge base changed since it was built"):
        load_matcher(settings, rebuild=False)
    assert set(load_matcher(settings).ids) == {"good-example", "other-example"}


def test_foreign_model_index_is_refused(small_db):
    settings = Settings.resolve(small_db)
    load_matcher(settings)
    path = faiss_store.manifest_path(settings.index_path)
    path.write_text(path.read_text().replace(resolve_model(None).fingerprint, "0000000000000000"))
    with pytest.raises(IndexError_, match="built with another model"):
        load_matcher(settings, rebuild=False)


def test_truncated_index_is_detected(small_db):
    settings = Settings.resolve(small_db)
    load_matcher(settings)
    settings.index_path.write_bytes(settings.index_path.read_bytes()[:20])
    with pytest.raises(IndexError_, match="unreadable"):
        load_matcher(settings, rebuild=False)
    assert load_matcher(settings).ids == ("good-example",)


def test_index_build_command(cli, small_db):
    result = cli("index", "build", "--db", str(small_db))
    assert result.returncode == 0, result.stderr
    assert "Indexed 1 records" in result.stdout.decode()
    assert faiss_store.manifest_path(small_db.with_suffix(".faiss")).exists()


@pytest.mark.slow
def test_the_one_off_model_export_shows_only_tracefixs_own_progress(cli, small_db, tmp_path):
    """A fresh cache means exporting the model: no tracer warnings or other libraries' output."""
    result = cli("index", "build", "--db", str(small_db), env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert result.returncode == 0, result.stderr
    err = result.stderr.decode()
    assert "Preparing the embedding model for ONNX Runtime (once): 3/3 done" in err
    assert "Warning" not in err and "warn(" not in err, err
    assert (tmp_path / "cache" / "tracefix" / "onnx").is_dir()


def test_a_missing_index_is_named_once_with_its_command(small_db):
    settings = Settings.resolve(small_db)
    with pytest.raises(IndexError_) as caught:
        load_matcher(settings, rebuild=False)
    assert str(caught.value).count("tracefix index build") == 1 and str(settings.index_path) in str(caught.value)
