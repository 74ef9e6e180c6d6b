"""No input, however malformed, makes the log parsers raise."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracefix.logs.report import read_log

# Pieces of real logs, so generated inputs reach deep into the parsers rather than staying noise.
FRAGMENTS = [
    "Traceback (most recent call last):", '  File "/x/site-packages/torch/a.py", line 3, in f', '  File "', "line ",
    "RuntimeError: ", "RuntimeError", "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:", "[rank3]:", "[default0]:", "0: ",
    "[1,2]<stdout>:", "\x1b[31m", "\x1b[", "\r", "\r\n", "\n", " 50%|#####     | 5/10 [00:01<00:01, 3.1it/s]",
    "NCCL WARN ", "x:1:2 [0] init.cc:1 NCCL WARN boom", "Watchdog caught collective operation timeout", "frame #0: ",
    "terminate called after throwing an instance of 'c10::Error'", "  what():  ", "Killed", "Segmentation fault",
    "FAILED: ", "error: ", "Root Cause (first observed failure):", "  rank      : ", "  exitcode  : -9 (pid: 1)",
    "failed (exitcode: -9) local_rank: 0 (pid: 1)", "exits with return code = -9", "--nproc_per_node=", "torch==2.1.0",
    "| NVIDIA-SMI 535.1  Driver Version: 535.1  CUDA Version: 12.2 |", "PyTorch version: ", "Exception ignored in: ",
    "\x00", "\ufffd", "ü", "\t", "`", "^^^^", "=" * 80, "a" * 9000,
    # rich boxes, stream and worker tags, torchrun table fields
    "╭──── Traceback (most recent call last) ────╮", "│ ", " │", "╰────╯", "│ ❱ 12 │   x()", ":12 in f", "│ /a/b.p │",
    "stderr: ", "[stderr] ", "(RayTrainWorker pid=1) ", "  error_file: ", "  host      : h", "(local_rank: 1)",
]
piece = st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40), st.integers(-20, 99999).map(str))
log_text = st.lists(piece, max_size=60).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log_text)
def test_read_log_never_raises_on_text(text):
    report = read_log(text)
    assert report.lines >= 0 and len(report.excerpt) <= 64 * 1024
    if report.root is not None:
        assert report.failures[0] is report.root


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000))
def test_read_log_never_raises_on_bytes(data):
    read_log(data)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("\n".join), st.sampled_from(["utf-8", "utf-16", "latin-1"]))
def test_read_log_never_raises_on_other_encodings(text, encoding):
    read_log(text.encode(encoding, "replace"))
