"""One report, three ways in: pasted inside a log, given as --freeze/--smi to the real CLI, and sent
in the service's pip_freeze / nvidia_smi fields. All must read the same environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest

from tests.conftest import ASSETS, ROOT
from tests.service.conftest import copy_db, kb_template, start_server  # noqa: F401 (kb_template is a fixture)

REPORTS = ASSETS / "env-reports"
FREEZE = (REPORTS / "freeze" / "impress-4-pip-list.txt").read_text()
SMI = (REPORTS / "smi-table" / "nvidia-all-212-4070.txt").read_text()
TRACEBACK = ('Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    main()\n'
             "RuntimeError: CUDA error: out of memory\n")
FIELDS = ("packages", "gpus", "gpu_count", "driver_version", "cuda_version", "torch_cuda")


def _cli_env(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "tracefix", "env", "--json", *args], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=120)
    assert done.returncode == 0, done.stderr
    return {k: json.loads(done.stdout)[k] for k in FIELDS}


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    folder = tmp_path_factory.mktemp("same-env")
    (folder / "pasted.log").write_text(TRACEBACK + "\nMy environment:\n" + FREEZE + "\n\n" + SMI)
    (folder / "error.log").write_text(TRACEBACK)
    (folder / "freeze.txt").write_text(FREEZE)
    (folder / "smi.txt").write_text(SMI)
    return folder


def test_pasted_and_separate_inputs_give_the_same_environment_in_the_cli(paths):
    pasted = _cli_env(str(paths / "pasted.log"))
    separate = _cli_env(str(paths / "error.log"), "--freeze", str(paths / "freeze.txt"), "--smi", str(paths / "smi.txt"))
    assert pasted == separate
    assert pasted["packages"]["accelerate"] == "0.22.0" and pasted["gpu_count"] == 1
    assert (pasted["driver_version"], pasted["cuda_version"]) == ("550.40.07", "12.4")


@pytest.mark.slow
def test_the_service_fields_and_a_pasted_log_give_what_the_cli_reads(paths, kb_template, tmp_path):  # noqa: F811
    server = start_server(copy_db(kb_template, tmp_path / "db"), tmp_path / "server.log")
    try:
        fields = httpx.post(server.url + "/v1/match", json={"log": TRACEBACK, "pip_freeze": FREEZE, "nvidia_smi": SMI},
                            timeout=120).json()["environment"]
        pasted = httpx.post(server.url + "/v1/match", json={"log": (paths / "pasted.log").read_text()},
                            timeout=120).json()["environment"]
    finally:
        server.stop()
    cli = _cli_env(str(paths / "pasted.log"))
    assert {k: fields[k] for k in FIELDS} == {k: pasted[k] for k in FIELDS} == cli
