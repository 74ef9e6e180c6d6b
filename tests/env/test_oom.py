"""GPU memory figures read from torch's out-of-memory message (both layouts torch has printed)."""

from __future__ import annotations

import pytest

from tracefix.env import oom
from tracefix.env.environment import build_environment
from tracefix.logs.report import read_log

NEW = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1002.00 MiB. GPU 0 has a total capacity of "
       "23.65 GiB of which 311.06 MiB is free. Including non-PyTorch memory, this process has 23.33 GiB memory in use.")
OLD = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 5.80 GiB total capacity; 4.36 GiB "
       "already allocated; 6.69 MiB free; 4.63 GiB reserved in total by PyTorch)")
SPARE = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 214.00 MiB. GPU 1 has a total capacty "
         "of 22.00 GiB of which 20.28 GiB is free. Of the allocated memory 527.15 MiB is allocated by PyTorch")


@pytest.mark.parametrize("line, low, high", [(NEW, -0.7, -0.6), (OLD, -0.02, -0.01), (SPARE, 20.0, 20.1)])
def test_free_memory_beyond_the_request(line, low, high):
    assert low < oom.spare_gib(line) < high


# Parser edge cases written in torch's own layouts, not real pastes; the capped one carries the
# "<size> allowed; " part the caching allocator adds when a memory fraction is set.
@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA error: out of memory",
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity; 19.50 GiB "
    "already allocated; 58.90 GiB free; 20.00 GiB allowed; 19.60 GiB reserved in total by PyTorch)",
    "MPS backend out of memory (MPS allocated: 8.1 GB, other allocations: 1 GB, max allowed: 9.07 GB). "
    "Tried to allocate 256 MB on private pool.",
])
def test_messages_without_both_figures_or_with_a_user_cap_are_not_read(text):
    assert oom.spare_gib(text) is None


def test_the_environment_carries_the_figure_from_the_log():
    log = 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n' + SPARE + "\n"
    assert build_environment(report=read_log(log)).oom_spare_gib > 20
