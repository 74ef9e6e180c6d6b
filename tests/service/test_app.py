"""The app in process (create_app with an injected Matcher): every error path has one JSON shape."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.service.conftest import ADMIN_TOKEN, KB, article, assert_error_shape, traceback_for
from tracefix.kb.store import Store
from tracefix.indexer import faiss_store
from tracefix.indexer.embed import make_embedder
from tracefix.indexer.model import resolve_model
from tracefix.match.matcher import Matcher
from tracefix.service.app import create_app
from tracefix.service.config import ServiceConfig
from tracefix.settings import Settings


@pytest.fixture(scope="module")
def embedder():
    return make_embedder(resolve_model(None), "onnx")


def _client(db, embedder, **config) -> TestClient:
    """An app over `db` sharing one loaded model (loading it per test would dominate the run time)."""
    settings = Settings.resolve(db)
    index, manifest = faiss_store.load(settings.index_path)
    matcher = Matcher(Store(db), index, manifest.ids, lambda: embedder)
    return TestClient(create_app(matcher, settings, ServiceConfig(**config)), raise_server_exceptions=False)


@pytest.fixture
def client(fresh_db, embedder):
    return _client(fresh_db, embedder, admin_token=ADMIN_TOKEN, max_body=4096)


ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}


def test_writes_are_disabled_without_a_token(fresh_db, embedder):
    response = _client(fresh_db, embedder).post("/v1/records", json={"markdown": article("zz-a", "AError: a")}, headers=ADMIN)
    assert "TRACEFIX_ADMIN_TOKEN" in assert_error_shape(response, 403, "writes_disabled")["message"]


@pytest.mark.parametrize("headers", [{}, {"authorization": "Bearer wrong"}, {"authorization": f"Basic {ADMIN_TOKEN}"}])
def test_wrong_or_missing_token_is_401(client, headers):
    assert_error_shape(client.post("/v1/records", json={"markdown": article("zz-a", "AError: a")}, headers=headers), 401, "unauthorized")


@pytest.mark.parametrize("body, content_type, status, code, message", [
    (b"---\nid: [unclosed\n---\n", "text/markdown", 422, "invalid_article", "api:"),
    # a real shipped article, small enough for the client's 4 KiB body limit, with only its id broken
    ((KB / "torch-six-removed.md").read_bytes().replace(b"id: torch-six-removed", b"id: Bad Id"), "text/markdown", 422,
     "invalid_article", "invalid id"),
    (b"", "text/markdown", 422, "invalid_article", "empty"),
    (b"\xff\xfe", "text/markdown", 422, "invalid_article", "UTF-8"),
    (b'{"md": "x"}', "application/json", 422, "invalid_article", "markdown"),
    (b"{", "application/json", 422, "invalid_json", "not valid JSON"),
    (b"x", "image/png", 415, "unsupported_media_type", "text/markdown"),
])
def test_bad_articles_leave_the_database_unchanged(client, fresh_db, body, content_type, status, code, message):
    before = Store(fresh_db).fingerprint()
    response = client.post("/v1/records", content=body, headers={**ADMIN, "content-type": content_type})
    assert message in assert_error_shape(response, status, code)["message"]
    assert Store(fresh_db).fingerprint() == before


@pytest.mark.parametrize("method, path, payload, status, code", [
    ("post", "/v1/match", {"log": ""}, 422, "invalid_request"),
    ("post", "/v1/match", {"log": "x", "top": 51}, 422, "invalid_request"),
    ("post", "/v1/match", {"log": "x", "extra": 1}, 422, "invalid_request"),
    ("post", "/v1/match", [1, 2], 422, "invalid_request"),
    ("post", "/v1/chatops/webhook", {}, 422, "missing_text"),
    ("post", "/v1/chatops/webhook", {"text": "   "}, 422, "missing_text"),
    ("post", "/v1/match", {"log": "x" * 5000}, 413, "body_too_large"),
    ("get", "/v1/records/no-such-record", None, 404, "not_found"),
    ("get", "/v1/records/Not%20A%20Slug", None, 422, "invalid_request"),
    ("get", "/nowhere", None, 404, "not_found"),
    ("delete", "/v1/match", None, 405, "method_not_allowed"),
])
def test_error_paths_share_one_shape(client, method, path, payload, status, code):
    response = client.request(method.upper(), path, json=payload)
    assert_error_shape(response, status, code)


def test_unexpected_errors_are_500_without_details(client, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("secret from the log body")

    monkeypatch.setattr(client.app.state.kb, "match", explode)
    response = client.post("/v1/match", json={"log": "ValueError: x"})
    assert "secret" not in assert_error_shape(response, 500, "internal_error")["message"]


def test_slack_without_a_secret_is_not_verified_and_empty_text_gets_usage(client):
    response = client.post("/v1/chatops/slack", data={"text": ""})
    assert response.status_code == 200 and response.json()["response_type"] == "ephemeral"


def test_webhook_accepts_log_field(client):
    response = client.post("/v1/chatops/webhook", json={"log": traceback_for("OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.")})
    assert response.status_code == 200 and "`cuda-home-not-set`" in response.json()["text"]


def test_swap_keeps_old_state_until_the_new_one_is_ready(client):
    kb = client.app.state.kb
    old = kb.matcher()
    response = client.post("/v1/records", content=article("zz-swap", "SwapError: now"), headers={**ADMIN, "content-type": "text/markdown"})
    assert response.status_code == 201
    assert "zz-swap" not in old.records  # requests holding the old matcher kept a consistent view
    assert "zz-swap" in kb.matcher().records and "zz-swap" in kb.matcher().ids


def test_a_repeated_error_is_answered_from_the_embedding_cache(client):
    """The same failure with other noise around it embeds the same query text: no second model run."""
    line = "RuntimeError: No backend type associated with device type cpu"
    first = client.post("/v1/match", json={"log": traceback_for(line)}).json()
    noisy = "Epoch 3:  12%|#2        | 120/1000 [00:31<03:50]\n[2024-05-01 10:00:01] starting step 120\n" + traceback_for(line)
    again = client.post("/v1/match", json={"log": noisy}).json()
    assert [m["id"] for m in again["matches"]] == [m["id"] for m in first["matches"]]
    metrics = client.get("/metrics").text
    assert 'tracefix_query_embedding_cache{result="hit"} 1.0' in metrics
    assert 'tracefix_query_embedding_cache{result="miss"} 1.0' in metrics
