"""The bounded capture: an early traceback survives a flood of output, memory stays bounded."""

from __future__ import annotations

from tracefix.capture.buffer import MAX_REGION_BYTES, MAX_REGIONS, TAIL_BYTES, CaptureBuffer
from tracefix.logs.report import read_log

TRACEBACK = (b'[rank1]:Traceback (most recent call last):\n'
             b'[rank1]:  File "/workspace/train.py", line 12, in <module>\n'
             b'[rank1]:    loss.backward()\n'
             b'[rank1]:RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n')


def _noise(n_lines: int, start: int) -> bytes:
    return b"".join(b"[rank0]:step %d loss 0.25 lr 1e-05\n" % i for i in range(start, start + n_lines))


def test_small_output_is_kept_whole_in_order_across_streams():
    buf = CaptureBuffer()
    buf.feed("stdout", b"step 1\nste")
    buf.feed("stderr", b"warn 1\n")
    buf.feed("stdout", b"p 2\n")
    buf.feed("stderr", b"no newline at the end")
    buf.flush()
    assert buf.text() == b"step 1\nwarn 1\nstep 2\nno newline at the end\n"


def test_an_early_traceback_survives_64_mb_of_output_and_the_copy_stays_bounded():
    buf = CaptureBuffer()
    buf.feed("stdout", _noise(5000, 0))
    for piece in (TRACEBACK[:30], TRACEBACK[30:]):   # split mid-line, as a pipe delivers it
        buf.feed("stderr", piece)
    step = 5000
    while buf.total_bytes < 64 * 2**20:
        buf.feed("stdout", _noise(1500, step))
        step += 1500
    buf.flush()
    text = buf.text()
    assert TRACEBACK in text
    assert len(text) < TAIL_BYTES + MAX_REGIONS * MAX_REGION_BYTES
    assert text.endswith(b"step %d loss 0.25 lr 1e-05\n" % (step - 1))   # the tail is the newest output
    report = read_log(text)
    assert report.root.exception == "RuntimeError" and report.root_rank == 1


def test_a_line_without_newline_is_cut_not_grown_without_bound():
    buf = CaptureBuffer()
    for _ in range(200):
        buf.feed("stderr", b"\r 50%|#####     | 5/10" * 1000)   # a progress bar redrawn for ever
    buf.flush()
    assert len(buf.text()) <= TAIL_BYTES + 2 * 2**16
