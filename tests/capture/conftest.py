"""Fixtures for `tracefix run` and the hooks: a knowledge base with the shipped articles, and a way
to run `tracefix run` as a user does (a real process, real pipes)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, run_cli

PYTHON = sys.executable
DEVICE_MISMATCH = ("Expected all tensors to be on the same device, but found at least two devices, "
                   "cuda:0 and cpu!")   # torch's message, as the shipped record device-mismatch-generic quotes it


@pytest.fixture(scope="session")
def kb_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("capture-kb") / "kb.db"
    done = run_cli("kb", "ingest", "--db", str(path), str(ROOT / "data" / "kb"))
    assert done.returncode == 0, done.stderr
    return path


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHELASTIC_ERROR_FILE", "RANK", "LOCAL_RANK")}
    return {**env, "HF_HUB_OFFLINE": "1", "NO_COLOR": "1", **extra}


@pytest.fixture
def tracefix_run(kb_db):
    """`tracefix run --db KB [options] -- CMD...` -> CompletedProcess with bytes output."""

    def run(*command: str, options: tuple[str, ...] = (), env: dict | None = None, cwd=None):
        args = [PYTHON, "-m", "tracefix", "run", "--db", str(kb_db), *options, "--", *command]
        return subprocess.run(args, capture_output=True, env=env or child_env(), cwd=cwd or ROOT, timeout=600)

    return run


def run_direct(*command: str, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    """The same command without tracefix, for comparing output byte for byte."""
    return subprocess.run(list(command), capture_output=True, env=env or child_env(), cwd=cwd or ROOT, timeout=600)
