"""collect_env, transformers env, accelerate env and ds_report outputs."""

from __future__ import annotations

from tests.conftest import ASSETS
from tracefix.env import collect_env
from tracefix.logs.report import read_log

TRANSFORMERS_ENV = """Copy-and-paste the text below in your GitHub issue and FILL OUT the two last points.

- `transformers` version: 4.36.2
- Platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.35
- Python version: 3.10.12
- Huggingface_hub version: 0.20.1
- Safetensors version: 0.4.1
- Accelerate version: 0.25.0
- PyTorch version (GPU?): 2.1.2+cu121 (True)
- Tensorflow version (GPU?): not installed (NA)
- Using GPU in script?: yes
"""

DS_REPORT = """DeepSpeed general environment info:
torch install path ............... ['/usr/local/lib/python3.10/dist-packages/torch']
torch version .................... 2.1.0+cu118
deepspeed install path ........... ['/usr/local/lib/python3.10/dist-packages/deepspeed']
deepspeed info ................... 0.12.6, unknown, unknown
torch cuda version ............... 11.8
nvcc version ..................... 12.1
"""


def test_collect_env_block_inside_a_log():
    report = read_log(ASSETS / "logs" / "collect-env-after-error.log")
    env = collect_env.parse(report.collect_env_text)
    assert dict(env.packages) == {"torch": "2.2.0+cu121", "numpy": "1.26.3", "triton": "2.2.0"}
    assert env.torch_cuda == "12.1" and env.driver_version == "470.223.02"
    assert env.gpus == ("Tesla K80", "Tesla K80") and env.gpu_count == 2   # one entry per GPU listed


def test_transformers_env():
    env = collect_env.parse(TRANSFORMERS_ENV)
    assert dict(env.packages) == {"transformers": "4.36.2", "huggingface-hub": "0.20.1", "safetensors": "0.4.1",
                                  "accelerate": "0.25.0", "torch": "2.1.2+cu121"}
    assert env.formats == ("hf-env",)


def test_ds_report():
    env = collect_env.parse(DS_REPORT)
    assert dict(env.packages) == {"torch": "2.1.0+cu118", "deepspeed": "0.12.6"}
    assert env.torch_cuda == "11.8"


def test_cpu_build_and_unknowns():
    env = collect_env.parse("PyTorch version: 2.1.0\nCUDA used to build PyTorch: None\nNvidia driver version: Could not collect")
    assert env.torch_cuda == "cpu"
    assert collect_env.parse("hello: world").packages == ()
