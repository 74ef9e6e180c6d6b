"""check(record, env): each requirement holds, fails or is unknown; the verdict follows."""

from __future__ import annotations

import pytest

from tests.conftest import ASSETS
from tracefix.env.environment import Environment, Gpu, build_environment
from tracefix.kb.record import Record
from tracefix.match.constraints import check


def record(**fields) -> Record:
    base = dict(id="example-issue", title="Example issue", symptoms=("RuntimeError: something broke",), cause="c", fix="f")
    return Record(**{**base, **fields})


def env(packages=None, gpus=(), count=None, source=None, driver=None, cuda=None, torch_cuda=None) -> Environment:
    return Environment(packages=packages or {}, gpus=tuple(gpus), gpu_count=count, gpu_count_source=source,
                       driver_version=driver, cuda_version=cuda, torch_cuda=torch_cuda)


def results(verdict):
    return [(c.requirement, c.found, c.result) for c in verdict.checks]


def test_affected_range_holds_and_fixed_range_fails_when_already_fixed():
    rec = record(affected={"deepspeed": ">0.14.0"}, fixed={"deepspeed": ">=0.14.3"})
    v = check(rec, env({"deepspeed": "0.14.2"}))
    assert v.verdict == "affected"
    assert results(v) == [("deepspeed>0.14.0", "0.14.2", "holds"), ("deepspeed not in fixed >=0.14.3", "0.14.2", "holds")]
    v = check(rec, env({"deepspeed": "0.14.4"}))
    assert v.verdict == "not-affected" and [c.result for c in v.checks] == ["holds", "fails"]


def test_absent_package_is_unknown_not_a_failure():
    v = check(record(affected={"deepspeed": ">0.14.0"}), env({"torch": "2.1.0"}))
    assert v.verdict == "unknown" and results(v) == [("deepspeed>0.14.0", None, "unknown")]


def test_local_versions_and_prereleases_are_compared_with_packaging():
    rec = record(affected={"torch": ">=2.6"}, works={"torch": "<2.6"})
    assert check(rec, env({"torch": "2.6.0+cu124"})).verdict == "affected"
    assert check(rec, env({"torch": "2.6.0rc1"})).verdict == "unknown"   # 2.6.0rc1 < 2.6, but it may carry the change
    assert check(rec, env({"torch": "2.7.0.dev20250101"})).verdict == "affected"   # past the bound either way
    assert check(rec, env({"torch": "2.5.0rc2"})).verdict == "not-affected"
    assert check(rec, env({"torch": "2.5.1+cu121"})).verdict == "not-affected"
    assert check(record(affected={"torch": "==2.1.0"}), env({"torch": "2.1.0+cu118"})).verdict == "affected"


def test_name_spelling_does_not_matter():
    rec = record(affected={"PyTorch_Lightning": "==2.2.*"})
    assert check(rec, env({"pytorch-lightning": "2.2.1"})).verdict == "affected"


def test_numpy2_record_against_a_real_freeze_block():
    rec = record(affected={"numpy": ">=2"}, works={"numpy": "<2"})
    e = build_environment(freeze="numpy==2.0.0\ntorch==2.1.2\n")
    assert check(rec, e).verdict == "affected"


@pytest.mark.parametrize("condition, environment, result", [
    ("gpus>=2", env(count=4, source="nvidia-smi"), ("4 (nvidia-smi)", "holds")),
    ("gpus>=2", env(count=1, source="given"), ("1 (given)", "fails")),
    ("gpus>=2", env(), (None, "unknown")),
    ("compute_capability<8.0", env(gpus=[Gpu("Tesla T4", 15360, "7.5")]), ("7.5", "holds")),
    ("compute_capability<8.0", env(gpus=[Gpu("NVIDIA A100", 81920, "8.0")]), ("8.0", "fails")),
    ("compute_capability<8.0", env(gpus=[Gpu("A100", None, "8.0"), Gpu("T4", None, "7.5")]), ("8.0, 7.5", "holds")),
    ("compute_capability<8.0", env(gpus=[Gpu("Mystery", None, None)]), (None, "unknown")),
    ("driver<525.60", env(driver="470.182.03"), ("470.182.03", "holds")),
    ("driver<525.60", env(driver="535.104.05"), ("535.104.05", "fails")),
    ("cuda>=12.0", env(torch_cuda="12.1", cuda="12.2"), ("12.1 (torch build)", "holds")),
    ("cuda>=12.0", env(torch_cuda="cpu"), ("cpu (torch built without CUDA)", "fails")),
    ("cuda>=12.0", env(cuda="11.4"), ("11.4 (driver)", "fails")),
    ("cuda>=12.0", env(), (None, "unknown")),
])
def test_environment_conditions(condition, environment, result):
    v = check(record(environment=(condition,)), environment)
    assert [(c.found, c.result) for c in v.checks] == [result]
    assert v.verdict == {"holds": "affected", "fails": "not-affected", "unknown": "unknown"}[result[1]]


def test_record_without_requirements_is_unknown():
    assert check(record(), env({"torch": "2.1.0"})).verdict == "unknown"


def test_one_failing_check_outweighs_holding_ones():
    rec = record(affected={"torch": ">=2.0"}, environment=("gpus>=2",))
    v = check(rec, build_environment(freeze="torch==2.1.0", smi=(ASSETS / "smi" / "list-4xT4.txt").read_text()))
    assert v.verdict == "affected"
    v = check(rec, build_environment(freeze="torch==2.1.0", gpu_count=1))
    assert v.verdict == "not-affected" and [c.result for c in v.checks] == ["holds", "fails"]


LIGHTNING = dict(affected={"lightning": "<2.4.0", "pytorch-lightning": "<2.4.0"},
                 fixed={"lightning": ">=2.4.0", "pytorch-lightning": ">=2.4.0"})


@pytest.mark.parametrize("freeze", ["lightning==2.2.1", "pytorch-lightning==2.2.1", "pytorch_lightning==2.2.1"])
def test_either_distribution_of_a_project_decides_its_check(freeze):
    v = check(record(**LIGHTNING), build_environment(freeze=freeze))
    assert v.verdict == "affected"
    assert [(c.found, c.result) for c in v.checks] == [("2.2.1", "holds"), ("2.2.1", "holds")]


def test_the_check_says_which_distribution_it_was_made_on():
    v = check(record(**LIGHTNING), env({"pytorch-lightning": "2.2.1"}))
    assert results(v) == [("lightning<2.4.0 (as pytorch-lightning)", "2.2.1", "holds"),
                          ("lightning not in fixed >=2.4.0 (as pytorch-lightning)", "2.2.1", "holds")]


def test_a_project_none_of_whose_names_is_installed_is_one_unknown_check():
    v = check(record(**LIGHTNING), env({"torch": "2.2.0"}))
    assert v.verdict == "unknown"
    assert results(v) == [("lightning<2.4.0 (lightning / pytorch-lightning: neither installed)", None, "unknown"),
                          ("lightning not in fixed >=2.4.0 (lightning / pytorch-lightning: neither installed)", None, "unknown")]


def test_a_record_naming_one_distribution_also_checks_the_other():
    rec = record(affected={"pytorch-lightning": "==2.2.*"}, fixed={"pytorch-lightning": ">=2.4.0"})
    assert check(rec, env({"lightning": "2.2.1"})).verdict == "affected"
    assert check(rec, env({"lightning": "2.4.0"})).verdict == "not-affected"
    assert check(record(affected={"torch": ">=2.6"}), env({"pytorch": "2.6.0"})).verdict == "affected"


def test_build_suffixed_distributions_belong_to_their_project():
    rec = record(fixed={"bitsandbytes": ">=0.45.0"})
    v = check(rec, env({"bitsandbytes-cuda117": "0.26.0"}))
    assert results(v) == [("bitsandbytes not in fixed >=0.45.0 (as bitsandbytes-cuda117)", "0.26.0", "holds")]
    assert check(record(affected={"flash_attn": ">=2.0"}), env({"flash-attn": "2.5.8"})).verdict == "affected"


def test_with_both_distributions_installed_an_affected_one_is_enough():
    # The log may come from either; the fixed `lightning` does not rule out the old `pytorch-lightning`.
    v = check(record(**LIGHTNING), env({"lightning": "2.4.0", "pytorch-lightning": "2.2.1"}))
    assert v.verdict == "affected" and {c.found for c in v.checks} == {"2.2.1"}
    assert check(record(**LIGHTNING), env({"lightning": "2.4.0", "pytorch-lightning": "2.5.0"})).verdict == "not-affected"


def test_differing_ranges_per_name_use_the_installed_names_own_range():
    rec = record(affected={"lightning": "<2.4.0", "pytorch-lightning": "<2.3.0"})
    assert check(rec, env({"pytorch-lightning": "2.3.1"})).verdict == "not-affected"
    assert check(rec, env({"lightning": "2.3.1"})).verdict == "affected"
    assert check(rec, env()).checks[0].requirement.startswith("lightning<2.4.0 / pytorch-lightning<2.3.0")


def test_unknown_gpu_information_does_not_hide_a_fixed_release():
    rec = record(**LIGHTNING, environment=("gpus>=2",))
    v = check(rec, env({"lightning": "2.4.0"}))
    assert v.verdict == "not-affected" and [c.result for c in v.checks] == ["fails", "fails", "unknown"]
    # An affected release with the GPU count unknown is not claimed affected: a one-GPU job would not fail.
    assert check(rec, env({"lightning": "2.2.1"})).verdict == "unknown"


@pytest.mark.parametrize("named, installed", [
    ("tensorflow", "tensorflow-gpu"), ("opencv-python", "opencv-python-headless"), ("onnxruntime", "onnxruntime-gpu"),
    ("cupy", "cupy-cuda12x"), ("torch", "pytorch"),
])
def test_other_alias_groups(named, installed):
    v = check(record(affected={named: ">=1.0"}), env({installed: "2.0.0"}))
    assert v.verdict == "affected" and v.checks[0].requirement == f"{named}>=1.0 (as {installed})"
    assert check(record(affected={named: ">=1.0"}), env({"numpy": "2.0.0"})).checks[0].result == "unknown"
