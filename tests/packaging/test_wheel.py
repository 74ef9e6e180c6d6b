"""The shipped knowledge base is found from a built wheel installed in another directory."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.conftest import KB_IDS, ROOT


@pytest.mark.slow
def test_wheel_in_fresh_venv_lists_the_shipped_kb(tmp_path: Path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
                   check=True, capture_output=True, timeout=600)
    wheel = next(dist.glob("tracefix-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True, timeout=600)
    # NOTE: dependencies are borrowed from this interpreter (appended after the venv's own
    # site-packages, so the wheel's tracefix wins over any editable install) to keep the test fast.
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "borrowed-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("TRACEFIX_DB", None)
    where = subprocess.run([str(python), "-c", "import tracefix; print(tracefix.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, check=True).stdout
    assert str(env_dir) in where
    listed = subprocess.run([str(env_dir / "bin" / "tracefix"), "kb", "list"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=600)
    assert listed.returncode == 0, listed.stderr
    assert KB_IDS, "data/kb holds no articles"
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == list(KB_IDS)
