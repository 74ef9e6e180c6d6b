"""Shared fixtures: real files, real SQLite, the real bundled model (loaded once per session)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracefix.kb.load import article_paths

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"
EVAL_PUBLIC = SHARED / "eval" / "public"
ASSETS = Path(__file__).resolve().parent / "assets"
# The shipped records' ids (article file names; `_template.md` and other `_*` files are not articles).
KB_IDS = tuple(sorted(p.stem for p in article_paths([ROOT / "data" / "kb"])))

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture
def asset():
    def find(*parts: str) -> Path:
        path = ASSETS.joinpath(*parts)
        assert path.exists(), f"missing test asset {path}"
        return path

    return find


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "kb.db"


def run_cli(*args: str, stdin: bytes | None = None, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m tracefix ...` in a child process, as a user would run it."""
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "tracefix", *args], input=stdin, capture_output=True,
                          env=full_env, cwd=cwd or ROOT, timeout=600)


@pytest.fixture
def cli():
    return run_cli
