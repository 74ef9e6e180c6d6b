"""The line-level parsers, each with a realistic line and a near miss."""

from __future__ import annotations

import io

import pytest

from tracefix.logs import clean, launcher, native, python_tb
from tracefix.logs.clean import Line, Scanner, chunks


@pytest.mark.parametrize("raw, rank, text", [
    ("[rank3]: RuntimeError: boom", 3, "RuntimeError: boom"),
    ("[rank0]:[E321 02:07:08.408 ProcessGroupNCCL.cpp:607] x", 0, "[E321 02:07:08.408 ProcessGroupNCCL.cpp:607] x"),
    ("[default5]:Traceback (most recent call last):", 5, "Traceback (most recent call last):"),
    ("[1,3]<stderr>:NCCL WARN boom", 3, "NCCL WARN boom"),
    ("7: torch.cuda.OutOfMemoryError: CUDA out of memory.", 7, "torch.cuda.OutOfMemoryError: CUDA out of memory."),
    ("[80746] [rank4]:[E321 x", 4, "[E321 x"),
    ("worker-1: [rank9]: ValueError: x", 9, "ValueError: x"),
    ("0: [rank0]: KeyError: 'a'", 0, "KeyError: 'a'"),
    ("\x1b[31m[rank2]:\x1b[0m Killed", 2, "Killed"),
    ("  5%|5         | 5/100\r 10%|#         | 10/100\rTraceback (most recent call last):\r", None,
     "Traceback (most recent call last):"),
    ("[2024-01-01 10:00:00] step 1", None, "[2024-01-01 10:00:00] step 1"),   # near miss: a timestamp, not a rank
    ("12345678: not a rank", None, "12345678: not a rank"),
    ("stderr:   rank      : 1 (local_rank: 1)", None, "  rank      : 1 (local_rank: 1)"),   # accelerate test's relay
    ("[stderr] RuntimeError: boom", None, "RuntimeError: boom"),
    ("(RayTrainWorker pid=43515) [rank1]: AttributeError: x", 1, "AttributeError: x"),
    ("(pid=81511, ip=192.168.1.118) Exception: oops", None, "Exception: oops"),
    ("stderr output was empty", None, "stderr output was empty"),   # near miss: prose, not a tag
    ("(pid 12 exited) RuntimeError", None, "(pid 12 exited) RuntimeError"),
])
def test_clean_strips_prefixes_ansi_and_redraws(raw, rank, text):
    assert clean.clean(raw) == (rank, text)


def test_progress_bars_are_recognised():
    assert clean.is_progress(" 45%|████▌     | 45/100 [00:10<00:12,  4.50it/s]")
    assert not clean.is_progress("RuntimeError: 45% of 100 it/s failed")


def test_an_error_glued_to_a_progress_bar_is_kept_and_the_bar_dropped():
    rank, text = clean.clean(" 1%|\u258f | 24/1752 [01:08<1:22:56,  2.88s/it][rank5]: RuntimeError: NCCL timeout")
    assert (rank, text) == (5, "RuntimeError: NCCL timeout")
    assert clean.clean(" 45%|####5 | 45/100 [00:10<00:12,  4.50it/s]")[1].endswith("it/s]")  # a bar alone stays a bar
    # before the first step tqdm prints no rate yet (facebookresearch/nougat#115)
    first_step = "  0%|          | 0/1 [00:00<?, ?it/s]Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so"
    assert clean.clean(first_step)[1] == "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so"


def test_chunks_end_at_line_breaks_and_cut_endless_lines():
    pieces = list(chunks(io.BytesIO(b"a\nbb\nccc"), size=4))
    assert b"".join(pieces) == b"a\nbb\nccc" and all(p.endswith(b"\n") for p in pieces[:-1])
    endless = list(chunks(io.BytesIO(b"x" * 50), size=8))
    assert all(len(p) <= 9 for p in endless)


def test_focus_mode_windows_cross_chunk_boundaries():
    """A traceback split over two chunks still reaches the parsers whole, with its real line numbers."""
    lines = [f"step {i}" for i in range(3000)]
    lines[1499] = "Traceback (most recent call last):"
    lines[1500] = '  File "a.py", line 1, in <module>'
    lines += []
    data = ("\n".join(lines) + "\n").encode()
    cut = data.index(b"  File")
    scanner = Scanner()
    seen = list(scanner.lines([data[:cut], data[cut:]] + [b"pad\n" * 300000]))
    numbers = [ln.no for ln in seen]
    assert numbers == sorted(set(numbers))
    by_no = {ln.no: ln.text for ln in seen}
    assert by_no[1500] == "Traceback (most recent call last):" and by_no[1501].startswith("  File")
    assert 1475 in by_no and 1540 in by_no and 10 not in by_no
    assert scanner.lines_read == 3000 + 300000


def _feed(collector, text: str, rank=None):
    for no, line in enumerate(text.splitlines(), 1):
        collector.feed(Line(no, rank, line))
    return collector.finish()


def test_python_frames_modules_and_packages():
    found = _feed(python_tb.Collector(), 'Traceback (most recent call last):\n'
                  '  File "/venv/lib/python3.10/site-packages/deepspeed-0.9.0-py3.10.egg/deepspeed/runtime/engine.py", line 5, in step\n'
                  '    x()\n'
                  '  File "C:\\Anaconda3\\lib\\site-packages\\torch\\cuda\\__init__.py", line 210, in _lazy_init\n'
                  '  File "/usr/lib/python3.10/multiprocessing/queues.py", line 9, in get\n'
                  '  File "<frozen importlib._bootstrap>", line 228, in _call_with_frames_removed\n'
                  'RuntimeError: boom')
    frames = found[0].frames
    assert [(f.package, f.module) for f in frames] == [
        ("deepspeed", "deepspeed.runtime.engine"), ("torch", "torch.cuda"), (None, "multiprocessing.queues"),
        (None, "importlib._bootstrap")]


@pytest.mark.parametrize("line, expected", [
    ("actual error: RuntimeError: Error(s) in loading state_dict for DTNet:", ("RuntimeError", "Error(s) in loading state_dict for DTNet:")),
    ("(VllmWorkerProcess pid=221) ERROR 04-06 [x.py:238] torch.distributed.DistBackendError: NCCL error", ("torch.distributed.DistBackendError", "NCCL error")),
    ("`RuntimeError: No backend type associated with device type cpu`", ("RuntimeError", "No backend type associated with device type cpu")),
    ("KeyboardInterrupt", ("KeyboardInterrupt", "")),
    # Chinese prose before a pasted error ends in a full-width colon (Chaos-v/DOA-Estimation#3)
    ("运行modelTraining时报错如下：TypeError: default_collate: batch must contain tensors",
     ("TypeError", "default_collate: batch must contain tensors")),
    ("BackendCompilerFailed: backend='inductor' raised:", ("BackendCompilerFailed", "backend='inductor' raised:")),
    # a message that ends in its own quote keeps it; only the quote of the prose around it goes
    ("ImportError: cannot import name 'KTOTrainer' from 'trl'", ("ImportError", "cannot import name 'KTOTrainer' from 'trl'")),
    ('the log says "ModuleNotFoundError: No module named \'flash_attn\'"', ("ModuleNotFoundError", "No module named 'flash_attn'")),
    ('"RuntimeError: CUDA error: out of memory"', ("RuntimeError", "CUDA error: out of memory")),
])
def test_bare_exception_lines(line, expected):
    assert python_tb.exception_in(line, False) == expected


@pytest.mark.parametrize("line", [
    "/usr/lib/python3/site-packages/torch/cuda/__init__.py:283: UserWarning: found GPU0",  # a warning, not an error
    "ERROR: Unexpected bus error encountered in worker.",                                    # a log level
    "raise ValueError(msg)",                                                                 # source code
    "INFO: training started",
])
def test_bare_exception_near_misses(line):
    assert python_tb.exception_in(line, False) is None


def test_unindented_source_lines_are_not_exceptions():
    found = _feed(python_tb.Collector(), 'File "/x/site-packages/lightning/fabric/d.py", line 229, in _sync_ddp\n'
                  "torch.distributed.all_reduce(result, op=op, group=group, async_op=False)\n"
                  'File "/x/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper\n'
                  "return func(*args, **kwargs)\n"
                  "^^^^^^^^^^^^^^^^^^^^^\n"
                  "RuntimeError: No backend type associated with device type cpu")
    assert [(f.exception, len(f.frames)) for f in found] == [("RuntimeError", 2)]


def test_interleaved_ranks_keep_separate_tracebacks():
    collector = python_tb.Collector()
    lines = [(0, "Traceback (most recent call last):"), (1, "Traceback (most recent call last):"),
             (0, '  File "/x/site-packages/peft/a.py", line 1, in f'), (1, '  File "/x/site-packages/trl/b.py", line 2, in g'),
             (1, "ValueError: from rank 1"), (0, "KeyError: 'from rank 0'")]
    for no, (rank, text) in enumerate(lines, 1):
        collector.feed(Line(no, rank, text))
    found = {f.rank: f for f in collector.finish()}
    assert found[0].exception == "KeyError" and found[0].frames[0].package == "peft"
    assert found[1].exception == "ValueError" and found[1].frames[0].package == "trl"


@pytest.mark.parametrize("line, kind, message", [
    ("node1:2931:3012 [3] init.cc:497 NCCL WARN Duplicate GPU detected : rank 3 and rank 0 both on CUDA device 1000", "nccl",
     "Duplicate GPU detected : rank 3 and rank 0 both on CUDA device 1000"),
    ("[E socket.cpp:435] [c10d] The server socket has failed to listen on any local network address.", "c10d",
     "[c10d] The server socket has failed to listen on any local network address."),
    ("^^:     ^^CUDA error: invalid device ordinal", "cuda", "CUDA error: invalid device ordinal"),
    ("RuntimeError: cuda runtime error (101) : invalid device ordinal at Module.cpp:59", "cuda", "cuda runtime error (101) : invalid device ordinal at Module.cpp:59"),
    ("Killed", "killed", "Killed"),
    ("train.sh: line 3: 4123 Killed                  python train.py", "killed", "train.sh: line 3: 4123 Killed                  python train.py"),
    ("Segmentation fault (core dumped)", "segfault", "Segmentation fault (core dumped)"),
    ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", "bus-error",
     "bus error encountered in worker. This might be caused by insufficient shared memory (shm)."),
    ("csrc/adam/fused_adam.cu:12:10: fatal error: cuda_runtime.h: No such file or directory", "build", "cuda_runtime.h: No such file or directory"),
    ("ERROR: Failed building wheel for flash-attn", "build", "ERROR: Failed building wheel for flash-attn"),
    # The toolkit's reason is preferred to docker's wrapper around it (line from NVIDIA/nvidia-docker#1442).
    ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:370: starting container process "
     "caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: requirement "
     "error: unsatisfied condition: cuda>=11.0, please update your driver to a newer version, or use an earlier cuda "
     "container: unknown.", "container", "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.0, "
     "please update your driver to a newer version, or use an earlier cuda container: unknown."),
    ('docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].', "container",
     'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].'),
])
def test_native_detectors(line, kind, message):
    found = _feed(native.Collector(), line)
    assert [(f.kind, f.message) for f in found] == [(kind, message)]


@pytest.mark.parametrize("line", [
    "node1:2931:3012 [3] NCCL INFO Channel 00/02 :    0   1   2   3",
    "Killing subprocess 2211",
    "[W socket.cpp:401] [c10d] The server socket has failed to bind to [::]:29400",
    "Using CUDA device 0",
    "no errors found, 0 skilled workers",
    "nvidia-container-cli: initialized",
])
def test_native_near_misses(line):
    assert _feed(native.Collector(), line) == []


def test_terminate_what_and_cpp_frames_make_one_failure():
    found = _feed(native.Collector(), "terminate called after throwing an instance of 'c10::Error'\n"
                  "  what():  CUDA error: an illegal memory access was encountered\n"
                  "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):\n"
                  "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f in /opt/venv/lib/python3.10/site-packages/torch/lib/libc10.so)\n"
                  "frame #1: <unknown function> + 0x1b5e (0x7f in /lib/x86_64-linux-gnu/libc.so.6)\n")
    assert len(found) == 1
    f = found[0]
    assert (f.kind, f.exception, f.message) == ("native", "c10::Error", "CUDA error: an illegal memory access was encountered")
    assert [fr.package for fr in f.frames] == ["torch", None]


def test_launcher_table_root_and_victims():
    text = ("Failures:\n[1]:\n  time      : t\n  rank      : 1 (local_rank: 1)\n  exitcode  : -15 (pid: 11)\n"
            "  traceback : Signal 15 (SIGTERM) received by PID 11\n------\nRoot Cause (first observed failure):\n[0]:\n"
            "  time      : t\n  rank      : 6 (local_rank: 2)\n  exitcode  : -9 (pid: 12)\n"
            "  traceback : Signal 9 (SIGKILL) received by PID 12\n=======\n")
    summary = _feed(launcher.Collector(), text)
    assert (summary.root.rank, summary.root.signal) == (6, "SIGKILL")
    kinds = {(f.rank, f.kind, f.noise is None) for f in summary.failures()}
    assert kinds == {(1, "launcher", False), (6, "killed", True)}


def test_launcher_world_size_from_nodes_and_procs():
    assert _feed(launcher.Collector(), "torchrun --nnodes=2 --nproc_per_node=8 train.py").world_size == 16
    assert _feed(launcher.Collector(), "[launch.py:163:main] dist_world_size=4").world_size == 4
    assert _feed(launcher.Collector(), "nothing here").world_size is None
