"""No input, however malformed, makes the environment parsers raise."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tracefix.env import blocks, collect_env, freeze, log_versions, normalize, smi
from tracefix.env.environment import build_environment, environment_dict, from_text

FRAGMENTS = [
    "torch==2.1.0+cu118", "==", "@ file:///x/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl", "@ git+https://x",
    "-e ", "Package    Version", "-------  -------", "# packages in environment at /x:", "pytorch 2.0.1 py3.10_cuda11.8_0",
    "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |",
    "|   0  NVIDIA A100-SXM4-80GB   On  | 00000000:07:00.0 Off |", "0MiB / 81920MiB", "GPU 0: Tesla T4 (UUID: GPU-1)",
    "name, memory.total [MiB], driver_version", "NVIDIA H100, 81559 MiB, 550.90.07", "==============NVSMI LOG==============",
    "Product Name : Tesla V100", "FB Memory Usage", "Total : 16384 MiB", "Failed to initialize NVML: Driver/library version mismatch",
    "PyTorch version: 2.2.0+cu121", "CUDA used to build PyTorch: ", "[pip3] ", "- `Accelerate` version: ",
    "torch version .................... ", "GPU models and configuration:", "\n", "\r\n", ",", ":", "|", "9" * 30, "\x00",
    "> ", "：", "\u3000", "```", "- `Accelerate` version: 0.34.2", "- PyTorch version (GPU?): 2.3.0+cu121 (True)",
    "| NVIDIA-SMI 610.43.02   KMD Version: 610.43.02   CUDA UMD Version: 13.3 |", "Attached GPUs : 4",
    "  MIG 1g.10gb     Device  0: (UUID: MIG-1)", "index, temperature.gpu, name", "0, 55, NVIDIA A100, 40960 MiB",
    "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error", "NVML library version: 550.144",
    "(found version 11040)", "found version 99999999", "DeepSpeed info: version=", "-py3.10.egg/", ".dist-info",
    "but you have torch ", "WARNING: Ignoring invalid distribution -orch", "pytorch   2.0.1   pypi_0   pypi",
    "deepspeed wheel compiled w. ...... torch 0.0, cuda 0.0", "vLLM Version: 0.7.3", "GPU 0: ", "GPU 99: x",
]
text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=30)), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(text)
def test_parsers_never_raise(value):
    freeze.parse(value)
    smi.parse(value)
    collect_env.parse(value)
    blocks.find(value.splitlines())
    log_versions.parse(value)
    normalize.lines(value)


@settings(max_examples=150, deadline=None)
@given(text, text, text, st.one_of(st.none(), st.integers(0, 4096)))
def test_build_environment_never_raises(f, s, c, count):
    env = build_environment(freeze=f, smi=s, collect_env=c, gpu_count=count)
    for name in env.packages:
        env.version(name)
    assert all(isinstance(v, str) for v in env.packages.values())


@settings(max_examples=60, deadline=None)
@given(text)
def test_reading_any_text_as_a_report_never_raises(value):
    environment_dict(from_text(value))
