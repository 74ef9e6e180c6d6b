"""`tracefix < error.log` as a user runs it: output, JSON contract, exit codes, colour."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ASSETS, ROOT


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    from tests.conftest import run_cli

    path = tmp_path_factory.mktemp("cli") / "kb.db"
    assert run_cli("kb", "ingest", "--db", str(path), str(ROOT / "data" / "kb")).returncode == 0
    return path


def test_stdin_log_prints_the_match_and_exits_0(cli, db):
    log = (ROOT / "examples" / "nccl-timeout-4rank.log").read_bytes()
    result = cli("--db", str(db), stdin=log)
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr
    assert "nccl-watchdog-timeout" in out
    assert "Cause" in out and "Fix" in out and "why:" in out
    assert "\x1b[" not in out  # not a terminal: no colour codes


def test_json_contract(cli, db):
    result = cli("--db", str(db), "--json", str(ROOT / "examples" / "nccl-timeout-4rank.log"))
    data = json.loads(result.stdout)
    assert set(data) >= {"query", "environment", "matches"}
    assert set(data["query"]) >= {"exception", "message", "signature", "packages", "root_rank"}
    assert set(data["environment"]) >= {"packages", "gpus", "driver_version", "cuda_version", "torch_cuda", "warnings"}
    best = data["matches"][0]
    assert set(best) >= {"id", "title", "score", "confident", "verdict", "checks", "why", "cause", "fix", "source"}
    assert best["id"] == "nccl-watchdog-timeout" and best["confident"] is True
    assert data["query"]["root_rank"] == 2


def test_no_confident_match_exits_1(cli, db):
    log = b'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nNameError: name \'x\' is not defined\n'
    result = cli("--db", str(db), stdin=log)
    assert result.returncode == 1
    assert "No confident match" in result.stdout.decode()


@pytest.mark.parametrize("args, stdin, message", [
    (["no/such.log"], None, "cannot read no/such.log"),
    ([], b"   \n", "the log is empty"),
    (["--top", "0"], b"x", "Invalid value for '--top'"),
])
def test_bad_input_exits_2_with_one_line(cli, db, args, stdin, message):
    result = cli("--db", str(db), *args, stdin=stdin if stdin is not None else b"")
    err = result.stderr.decode()
    assert result.returncode == 2
    assert message in err and "Traceback" not in err


def test_binary_log_is_read_not_crashed_on(cli, db):
    result = cli("--db", str(db), stdin=bytes(range(256)) * 100)
    assert result.returncode in (0, 1)
    assert "Traceback" not in result.stderr.decode()


def test_help_lists_every_command(cli):
    out = cli("--help").stdout.decode()
    for command in ("kb", "index", "eval", "serve", "site"):
        assert command in out
    readme = (ROOT / "README.md").read_text()
    for command in ("tracefix kb ingest", "tracefix kb validate", "tracefix index build", "tracefix eval",
                    "tracefix serve", "tracefix site build"):
        assert command in readme
