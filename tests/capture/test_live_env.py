"""Which interpreter a command runs in, and its packages read from that interpreter."""

from __future__ import annotations

import importlib.metadata
import os
import stat
import subprocess
import sys

import pytest

from tracefix.capture.live_env import interpreter_for, packages_text
from tracefix.env.freeze import parse


def _script(path, text: str):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def bin_dir(tmp_path):
    d = tmp_path / "bin"
    d.mkdir()
    os.symlink(sys.executable, d / "python3.11")
    return d


def test_python_named_on_the_command_line(bin_dir):
    assert interpreter_for(["python3.11", "train.py"], path=str(bin_dir)) == str(bin_dir / "python3.11")


def test_console_script_shebang_names_the_interpreter(bin_dir):
    _script(bin_dir / "torchrun", f"#!{bin_dir}/python3.11\nfrom torch.distributed.run import main\n")
    assert interpreter_for(["torchrun", "--nproc-per-node", "2", "t.py"], path=str(bin_dir)) == f"{bin_dir}/python3.11"


def test_env_shebang_is_looked_up_on_path(bin_dir):
    _script(bin_dir / "accelerate", "#!/usr/bin/env python3.11\nprint()\n")
    assert interpreter_for(["accelerate", "launch"], path=str(bin_dir)) == str(bin_dir / "python3.11")


def test_pip_sh_launcher_for_long_paths(bin_dir):
    _script(bin_dir / "deepspeed", f"#!/bin/sh\n'''exec' \"{bin_dir}/python3.11\" \"$0\" \"$@\"\n' '''\n")
    assert interpreter_for(["deepspeed", "t.py"], path=str(bin_dir)) == f"{bin_dir}/python3.11"


def test_anything_else_uses_the_python_on_path(bin_dir):
    _script(bin_dir / "job.sh", "#!/bin/sh\nexit 1\n")
    os.symlink(sys.executable, bin_dir / "python3")
    assert interpreter_for(["job.sh"], path=str(bin_dir)) == str(bin_dir / "python3")


def test_packages_come_from_the_named_interpreter_not_ours(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "torch-9.9.9.dist-info").mkdir()
    (site / "torch-9.9.9.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 9.9.9\n")
    theirs = parse(packages_text(str(venv / "bin" / "python"))).as_dict()
    ours = parse(packages_text()).as_dict()
    assert theirs == {"torch": "9.9.9"}
    assert ours["torch"] == importlib.metadata.version("torch")
