"""`tracefix.install()` and `%load_ext tracefix` in real interpreters: the original traceback
untouched, then the report; nothing from other ranks; `import tracefix` stays cheap."""

from __future__ import annotations

import os
import subprocess
import textwrap

from tests.capture.conftest import DEVICE_MISMATCH, PYTHON, child_env
from tests.conftest import ROOT

SCRIPT = textwrap.dedent(f"""
    import os
    import tracefix
    if os.environ.get("WITH_HOOK"):
        tracefix.install()

    def train_step():
        raise RuntimeError({DEVICE_MISMATCH!r})

    print("step 0", flush=True)
    train_step()
""")


def _script(tmp_path, **env: str) -> subprocess.CompletedProcess:
    path = tmp_path / "train.py"
    path.write_text(SCRIPT)
    return subprocess.run([PYTHON, str(path)], capture_output=True, env=env, cwd=ROOT, timeout=600)


def test_excepthook_prints_the_report_under_the_untouched_traceback(tmp_path, kb_db):
    plain = _script(tmp_path, **child_env(TRACEFIX_DB=str(kb_db)))
    hooked = _script(tmp_path, **child_env(TRACEFIX_DB=str(kb_db), WITH_HOOK="1"))
    assert plain.returncode == hooked.returncode == 1
    assert hooked.stdout == plain.stdout == b"step 0\n"
    assert plain.stderr.startswith(b"Traceback (most recent call last):")
    assert hooked.stderr.startswith(plain.stderr)          # the original traceback first, byte for byte
    added = hooked.stderr[len(plain.stderr):].decode()
    assert "tracefix: the known issue behind this error" in added
    assert "device-mismatch-generic" in added


def test_excepthook_stays_quiet_on_other_ranks(tmp_path, kb_db):
    plain = _script(tmp_path, **child_env(TRACEFIX_DB=str(kb_db)))
    rank1 = _script(tmp_path, **child_env(TRACEFIX_DB=str(kb_db), WITH_HOOK="1", RANK="1", LOCAL_RANK="1"))
    assert rank1.returncode == 1
    assert rank1.stderr == plain.stderr


def test_excepthook_failure_costs_one_line_not_the_traceback(tmp_path):
    plain = _script(tmp_path, **child_env())
    broken = _script(tmp_path, **child_env(WITH_HOOK="1", TRACEFIX_DB=str(tmp_path / "no-such-dir" / "x" / "kb.db"),
                                           TRACEFIX_MODEL=str(tmp_path / "no-model")))
    assert broken.stderr.startswith(plain.stderr)
    added = broken.stderr[len(plain.stderr):].decode().strip().splitlines()
    assert len(added) == 1 and added[0].startswith("tracefix: no report:")


def test_import_tracefix_loads_nothing_else():
    code = ("import sys, tracefix; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tracefix', 'click', 'torch', 'IPython')))")
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=child_env(), cwd=ROOT)
    assert done.stdout.strip() == "['tracefix']"


def _ipython(lines: list[str], env: dict) -> subprocess.CompletedProcess:
    ipython = os.path.join(os.path.dirname(PYTHON), "ipython")
    args = [ipython, "--simple-prompt", "--colors=nocolor", "--no-banner", "--HistoryManager.enabled=False"]
    return subprocess.run(args, input="\n".join(lines).encode() + b"\n", capture_output=True, env=env, cwd=ROOT,
                          timeout=600)


def test_ipython_extension_adds_the_report_under_a_failing_cell(kb_db):
    cells = ["x = 1", f"raise RuntimeError({DEVICE_MISMATCH!r})", "print('after', x)"]
    env = child_env(TRACEFIX_DB=str(kb_db))
    plain = _ipython(["pass", *cells], env)
    loaded = _ipython(["%load_ext tracefix", *cells], env)
    assert loaded.returncode == plain.returncode == 0
    assert loaded.stdout == plain.stdout                   # IPython's own traceback display, unchanged
    assert "RuntimeError: " + DEVICE_MISMATCH in loaded.stdout.decode()
    assert "after 1" in loaded.stdout.decode()
    err = loaded.stderr.decode()
    assert err.count("tracefix: the known issue behind this error") == 1   # the failing cell only
    assert "device-mismatch-generic" in err
    assert "tracefix" not in plain.stderr.decode()
