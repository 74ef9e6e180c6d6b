"""Logs that show only a launcher's summary (torchrun's ChildFailedError table, exit code 1, no
rank traceback): the report says what the launcher saw, and every rendering says where the real
error is and how to capture it.

The summaries in tests/assets/logs/launcher/ are copied from public threads (URL in each sidecar);
the public evaluation logs are read in place.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import ASSETS, EVAL_PUBLIC
from tracefix.env.environment import build_environment
from tracefix.logs.advice import launcher_advice
from tracefix.logs.report import read_log
from tracefix.match.result import MatchResult
from tracefix.render import json as json_render
from tracefix.render import markdown, slack, text

LAUNCHER = ASSETS / "logs" / "launcher"
CASES = sorted(LAUNCHER.glob("*.json"))


def _no_match(report) -> MatchResult:
    return MatchResult(report=report, environment=build_environment(report=report), matches=())


@pytest.mark.parametrize("sidecar", CASES, ids=[p.stem for p in CASES])
def test_what_the_launcher_saw(sidecar):
    case = json.loads(sidecar.read_text())
    report = read_log(sidecar.with_suffix(".log"))
    seen = report.launcher
    assert seen is not None and seen.launcher == case["launcher"]
    assert list(seen.ranks) == case["ranks"] and list(seen.hosts) == case["hosts"]
    assert seen.exitcode == case["exitcode"] and seen.signal is None
    assert list(seen.error_files) == case["error_files"]
    assert seen.only == case["only"] and report.root_rank == case["root_rank"]
    advice = " ".join(launcher_advice(report))
    if not case["only"]:
        assert advice == ""
        return
    assert f"rank {case['root_rank']}" in advice and "own output" in advice
    for words in case["advice_includes"]:
        assert words in advice
    for host in case["hosts"]:
        assert host in advice


def test_public_deepspeed_exit_1_with_the_rank_traceback_gets_no_advice():
    path = EVAL_PUBLIC / "cogvlm-121.json"
    if not path.exists():
        pytest.skip("public eval case cogvlm-121 not available")
    report = read_log(json.loads(path.read_text())["log"])
    assert report.launcher.launcher == "deepspeed" and report.launcher.exitcode == 1
    assert not report.launcher.only and report.root.exception == "torch.cuda.OutOfMemoryError"
    assert launcher_advice(report) == ()


def test_a_summary_with_the_rank_traceback_gets_no_advice():
    report = read_log(ASSETS / "logs" / "4rank-rank2-first.log")
    assert report.launcher is not None and report.launcher.ranks == (2,) and not report.launcher.only
    assert launcher_advice(report) == ()


@pytest.mark.parametrize("case", ["stanford-alpaca-183", "qwen-vl-series-finetune-79"])
def test_sigkill_summaries_keep_their_record_and_get_no_advice(case):
    path = EVAL_PUBLIC / f"{case}.json"
    if not path.exists():
        pytest.skip(f"public eval case {case} not available")
    report = read_log(json.loads(path.read_text())["log"])
    assert report.root.kind == "killed"
    assert report.launcher.signal == "SIGKILL" and not report.launcher.only
    assert launcher_advice(report) == ()


def test_error_file_is_named_when_the_worker_wrote_one():
    # hand-written: the pytorch-pr-65041 table without its message lines
    lines = (LAUNCHER / "pytorch-pr-65041.log").read_text().splitlines()[:9]
    report = read_log("\n".join(lines))
    assert report.launcher.only
    assert "/tmp/torchelastic_aeyvjbpe/none_8zuih7tj/attempt_0/0/error.json" in " ".join(launcher_advice(report))


def test_every_rendering_shows_the_advice_when_nothing_matches():
    report = read_log(LAUNCHER / "unsloth-fork-4.log")
    result = _no_match(report)
    plain = text.plain(text.render(result))
    assert plain.index("No confident match") < plain.index("Only the launcher's summary")
    assert "192-222-55-138" in plain and "--redirects 3" in plain
    data = json_render.render(result)
    assert data["query"]["launcher"] == {"name": "torchrun", "ranks": [0], "hosts": ["192-222-55-138"], "exitcode": 1,
                                         "signal": None, "error_files": [], "only_summary": True}
    assert any("own output" in a for a in data["advice"])
    assert "Only the launcher's summary" in markdown.render(result)
    blocks = json.dumps(slack.render(result)["blocks"])
    assert "Only the launcher" in blocks and "192-222-55-138" in blocks


def test_renderings_of_an_ordinary_log_have_no_advice():
    result = _no_match(read_log(ASSETS / "logs" / "chained-traceback.log"))
    data = json_render.render(result)
    assert data["advice"] == [] and data["query"]["launcher"] is None
    assert "launcher" not in text.plain(text.render(result)).lower()
    assert "launcher" not in markdown.render(result).lower()
