"""The environment a command really ran in, read on the spot: its Python packages and nvidia-smi.

The interpreter is the one the command started: `python3 train.py` names it, a console script
(`torchrun`, `accelerate`, `deepspeed`) names it in its shebang line; anything else (a shell script,
a binary) is taken to use the active environment (the `python3` on PATH), else tracefix's own.
Packages are listed with `importlib.metadata` inside that interpreter (a fraction of `pip list`'s
time), as `name==version` lines that `tracefix.env` reads like a pip freeze.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

TIMEOUT = 60
_PYTHON_NAME = re.compile(r"^python(\d+(\.\d+)?)?$")
# pip's launcher for paths too long for a shebang: `#!/bin/sh` then `'''exec' /path/python "$0" "$@"`
_SH_EXEC = re.compile(r"""^'''exec' "?([^"\s]+)"? """)

_LIST_PACKAGES = """
import importlib.metadata as m
for d in m.distributions():
    name = d.metadata["Name"]
    if name:
        print(f"{name}=={d.version}")
"""


def packages_text(python: str | None = None, env: dict[str, str] | None = None) -> str | None:
    """`name==version` lines for the packages of `python` (None: this interpreter, in process), with
    the command's environment variables (its PYTHONPATH decides what it imported too)."""
    if python is None:
        return _in_process()
    try:
        done = subprocess.run([python, "-c", _LIST_PACKAGES], capture_output=True, timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL, env=env)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", errors="replace") if done.returncode == 0 else None


def _in_process() -> str:
    import importlib.metadata as metadata

    lines = (f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"])
    return "\n".join(lines)


def nvidia_smi_text() -> str | None:
    """`nvidia-smi`'s table when the command is on PATH (its own error text counts: it says why no GPU)."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe], capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout + done.stderr).decode("utf-8", errors="replace") or None


def interpreter_for(command: list[str], path: str | None = None) -> str:
    """The Python interpreter `command` runs in (see the module's docstring)."""
    exe = shutil.which(command[0], path=path) if command else None
    if exe:
        if _PYTHON_NAME.match(os.path.basename(exe)):
            return exe
        named = _shebang_python(exe, path)
        if named:
            return named
    return shutil.which("python3", path=path) or shutil.which("python", path=path) or sys.executable


def _shebang_python(exe: str, path: str | None) -> str | None:
    try:
        with open(exe, "rb") as f:
            head = f.read(1024).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    if not head or not head[0].startswith("#!"):
        return None
    words = head[0][2:].split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]   # `#!/usr/bin/env -S python3 -u`
        return shutil.which(words[0], path=path) if words and _PYTHON_NAME.match(words[0]) else None
    if words and _PYTHON_NAME.match(os.path.basename(words[0])):
        return words[0]
    if words and os.path.basename(words[0]) == "sh" and len(head) > 1:
        m = _SH_EXEC.match(head[1])
        return m.group(1) if m else None
    return None
