"""read_log on the real logs of the public evaluation set (read in place, never copied)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EVAL_PUBLIC
from tracefix.logs.report import read_log


def _case(name: str) -> dict:
    path = EVAL_PUBLIC / f"{name}.json"
    if not path.exists():
        pytest.skip(f"public eval case {name} not available")
    return json.loads(path.read_text())


# case, root kind, root exception, text in the root message, root rank, packages that must be seen
CASES = [
    ("huatuogpt-o1-9", "python", "RuntimeError", "Expected all tensors to be on the same device", 0, ("deepspeed",)),
    ("terratorch-pr-1004", "python", "RuntimeError", "No backend type associated with device type cpu", 2, ("lightning", "torch")),
    ("sat-173", "python", "RuntimeError", "No backend type associated with device type cpu", None, ("swissarmytransformer", "torch")),
    ("autopoison-6", "python", "ImportError", "cpu_adam.so: cannot open shared object file", None, ("deepspeed",)),
    ("fastfcn-37", "python", "AssertionError", "The NVIDIA driver on your system is too old", None, ("torch",)),
    ("openadmet-models-437", "python", "_pickle.UnpicklingError", "Weights only load failed", None, ("torch",)),
    ("horovod-3929", "nccl", None, "Duplicate GPU detected", 2, ()),
    ("llamafactory-7396", "nccl", None, "Watchdog caught collective operation timeout", 0, ()),
    ("stanford-alpaca-183", "killed", None, "exitcode: -9", None, ()),
    ("qwen-vl-series-finetune-79", "killed", None, "return code = -9", None, ()),
    ("residualattention-2", "bus-error", None, "insufficient shared memory", None, ("torch",)),
    ("sglang-851", "import", None, "undefined symbol", None, ("flash-attn",)),
    ("wekws-93", "c10d", None, "failed to listen on any local network address", None, ()),
    ("qwen-pr-833", "python", "ValueError", "device_map='auto'", None, ("accelerate", "transformers")),
    ("deep-thinking-5", "python", "RuntimeError", "Missing key(s) in state_dict", None, ()),
    ("alpaca-lora-540", "python", "RuntimeError", "CUDA Setup failed despite GPU being available", None, ()),
    ("minimax-01-42", "python", "torch.distributed.DistBackendError", "unhandled system error", None, ()),
    ("mgm-91", "python", "deepspeed.ops.op_builder.builder.CUDAMismatchException", "does not match the version torch", None, ()),
    ("neg-mmsegmentation-809", "python", "RuntimeError", "Default process group has not been initialized", None, ()),
    ("eaglew-kb-8", "python", "AssertionError", "Torch not compiled with CUDA enabled", None, ("torch",)),
]


@pytest.mark.parametrize("name, kind, exception, text, rank, packages", CASES, ids=[c[0] for c in CASES])
def test_public_logs(name, kind, exception, text, rank, packages):
    report = read_log(_case(name)["log"])
    assert report.root is not None
    assert (report.root.kind, report.root.exception) == (kind, exception)
    assert text in report.root.message
    assert report.root_rank == rank
    assert set(packages) <= set(report.packages)


def test_autopoison_destructor_noise_is_not_the_root():
    report = read_log(_case("autopoison-6")["log"])
    ignored = [f for f in report.failures if f.exception == "AttributeError"]
    assert ignored and ignored[0].noise and "ignored" in ignored[0].noise


def test_qwen_duplicate_traceback_is_one_failure_and_sigterm_is_noise():
    report = read_log(_case("qwen-pr-833")["log"])
    assert [f.exception for f in report.failures] == ["ValueError"]
    assert report.root.frames[-1].module == "accelerate.accelerator"


def test_world_size_from_launcher_flags():
    assert read_log(_case("huatuogpt-o1-9")["log"]).world_size == 8       # accelerate --num_processes 8
    assert read_log(_case("llama-946")["log"]).world_size == 8            # torchrun --nproc_per_node 8
    assert read_log(_case("pick-pytorch-14")["log"]).world_size == 4      # --nproc_per_node=4
    # a world size named inside an error message is not the job's
    assert read_log(_case("qwen-pr-833")["log"]).world_size is None


def test_logs_without_a_recognisable_error_keep_their_text():
    report = read_log(_case("lightning-19611")["log"])
    assert report.root is None and "Tensor must be CUDA and dense" in report.excerpt


def test_every_public_log_reads():
    for path in sorted(EVAL_PUBLIC.glob("*.json")):
        case = json.loads(path.read_text())
        report = read_log(case["log"])
        assert report.lines >= 1
        assert len(report.excerpt) <= 64 * 1024
