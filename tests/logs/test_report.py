"""read_log on realistic logs: the root a user would name, its rank, frames and packages."""

from __future__ import annotations

import io

import pytest

from tests.conftest import ASSETS
from tracefix.logs.report import read_log

LOGS = ASSETS / "logs"

# asset, root kind, root exception, start of the root message, root rank, world size, packages that must be seen
CASES = [
    ("4rank-rank2-first.log", "python", "RuntimeError", "The size of tensor a (4096) must match", 2, 4, ("deepspeed", "transformers")),
    ("nccl-watchdog-8rank.log", "nccl", None, "[Rank 5] Watchdog caught collective operation timeout", 5, 8, ()),
    ("chained-traceback.log", "python", "requests.exceptions.HTTPError", "401 Client Error: Unauthorized", None, None, ("huggingface-hub", "transformers")),
    ("log-with-freeze-and-smi.log", "python", "ValueError", "Bfloat16 is only supported on GPUs", None, None, ("vllm",)),
    ("deepspeed-oom-killed.log", "killed", None, "exits with return code = -9 (SIGKILL)", 1, 4, ()),
    ("ansi-crlf-tqdm.log", "python", "torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB", None, None, ("torch",)),
    ("ninja-build-failure.log", "build", None, "thrust/complex.h: No such file or directory", None, None, ("torch", "deepspeed")),
    ("segfault-dataloader.log", "segfault", None, "Fatal Python error: Segmentation fault", None, None, ("opencv-python",)),
    ("collect-env-after-error.log", "python", "RuntimeError", "CUDA error: no kernel image is available", None, None, ()),
]


@pytest.mark.parametrize("name, kind, exception, message, rank, world, packages", CASES, ids=[c[0] for c in CASES])
def test_root_of_realistic_logs(name, kind, exception, message, rank, world, packages):
    report = read_log(LOGS / name)
    assert report.root is not None
    assert (report.root.kind, report.root.exception) == (kind, exception)
    assert report.root.message.startswith(message)
    assert report.root_rank == rank
    assert report.world_size == world
    assert set(packages) <= set(report.packages)
    assert report.failures[0] is report.root


def test_4rank_sigterm_victims_are_noise_and_root_frames_are_rank2s():
    report = read_log(LOGS / "4rank-rank2-first.log")
    frames = report.root.frames
    assert frames[-1].module == "deepspeed.runtime.zero.stage3"
    assert frames[-1].function == "reduce_partition_and_remove_grads"
    assert frames[-1].line == 1149 and frames[-1].package == "deepspeed"
    assert frames[0].file == "/workspace/train.py" and frames[0].package is None
    victims = [f for f in report.failures if f.noise and "SIGTERM" in f.noise]
    assert victims and set(victims[0].ranks) == {0, 3}
    assert report.terminated_ranks == (0, 3)
    # rank 3's later NCCL abort is kept, but is not the root
    assert any(f.exception == "torch.distributed.DistBackendError" and f.rank == 3 for f in report.failures)
    assert "[rank" not in report.excerpt and "RuntimeError: The size of tensor a" in report.excerpt


def test_launcher_root_rank_beats_log_order():
    """Rank 0's error is printed first, but torchrun says rank 2 failed first: rank 2's error is the root."""
    text = "\n".join([
        "[rank0]:RuntimeError: NCCL communicator was aborted on rank 0.",
        "[rank2]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 2 has a total capacity of 79.15 GiB",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2024-05-02_10:21:40",
        "  rank      : 2 (local_rank: 2)",
        "  exitcode  : 1 (pid: 81232)",
        "============================================================",
    ])
    report = read_log(text)
    assert report.root.exception == "torch.OutOfMemoryError"
    assert report.root_rank == 2


def test_watchdog_repeated_by_8_ranks_is_one_failure_with_cpp_frames_elsewhere():
    report = read_log(LOGS / "nccl-watchdog-8rank.log")
    watchdog = [f for f in report.failures if "Watchdog caught" in f.message and f.kind == "nccl"]
    # seven ranks time out waiting; rank 4, the one that hung, never reports
    assert len(watchdog) == 1 and set(watchdog[0].ranks) == set(range(8)) - {4}
    native = next(f for f in report.failures if f.exception == "c10::DistBackendError")
    assert native.frames[0].function.startswith("c10::Error::Error")
    assert native.frames[0].package == "torch"


def test_chained_traceback_keeps_every_link_in_order():
    report = read_log(LOGS / "chained-traceback.log")
    names = [f.exception for f in report.failures]
    assert names == ["requests.exceptions.HTTPError", "huggingface_hub.utils._errors.RepositoryNotFoundError", "OSError"]
    assert [f.chain for f in report.failures] == [None, "cause", "context"]
    assert report.failures[2].frames[0].file == "/workspace/finetune.py"


def test_embedded_freeze_and_smi_blocks_are_found():
    report = read_log(LOGS / "log-with-freeze-and-smi.log")
    assert "torch==2.1.2+cu121" in report.freeze_text and "$ pip freeze" not in report.freeze_text
    assert "NVIDIA-SMI 470.182.03" in report.smi_text and "Tesla V100-SXM2" in report.smi_text
    assert "torch==" not in report.excerpt or len(report.excerpt) < 64 * 1024


def test_ansi_crlf_and_progress_bars_are_cleaned():
    report = read_log((LOGS / "ansi-crlf-tqdm.log").read_bytes())
    assert "\x1b" not in report.excerpt and "\r" not in report.excerpt
    assert "it/s]" not in report.excerpt
    assert report.root.message.endswith("1.02 GiB is free.")
    assert report.root.signature.startswith("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate <N> GiB")


@pytest.mark.parametrize("wrap", [
    lambda p: p, lambda p: str(p.read_text()), lambda p: p.read_bytes(), lambda p: open(p, "rb"),
    lambda p: io.StringIO(p.read_text()), lambda p: bytearray(p.read_bytes()),
], ids=["path", "str", "bytes", "binary-stream", "text-stream", "bytearray"])
def test_every_source_type_gives_the_same_root(wrap):
    report = read_log(wrap(LOGS / "4rank-rank2-first.log"))
    assert (report.root.exception, report.root_rank, report.lines) == ("RuntimeError", 2, 75)


def test_utf16_log_from_powershell():
    text = (LOGS / "chained-traceback.log").read_text()
    report = read_log(text.encode("utf-16"))
    assert report.root.exception == "requests.exceptions.HTTPError"


def test_empty_and_quiet_logs_have_no_root():
    assert read_log("").root is None
    quiet = read_log("epoch 1 loss 0.3\nepoch 2 loss 0.2\n")
    assert quiet.root is None and "epoch 2 loss 0.2" in quiet.excerpt and quiet.lines == 2


def test_invalid_utf8_is_replaced_not_raised():
    report = read_log(b"\xfa\xfb garbage\nValueError: bad \xe9 value\n")
    assert report.root.exception == "ValueError"
    assert "\ufffd" in report.root.message


def test_very_long_lines_are_cut():
    line = "x" * 5_000_000
    report = read_log(f"{line}\nRuntimeError: boom {'y' * 100_000}\n")
    assert report.root.exception == "RuntimeError" and len(report.root.message) <= 1200


def test_big_log_focuses_on_failure_regions_with_correct_line_numbers():
    noise = "".join(f"[rank{i % 4}]:step {i} loss 0.{i % 97:02d} lr 1e-5\n" for i in range(120_000))
    failure = '[rank1]:Traceback (most recent call last):\n[rank1]:  File "/x/site-packages/peft/tuners/lora.py", line 9, in f\n[rank1]:KeyError: \'lora_A\'\n'
    report = read_log(noise + failure + noise[:2000])
    assert report.lines == 120_000 + 3 + noise[:2000].count("\n") + 1   # the last line has no newline
    assert report.root.exception == "KeyError" and report.root.line_no == 120_003
    assert report.root.message == "'lora_A'"
    assert report.root.rank == 1 and report.packages == ("peft",) and report.world_size == 4
    assert "KeyError: 'lora_A'" in report.excerpt and len(report.excerpt) < 64 * 1024


def test_one_megabyte_log_finds_the_root_after_the_noise():
    """A log just under the size where whole-log reading stops: the failure at its end is found
    with the line numbers of the input (how fast is measured in bench/, not here)."""
    block = (LOGS / "4rank-rank2-first.log").read_text()
    noise = "".join(f"[rank{i % 4}]:{{'loss': 0.{i:04d}, 'learning_rate': 1.9e-05, 'epoch': {i / 9e4:.4f}}}\n" for i in range(15000))
    text = (noise + block).encode()
    assert 2**20 * 0.9 < len(text) < 2**20
    report = read_log(text)
    assert (report.root.exception, report.root_rank) == ("RuntimeError", 2)
    assert report.root.line_no == 15000 + 28 and report.lines == 15000 + 75
    assert report.terminated_ranks == (0, 3) and report.world_size == 4
    assert "RuntimeError: The size of tensor a (4096)" in report.excerpt
