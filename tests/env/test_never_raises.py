"""No input, however malformed, makes the environment parsers raise."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tracefix.env import blocks, collect_env, freeze, smi
from tracefix.env.environment import build_environment

FRAGMENTS = [
    "torch==2.1.0+cu118", "==", "@ file:///x/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl", "@ git+https://x",
    "-e ", "Package    Version", "-------  -------", "# packages in environment at /x:", "pytorch 2.0.1 py3.10_cuda11.8_0",
    "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |",
    "|   0  NVIDIA A100-SXM4-80GB   On  | 00000000:07:00.0 Off |", "0MiB / 81920MiB", "GPU 0: Tesla T4 (UUID: GPU-1)",
    "name, memory.total [MiB], driver_version", "NVIDIA H100, 81559 MiB, 550.90.07", "==============NVSMI LOG==============",
    "Product Name : Tesla V100", "FB Memory Usage", "Total : 16384 MiB", "Failed to initialize NVML: Driver/library version mismatch",
    "PyTorch version: 2.2.0+cu121", "CUDA used to build PyTorch: ", "[pip3] ", "- `Accelerate` version: ",
    "torch version .................... ", "GPU models and configuration:", "\n", "\r\n", ",", ":", "|", "9" * 30, "\x00",
]
text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=30)), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(text)
def test_parsers_never_raise(value):
    freeze.parse(value)
    smi.parse(value)
    collect_env.parse(value)
    blocks.find(value.splitlines())


@settings(max_examples=150, deadline=None)
@given(text, text, text, st.one_of(st.none(), st.integers(0, 4096)))
def test_build_environment_never_raises(f, s, c, count):
    env = build_environment(freeze=f, smi=s, collect_env=c, gpu_count=count)
    for name in env.packages:
        env.version(name)
    assert all(isinstance(v, str) for v in env.packages.values())
