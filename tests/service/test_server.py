"""The service as a user runs it: `python -m tracefix serve` on a free loopback port, over real HTTP."""

from __future__ import annotations

import functools
import json
import time
from urllib.parse import urlencode

import httpx
import pytest

from tests.service.conftest import (ADMIN_TOKEN, KB_LOGS, SLACK_SECRET, article, assert_error_shape, copy_db,
                                    start_server, traceback_for)
from tracefix.service.slack_verify import sign

pytestmark = pytest.mark.slow
# The model loads in each worker on its first query: patient on a busy machine, never a timed assertion.
get = functools.partial(httpx.get, timeout=60)
post = functools.partial(httpx.post, timeout=60)
SECRET_IN_LOG = "hunter2-secret-token-in-a-log"


@pytest.fixture(scope="module")
def server(kb_template, tmp_path_factory):
    folder = tmp_path_factory.mktemp("served")
    db = copy_db(kb_template, folder)
    server = start_server(db, folder / "server.log")
    server.db = db
    yield server
    server.stop()


def _log(name: str) -> str:
    return (KB_LOGS / f"{name}.log").read_text()


def _slack_post(server, text: str, timestamp: int | None = None, secret: str = SLACK_SECRET, signature: str | None = None):
    body = urlencode({"command": "/tracefix", "text": text, "response_url": "https://hooks.slack.com/commands/T/1/x"}).encode()
    ts = str(timestamp if timestamp is not None else int(time.time()))
    headers = {"content-type": "application/x-www-form-urlencoded", "x-slack-request-timestamp": ts,
               "x-slack-signature": signature or sign(secret, ts, body)}
    return post(server.url + "/v1/chatops/slack", content=body, headers=headers, timeout=30)


def test_healthz_reports_the_loaded_knowledge_base(server):
    body = get(server.url + "/healthz").json()
    assert body["status"] == "ok" and body["records"] == 7 and body["indexed"] == 7


def test_match_returns_the_cli_json_object(server, cli):
    log = _log("cuda-home-not-set")
    response = post(server.url + "/v1/match", json={"log": log, "top": 3, "pip_freeze": "torch==2.1.0+cu118\n"}, timeout=30)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["matches"][0]["id"] == "cuda-home-not-set"
    assert body["environment"]["packages"]["torch"] == "2.1.0+cu118"
    freeze = server.log_path.with_name("freeze.txt")
    freeze.write_text("torch==2.1.0+cu118\n")
    done = cli("--json", "--db", str(server.db), "--freeze", str(freeze), "--top", "3", stdin=log.encode())
    assert json.loads(done.stdout) == body  # one code path: the CLI and the service cannot drift


def test_slack_signed_request_gets_blocks(server):
    response = _slack_post(server, _log("dist-address-in-use"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["response_type"] == "in_channel"
    assert "dist-address-in-use" in json.dumps(body["blocks"]) and body["text"].startswith("tracefix:")
    assert len(body["blocks"]) <= 50


@pytest.mark.parametrize("how", ["wrong secret", "tampered", "stale", "future", "missing"])
def test_slack_bad_signature_is_401(server, how):
    text = _log("dist-address-in-use")
    if how == "wrong secret":
        response = _slack_post(server, text, secret="not-the-secret")
    elif how == "tampered":
        response = _slack_post(server, text, signature="v0=" + "0" * 64)
    elif how in ("stale", "future"):
        # An hour off, far outside the 5-minute window: a slow request on a busy machine cannot bring it back in.
        response = _slack_post(server, text, timestamp=int(time.time()) + (-3600 if how == "stale" else 3600))
    else:
        response = post(server.url + "/v1/chatops/slack", data={"text": text})
    assert_error_shape(response, 401, "bad_signature")


def test_slack_replayed_request_is_401(server):
    body = urlencode({"text": "RuntimeError: replay me"}).encode()
    ts = str(int(time.time()))
    headers = {"content-type": "application/x-www-form-urlencoded", "x-slack-request-timestamp": ts,
               "x-slack-signature": sign(SLACK_SECRET, ts, body)}
    first = post(server.url + "/v1/chatops/slack", content=body, headers=headers)
    again = post(server.url + "/v1/chatops/slack", content=body, headers=headers)
    assert first.status_code == 200
    assert "replayed" in assert_error_shape(again, 401, "bad_signature")["message"]


def test_webhook_answers_markdown(server):
    response = post(server.url + "/v1/chatops/webhook", json={"text": _log("numpy2-abi-break")}, timeout=30)
    assert response.status_code == 200
    text = response.json()["text"]
    assert text.startswith("**tracefix:") and "`numpy2-abi-break`" in text


def test_record_added_over_the_api_is_found_by_the_next_match(server):
    symptom = "ZzyzxError: flux capacitor overheated"
    headers = {"authorization": f"Bearer {ADMIN_TOKEN}", "content-type": "text/markdown"}
    added = post(server.url + "/v1/records", content=article("zz-flux-capacitor", symptom), headers=headers, timeout=60)
    assert added.status_code == 201, added.text
    assert added.json() == {"id": "zz-flux-capacitor", "status": "added", "count": 8}
    match = post(server.url + "/v1/match", json={"log": traceback_for(symptom)}, timeout=30).json()
    assert match["matches"][0]["id"] == "zz-flux-capacitor" and match["matches"][0]["confident"]
    assert get(server.url + "/v1/records/zz-flux-capacitor").json()["title"] == symptom
    assert "zz-flux-capacitor" in [r["id"] for r in get(server.url + "/v1/records").json()["records"]]


def test_record_json_body_and_replacement(server):
    headers = {"authorization": f"Bearer {ADMIN_TOKEN}"}
    first = post(server.url + "/v1/records", json={"markdown": article("zz-json", "JsonError: one")}, headers=headers)
    second = post(server.url + "/v1/records", json={"markdown": article("zz-json", "JsonError: two")}, headers=headers)
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["status"] == "updated"
    assert get(server.url + "/v1/records/zz-json").json()["symptoms"] == ["JsonError: two"]


def test_declared_oversized_body_is_413(server):
    response = post(server.url + "/v1/match", content=b"x" * (2 * 2**20 + 1), headers={"content-type": "application/json"})
    assert_error_shape(response, 413, "body_too_large")


def test_streamed_oversized_body_is_413(server):
    def chunks():
        for _ in range(40):
            yield b"y" * 65536  # 2.5 MiB, sent chunked without a Content-Length

    response = post(server.url + "/v1/match", content=chunks(), headers={"content-type": "application/json"})
    assert_error_shape(response, 413, "body_too_large")


def test_malformed_json_is_422_with_a_clear_message(server):
    response = post(server.url + "/v1/match", content=b'{"log": ', headers={"content-type": "application/json"})
    assert "malformed JSON" in assert_error_shape(response, 422, "invalid_request")["message"]
    wrong = post(server.url + "/v1/match", json={"log": "x", "top": 0})
    assert "body.top" in assert_error_shape(wrong, 422)["message"]


def test_openapi_and_metrics(server):
    paths = get(server.url + "/openapi.json").json()["paths"]
    assert {"/v1/match", "/v1/chatops/slack", "/v1/chatops/webhook", "/v1/records", "/v1/records/{record_id}",
            "/healthz", "/metrics"} <= set(paths)
    # Metrics are per worker process: one keep-alive connection keeps both requests on the same worker.
    with httpx.Client(base_url=server.url, timeout=60) as client:
        assert client.post("/v1/match", json={"log": "ValueError: x"}).status_code == 200
        text = client.get("/metrics").text
    assert 'tracefix_http_requests_total{endpoint="/v1/match",method="POST",status="200"}' in text
    assert 'tracefix_http_request_duration_seconds_bucket{endpoint="/v1/match"' in text


def test_request_bodies_are_not_logged(server):
    post(server.url + "/v1/match", json={"log": traceback_for(f"ValueError: {SECRET_IN_LOG}")})
    post(server.url + "/v1/match", content=f'{{"log": "{SECRET_IN_LOG}'.encode(), headers={"content-type": "application/json"})
    output = server.output()
    assert "POST /v1/match" in output  # the access log is on, with paths only
    assert SECRET_IN_LOG not in output


def test_every_worker_sees_a_record_added_through_another(kb_template, tmp_path):
    db = copy_db(kb_template, tmp_path / "db")
    server = start_server(db, tmp_path / "server.log", "--workers", "2")
    try:
        symptom = "QuuxError: the other worker must know"
        headers = {"authorization": f"Bearer {ADMIN_TOKEN}", "content-type": "text/markdown"}
        assert post(server.url + "/v1/records", content=article("zz-quux", symptom), headers=headers, timeout=60).status_code == 201
        for _ in range(12):  # new connections: spread over both workers
            with httpx.Client() as client:
                body = client.post(server.url + "/v1/match", json={"log": traceback_for(symptom)}, timeout=30).json()
            assert body["matches"][0]["id"] == "zz-quux"
    finally:
        output = server.stop()
    assert output.count("Started server process") == 2, output
