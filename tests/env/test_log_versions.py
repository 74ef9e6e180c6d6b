"""Versions a log prints about itself (issue #15): used only when no report states the package."""

from __future__ import annotations

import pytest

from tracefix.env import log_versions
from tracefix.env.environment import build_environment
from tracefix.logs.report import read_log

TRACE = 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\nRuntimeError: boom\n'


@pytest.mark.parametrize("line, found", [
    ("[INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.12.3, git-hash=unknown, git-branch=unknown",
     ("deepspeed", "0.12.3")),
    ('  File "/opt/conda/lib/python3.10/site-packages/deepspeed-0.12.3-py3.10.egg/deepspeed/runtime/engine.py", line 1',
     ("deepspeed", "0.12.3")),
    ("torch 2.1.0+cu118", ("torch", "2.1.0+cu118")),
    ("peft 0.4.0 requires transformers>=4.33, but you have transformers 4.31.0 which is incompatible.",
     ("transformers", "4.31.0")),
])
def test_versions_printed_in_a_log(line, found):
    assert found in log_versions.parse(line).packages


@pytest.mark.parametrize("line", ["requires torch>=2.1.0", "pip install torch==2.1.0", "torch 2", "please upgrade torch 2.1.0"])
def test_asked_for_versions_are_not_found_ones(line):
    assert log_versions.parse(line).packages == ()


def test_pip_show_output_pasted_under_the_error_gives_the_version():
    # The shape of `pip show` output as pasted under an error (huggingface/transformers#2082).
    log = ("ImportError: cannot import name 'WarmupLinearSchedule'\n$ pip show transformers\nName: transformers\n"
           "Version: 2.2.1\nSummary: State-of-the-art Natural Language Processing\nRequires: numpy, requests\n")
    env = build_environment(report=read_log(log))
    assert env.packages["transformers"] == "2.2.1" and env.package_sources["transformers"] == "log"


def test_a_version_line_without_a_name_line_above_is_not_read():
    assert log_versions.parse("Name: transformers\nSummary: x\nVersion: 2.2.1\n").packages == ()


def test_log_versions_fill_gaps_only_and_say_so():
    log = "DeepSpeed info: version=0.12.3, git-hash=unknown\ntorch 2.0.1\n" + TRACE
    env = build_environment(freeze="torch==2.1.0+cu118\nnumpy==1.26.4\n", report=read_log(log))
    assert env.packages["torch"] == "2.1.0+cu118" and env.package_sources["torch"] == "pip freeze"
    assert env.packages["deepspeed"] == "0.12.3" and env.package_sources["deepspeed"] == "log"
    assert any(s.startswith("versions printed in the log (1 packages)") for s in env.sources)
