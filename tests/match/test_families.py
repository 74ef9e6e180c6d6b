"""Generic family records: one message, many causes. Real logs whose message a specific record
shares, but whose situation is another, get the generic record, with the specific ones named."""

from __future__ import annotations

import pytest

from tests.conftest import ASSETS
from tracefix.env.environment import build_environment
from tracefix.logs.report import read_log
from tracefix.render.json import render

FAMILIES = ASSETS / "families"


def answer(matcher, log: str, **env):
    report = read_log(log)
    return matcher.match(report, build_environment(report=report, **env), top=5)


@pytest.mark.parametrize("log, generic, specific", [
    ("metric-sync-tensors-cuda-dense.log", "dist-cpu-tensor-nccl-backend", "lightning-lr-find-ddp-cpu-backend"),
    ("changed-architecture-missing-keys.log", "state-dict-key-mismatch", "ddp-state-dict-module-prefix"),
    ("no-peft-no-grad-fn.log", "autograd-no-grad-fn", "peft-grad-checkpointing-no-grad"),
])
def test_a_shared_message_without_the_specific_situation_gets_the_generic_record(matcher, log, generic, specific):
    result = answer(matcher, (FAMILIES / log).read_text(), gpu_count=2)
    first = result.matches[0]
    assert (first.id, first.confident) == (generic, True), [(m.id, m.confident, m.why) for m in result.matches]
    assert not any(m.confident for m in result.matches if m.id == specific)
    named = {s.id: s.signs for s in first.specific}
    assert specific in named and named[specific], "the generic answer names what would point to the specific record"


def test_the_specific_situation_wins_over_the_generic_record(matcher):
    log = (ASSETS / "kb-logs" / "lightning-lr-find-ddp-cpu-backend.log").read_text()
    result = answer(matcher, log, gpu_count=2)
    assert result.matches[0].id == "lightning-lr-find-ddp-cpu-backend" and result.matches[0].confident
    generic = next(m for m in result.matches if m.id == "dist-cpu-tensor-nccl-backend")
    assert not generic.confident


def test_json_lists_the_specific_records_of_a_generic_answer(matcher):
    result = answer(matcher, (FAMILIES / "no-peft-no-grad-fn.log").read_text())
    first = render(result)["matches"][0]
    assert first["id"] == "autograd-no-grad-fn"
    assert {"id": "peft-grad-checkpointing-no-grad"} .items() <= first["specific"][0].items()
    assert first["specific"][0]["look_for"]
