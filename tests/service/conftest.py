"""Service fixtures: a small real knowledge base + index (built once per session with the real model),
copied per test or module, and a real `python -m tracefix serve` process on a free loopback port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tracefix.kb.load import load_article
from tracefix.kb.store import Store

ROOT = Path(__file__).resolve().parents[2]
KB = ROOT / "data" / "kb"
KB_LOGS = ROOT / "tests" / "assets" / "kb-logs"
# Articles whose realistic log is in tests/assets/kb-logs; enough to make ranking meaningful.
ARTICLES = ("cuda-home-not-set", "dist-address-in-use", "nccl-watchdog-timeout", "flash-attn-not-installed",
            "numpy2-abi-break", "torch-load-weights-only", "cuda-invalid-device-ordinal")
ADMIN_TOKEN = "test-admin-token"
SLACK_SECRET = "test-slack-secret"
STARTUP_SECONDS = 120


def article(record_id: str, symptom: str, title: str | None = None) -> str:
    """A minimal valid front-matter article."""
    title = title or symptom
    return (f'---\nid: {record_id}\ntitle: "{title}"\narea: general\npackages: [torch]\nsymptoms:\n  - "{symptom}"\n---\n\n'
            f"# {title}\n\n## Cause\n\nThe flux capacitor runs hot above 88 mph.\n\n## Fix\n\nSlow down: `export SPEED=87`.\n")


def traceback_for(exception_line: str) -> str:
    return f'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    main()\n{exception_line}\n'


@pytest.fixture(scope="session")
def kb_template(tmp_path_factory) -> Path:
    """A database of ARTICLES with its index, built once (the index build loads the real model)."""
    from tracefix.match.loader import load_matcher
    from tracefix.settings import Settings

    folder = tmp_path_factory.mktemp("kb-template")
    store = Store(folder / "kb.db")
    store.ingest([load_article(KB / f"{name}.md") for name in ARTICLES], origin="user")
    store.db.conn.close()
    load_matcher(Settings.resolve(folder / "kb.db"), rebuild=True)
    return folder / "kb.db"


def copy_db(template: Path, folder: Path) -> Path:
    """The template database and its index, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in template.parent.iterdir():
        if path.name.startswith("kb."):
            shutil.copy2(path, folder / path.name)
    return folder / template.name


@pytest.fixture
def fresh_db(kb_template: Path, tmp_path: Path) -> Path:
    return copy_db(kb_template, tmp_path / "db")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A `tracefix serve` child process; `output()` is what it printed so far."""

    url: str
    process: subprocess.Popen
    log_path: Path

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> str:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.output()


def start_server(db: Path, log_path: Path, *args: str, env: dict[str, str] | None = None) -> Server:
    """Start `python -m tracefix serve` and wait for /healthz; fail with its output if it does not come up."""
    port = free_port()
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRACEFIX_ADMIN_TOKEN": ADMIN_TOKEN,
                "TRACEFIX_SLACK_SIGNING_SECRET": SLACK_SECRET, **(env or {})}
    out = open(log_path, "wb")
    process = subprocess.Popen([sys.executable, "-m", "tracefix", "serve", "--port", str(port), "--db", str(db), *args],
                               stdout=out, stderr=subprocess.STDOUT, env=full_env, cwd=ROOT)
    out.close()
    server = Server(f"http://127.0.0.1:{port}", process, log_path)
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited with {process.returncode}:\n{server.output()}")
        try:
            if httpx.get(server.url + "/healthz", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    pytest.fail(f"server did not answer /healthz within {STARTUP_SECONDS}s:\n{server.stop()}")


def assert_error_shape(response: httpx.Response, status: int, code: str | None = None) -> dict:
    """Every error is `{"error": {"code": str, "message": str}}` and never a traceback."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert "Traceback" not in response.text
    if code:
        assert body["error"]["code"] == code, body
    return body["error"]
