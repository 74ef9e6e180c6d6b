"""Matching behaviour a user notices: the right record first, reasons, demotion, honest misses."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ASSETS, EVAL_PUBLIC, KB_IDS, ROOT, SEEDS
from tracefix.env.environment import build_environment
from tracefix.logs.report import read_log

# `<id>.log` and `<id>@<case>.log`: every example log of a record. Those with a `.json` naming a thread's
# URL are real pastes; the early `<id>.log` files without one have no recorded source (some were trimmed or
# written by hand) and stay as regression cases.
KB_LOGS = sorted((ASSETS / "kb-logs").glob("*.log"))


def match(matcher, log: str, **env):
    report = read_log(log)
    return matcher.match(report, build_environment(report=report, **env), top=3)


def record_of(log_path) -> str:
    return log_path.stem.split("@")[0]


WITHOUT_THREAD = {line.strip() for line in (ASSETS / "kb-logs" / "_without-thread.txt").read_text().splitlines()
                  if line.strip() and not line.startswith("#")}


def has_thread_log(record_id: str) -> bool:
    sources = [json.loads(p.with_suffix(".json").read_text()) for p in KB_LOGS
               if record_of(p) == record_id and p.with_suffix(".json").exists()]
    return any(s.get("url", "").startswith("https://") for s in sources)


@pytest.mark.parametrize("record_id", KB_IDS)
def test_every_record_has_a_real_example_log_with_its_thread(record_id):
    if record_id in WITHOUT_THREAD:
        assert not has_thread_log(record_id), f"{record_id} now has a thread's log: remove it from _without-thread.txt"
    else:
        assert has_thread_log(record_id), f"record {record_id} has no example log with its thread's URL in tests/assets/kb-logs"


def test_the_list_of_records_without_a_thread_names_only_shipped_records():
    assert WITHOUT_THREAD <= set(KB_IDS), WITHOUT_THREAD - set(KB_IDS)


@pytest.mark.parametrize("log_path", KB_LOGS, ids=lambda p: p.stem)
def test_every_record_matches_its_example_logs_first(matcher, log_path):
    record_id = record_of(log_path)
    assert record_id in KB_IDS, f"{log_path.name} names no shipped record"
    result = match(matcher, log_path.read_text())
    assert result.matches and result.matches[0].id == record_id, [(m.id, m.score) for m in result.matches]
    top = result.matches[0]
    if matcher.records[record_id].other_causes:
        # Its message has other causes: confident only on its own signs, else it says why not.
        assert top.confident or any("several causes" in why for why in top.why), top.why
    else:
        assert top.confident


CPU_BACKEND = "RuntimeError: No backend type associated with device type cpu"


@pytest.mark.parametrize("frames, expected", [
    ('File "/opt/conda/lib/python3.10/site-packages/sat/training/deepspeed_training.py", line 118, in training_main', "sat-broadcast-cpu-backend"),
    ('File "/usr/lib/python3/dist-packages/lightning/pytorch/tuner/lr_finder.py", line 278, in lr_find', "lightning-lr-find-ddp-cpu-backend"),
    ('File "/root/.local/lib/python3.11/site-packages/unsloth/models/llama.py", line 1630, in from_pretrained', "unsloth-multi-gpu-cpu-backend"),
])
def test_frames_separate_records_that_share_a_message(matcher, frames, expected):
    log = f"Traceback (most recent call last):\n  {frames}\n    x = f()\n{CPU_BACKEND}\n"
    result = match(matcher, log, gpu_count=2)
    assert result.matches[0].id == expected
    assert any("passes through" in why for why in result.matches[0].why)


BF16_CHECK = ('  File "/venv/lib/python3.11/site-packages/transformers/training_args.py", line 1692, in __post_init__\n'
              "    raise ValueError(error_message)\n")


@pytest.mark.parametrize("message, expected", [
    # transformers >= 4.52 adds the second sentence only when CUDA is available
    ("ValueError: Your setup doesn't support bf16/gpu.", "bf16-requested-without-cuda-device"),
    ("ValueError: Your setup doesn't support bf16/gpu. You need Ampere+ GPU with cuda>=11.0", "bf16-unsupported-gpu"),
    ("ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",
     "bf16-unsupported-gpu"),
])
def test_a_message_that_ends_its_line_is_told_from_its_longer_form(matcher, message, expected):
    result = match(matcher, f"Traceback (most recent call last):\n{BF16_CHECK}{message}\n\nHow do I fix this?\n")
    assert result.matches[0].id == expected and result.matches[0].confident, [(m.id, m.score) for m in result.matches]
    other = ({"bf16-requested-without-cuda-device", "bf16-unsupported-gpu"} - {expected}).pop()
    assert not any(m.id == other and m.confident for m in result.matches)


@pytest.mark.parametrize("line, expected", [
    # copied from a rendered GitHub page: the message's Markdown backticks are gone
    ("ValueError: .to is not supported for 4-bit or 8-bit bitsandbytes models. Please use the model as it is",
     "transformers-bnb-4bit-to-not-supported"),
    # typed through an input method that curls the apostrophe
    (("NVIDIA-SMI has failed because it couldn\u2018t communicate with the NVIDIA driver. Make sure that the latest "
      "NVIDIA driver is installed and running."), "nvidia-smi-driver-not-loaded"),
])
def test_backticks_and_curly_quotes_do_not_hide_a_message(matcher, line, expected):
    result = match(matcher, f"{line}\n")
    assert result.matches[0].id == expected and result.matches[0].confident, [(m.id, m.score) for m in result.matches]


# A real paste (IgorAherne/trellis-stable-projectorz#15): xFormers' harmless Triton warning, then the failure.
WARNING_THEN_FAILURE = """\
**"cuda:0"   : "NVIDIA GeForce RTX 2080" (8 GiB, sm_75, mempool enabled)**
**used precision: 'half'.  Loading...**

Current problems:
**A matching Triton is not available, some optimizations will not be enabled.
Error caught was: No module named 'triton'**

**torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1649.76 GiB. GPU 0 has a total capacty of 8.00 GiB \
of which 5.23 GiB is free. Of the allocated memory 1.53 GiB is allocated by PyTorch, and 115.13 MiB is reserved by \
PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid \
fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF**
"""


def test_a_warning_explains_a_log_only_when_nothing_else_failed(matcher):
    alone = match(matcher, (ASSETS / "kb-logs" / "xformers-triton-unavailable-warning.log").read_text())
    assert alone.matches[0].id == "xformers-triton-unavailable-warning" and alone.matches[0].confident
    beside = match(matcher, WARNING_THEN_FAILURE)
    warning = next(m for m in beside.matches if m.id == "xformers-triton-unavailable-warning")
    assert not warning.confident
    assert any("only a warning" in why for why in warning.why)
    assert beside.matches[0].id != warning.id


# A real paste (InternRobotics/PointLLM#47): the message alone, no GPU named. On a Blackwell card an
# older flash-attn build prints the same words, so only the GPU tells the record's cause.
def test_a_message_with_other_causes_needs_its_own_signs(matcher):
    log = (ASSETS / "kb-logs" / "flash-attn-ampere-required@pointllm-47.log").read_text()
    bare = match(matcher, log).matches[0]
    assert bare.id == "flash-attn-ampere-required" and not bare.confident
    assert any("several causes" in why for why in bare.why), bare.why
    on_v100 = match(matcher, log, smi=(ASSETS / "smi" / "query-2xV100.txt").read_text()).matches[0]
    assert on_v100.id == "flash-attn-ampere-required" and on_v100.confident, on_v100.why
    named = match(matcher, log + "\nThis is on a Tesla V100 32GB.\n").matches[0]
    assert named.id == "flash-attn-ampere-required" and named.confident, named.why


def test_failed_version_check_demotes_and_says_so(matcher):
    log = (ASSETS / "kb-logs" / "deepspeed-zero3-offload-device-mismatch.log").read_text()
    report = read_log(log)
    result = matcher.match(report, build_environment(freeze="deepspeed==0.14.0\ntorch==2.3.1\n", report=report))
    record = next(m for m in result.matches if m.id == "deepspeed-zero3-offload-device-mismatch")
    assert record.verdict == "not-affected" and not record.confident
    assert any(c.result == "fails" and c.requirement.startswith("deepspeed") for c in record.checks)
    assert any("demoted" in why for why in record.why)


def test_affected_version_gives_a_concrete_command(matcher):
    log = (ASSETS / "kb-logs" / "deepspeed-zero3-offload-device-mismatch.log").read_text()
    report = read_log(log)
    result = matcher.match(report, build_environment(freeze="deepspeed==0.14.2\n", report=report))
    best = result.matches[0]
    assert best.id == "deepspeed-zero3-offload-device-mismatch" and best.verdict == "affected"
    # The release with the fix, or the last one known to work: either is a concrete command.
    assert any("deepspeed>=0.14.3" in c or "deepspeed==0.14.0" in c for c in best.commands), best.commands


def test_unrelated_traceback_gets_no_confident_match(matcher):
    log = ('Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    main()\n'
           '  File "train.py", line 8, in main\n    print(undefined_name)\nNameError: name \'undefined_name\' is not defined\n')
    result = match(matcher, log)
    assert not result.confident


def test_one_gpu_demotes_a_multi_gpu_record(matcher):
    log = (ASSETS / "kb-logs" / "unsloth-multi-gpu-cpu-backend.log").read_text()
    result = match(matcher, log, gpu_count=1)
    record = next(m for m in result.matches if m.id == "unsloth-multi-gpu-cpu-backend")
    assert not record.confident
    assert any(c.requirement == "gpus>=2" and c.result == "fails" for c in record.checks)


SEED_OF = {"sat-broadcast-cpu-backend": "000", "lightning-lr-find-ddp-cpu-backend": "001",
           "cogvlm-multi-gpu-oom-killed": "002", "deepspeed-zero3-offload-device-mismatch": "003",
           "unsloth-multi-gpu-cpu-backend": "004"}


def _seed_cases():
    for path in sorted(EVAL_PUBLIC.glob("*.json")):
        case = json.loads(path.read_text())
        seed = (case.get("seed") or "")[:3] or next((SEED_OF[e] for e in case["expected"] if e in SEED_OF), None)
        if seed:
            yield pytest.param(case, seed, id=case["case"])


@pytest.mark.parametrize("case, seed", list(_seed_cases()))
def test_ingested_seeds_alone_match_their_cases(cli, tmp_path, case, seed):
    db = tmp_path / "seeds.db"
    assert cli("kb", "ingest", "--db", str(db), str(SEEDS)).returncode == 0
    log = tmp_path / "case.log"
    log.write_text(case["log"])
    args = ["--db", str(db), "--json", str(log)]
    if case.get("gpu_count"):
        args += ["--gpus", str(case["gpu_count"])]
    out = json.loads(cli(*args).stdout)
    first, *others = out["matches"]
    assert first["source"].rsplit("/", 1)[-1].startswith(seed), [m["id"] for m in out["matches"]]
    assert first["confident"], first["why"]
    assert not any(m["confident"] for m in others), [(m["id"], m["why"]) for m in others]


def test_an_oom_with_memory_to_spare_is_not_answered_as_memory_used_up(matcher):
    # Real thread (data/eval/tune/chatglm3-base-tuning-10): 214 MiB asked for, 20.28 GiB free; the
    # reporter's cause was their dataset, not the card's size.
    case = json.loads((ROOT / "data" / "eval" / "tune" / "chatglm3-base-tuning-10.json").read_text())
    record = next(m for m in match(matcher, case["log"]).matches if m.id == "cuda-oom")
    assert not record.confident and record.verdict == "not-affected"
    assert any(c.requirement == "oom_spare_gib<1" and c.result == "fails" for c in record.checks)


def test_an_oom_that_used_up_the_memory_is_still_answered(matcher):
    result = match(matcher, (ASSETS / "kb-logs" / "cuda-oom.log").read_text())
    assert result.confident and result.matches[0].id == "cuda-oom"
    assert any(c.requirement == "oom_spare_gib<1" and c.result == "holds" for c in result.matches[0].checks)
