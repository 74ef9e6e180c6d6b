"""`tracefix run -- CMD` with real processes: output relayed byte for byte, exit status kept, the
report after a failure (with the environment the command ran in), signals, bounded memory."""

from __future__ import annotations

import importlib.metadata
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.capture.conftest import DEVICE_MISMATCH, PYTHON, child_env, run_direct
from tests.conftest import ROOT

FAILING_JOB = textwrap.dedent(f"""
    import sys
    for step in range(5):
        sys.stdout.write(f"\\x1b[32mstep {{step}}\\x1b[0m loss {{1 / (step + 1):.3f}}\\n")
        sys.stderr.write(f"\\r{{step * 20}}%|{{'#' * step:<5}}| {{step}}/5")
    sys.stdout.flush()
    sys.stdout.buffer.write(bytes(range(256)) + b"\\n")   # not UTF-8: must pass unchanged
    sys.stderr.write("\\n")
    import torch
    torch.zeros(1)
    raise RuntimeError({DEVICE_MISMATCH!r})
""")


def test_a_successful_command_is_passed_through_with_nothing_added(tracefix_run, tmp_path):
    job = ("import sys; sys.stdout.write('out \\x1b[1mbold\\x1b[0m\\n'); "
           "sys.stderr.write('err: Error is just a word\\n')")
    report = tmp_path / "report.json"
    done = tracefix_run(PYTHON, "-c", job, options=("--json", str(report)))
    direct = run_direct(PYTHON, "-c", job)
    assert done.returncode == 0
    assert (done.stdout, done.stderr) == (direct.stdout, direct.stderr)
    assert not report.exists()


def test_a_failing_job_keeps_its_output_and_status_and_gets_the_report(tracefix_run, kb_db, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(FAILING_JOB)
    report = tmp_path / "report.json"
    done = tracefix_run(PYTHON, str(script), options=("--json", str(report)))
    direct = run_direct(PYTHON, str(script))
    assert direct.returncode == 1 and done.returncode == 1
    assert done.stdout == direct.stdout                      # byte for byte, nothing added
    assert done.stderr.startswith(direct.stderr)              # the job's own stderr first, unchanged
    added = done.stderr[len(direct.stderr):].decode()
    assert "tracefix: the command failed (exit status 1)" in added
    assert "device-mismatch-generic" in added
    data = json.loads(report.read_text())
    assert data["matches"][0]["id"] == "device-mismatch-generic"
    assert data["environment"]["packages"]["torch"] == importlib.metadata.version("torch")
    # the same first record as `tracefix < log` on the same output
    piped = subprocess.run([PYTHON, "-m", "tracefix", "--db", str(kb_db), "--json"],
                           input=direct.stdout + direct.stderr, capture_output=True, env=child_env(), cwd=ROOT,
                           timeout=600)
    assert json.loads(piped.stdout)["matches"][0]["id"] == data["matches"][0]["id"]


def test_console_script_runs_in_its_own_environment(tracefix_run, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "torch-9.9.9.dist-info").mkdir()
    (site / "torch-9.9.9.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 9.9.9\n")
    script = tmp_path / "train-cli"
    script.write_text(f"#!{venv}/bin/python\nraise RuntimeError({DEVICE_MISMATCH!r})\n")
    script.chmod(0o755)
    report = tmp_path / "report.json"
    done = tracefix_run(str(script), options=("--json", str(report)))
    assert done.returncode == 1
    assert json.loads(report.read_text())["environment"]["packages"]["torch"] == "9.9.9"
    assert f"packages of {venv}/bin/python" in done.stderr.decode()


def test_a_job_killed_by_sigkill_is_reported_as_such(tracefix_run, tmp_path):
    job = "import os, signal; print('step 1', flush=True); os.kill(os.getpid(), signal.SIGKILL)"
    report = tmp_path / "report.json"
    done = tracefix_run(PYTHON, "-c", job, options=("--json", str(report)))
    assert done.returncode == 128 + signal.SIGKILL
    assert done.stdout == b"step 1\n"
    err = done.stderr.decode()
    assert "killed by signal 9 (SIGKILL), exit status 137" in err
    query = json.loads(report.read_text())["query"]
    assert query["kind"] == "killed" and "signal 9" in query["message"]


def test_a_command_that_does_not_exist_is_one_error_line(tracefix_run):
    done = tracefix_run("no-such-command-tracefix")
    assert done.returncode == 127
    assert done.stderr.decode().strip() == "Error: command not found: no-such-command-tracefix"


def test_a_reader_that_goes_away_ends_the_job_as_without_tracefix(kb_db):
    """`tracefix run -- yes | head -2`: yes gets its SIGPIPE, as it would without the wrapper; no report."""
    wrapper = subprocess.Popen([PYTHON, "-m", "tracefix", "run", "--db", str(kb_db), "--", "yes"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(), cwd=ROOT)
    assert wrapper.stdout.read(4) == b"y\ny\n"
    wrapper.stdout.close()
    assert wrapper.wait(timeout=120) == 128 + signal.SIGPIPE
    assert wrapper.stderr.read() == b""


def test_sigint_to_the_wrapper_reaches_the_job_once(kb_db):
    job = textwrap.dedent("""
        import signal, sys, time
        got = []
        signal.signal(signal.SIGINT, lambda *_: got.append(1) or print(f"SIGINT {len(got)}", flush=True))
        print("ready", flush=True)
        while not got:
            time.sleep(0.05)
        time.sleep(1.0)   # a second SIGINT, if one came, would be counted here
        sys.exit(3)
    """)
    wrapper = subprocess.Popen([PYTHON, "-m", "tracefix", "run", "--db", str(kb_db), "--", PYTHON, "-c", job],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(), cwd=ROOT)
    assert wrapper.stdout.readline() == b"ready\n"
    wrapper.send_signal(signal.SIGINT)
    out, err = wrapper.communicate(timeout=120)
    assert wrapper.returncode == 3
    assert out == b"SIGINT 1\n"
    assert "stopped by signal 2 (SIGINT); no report" in err.decode()


def test_ctrl_c_at_a_terminal_reaches_the_job_once(kb_db):
    """The wrapper on a real pseudo-terminal: ^C goes to the job's process group, the foreground one."""
    job = textwrap.dedent("""
        import os, signal, sys, time
        got = []
        signal.signal(signal.SIGINT, lambda *_: got.append(1))
        print("ready", os.isatty(1), os.getpgrp() == os.tcgetpgrp(0), flush=True)
        while not got:
            time.sleep(0.05)
        time.sleep(1.0)
        print("SIGINTs:", len(got), flush=True)
        sys.exit(4)
    """)
    master, wrapper = _on_terminal(kb_db, PYTHON, "-c", job)
    output = _read_until(master, b"ready")
    assert b"ready True True" in output   # the job sees a terminal and is the foreground job
    os.write(master, b"\x03")
    output += _read_until(master, b"SIGINTs:")
    assert wrapper.wait(timeout=120) == 4
    output += _read_rest(master)
    os.close(master)
    assert b"SIGINTs: 1" in output


def test_ctrl_z_stops_job_and_wrapper_and_fg_continues_both(kb_db):
    job = "import os\nprint('ready', os.getpid(), flush=True)\ninput()\nprint('continued', flush=True)\n"
    master, wrapper = _on_terminal(kb_db, PYTHON, "-c", job)
    output = _read_until(master, b"ready")
    job_pid = int(output.split(b"ready ")[1].split()[0])
    os.write(master, b"\x1a")                                   # Ctrl-Z
    assert os.waitid(os.P_PID, wrapper.pid, os.WSTOPPED).si_code == os.CLD_STOPPED
    assert _process_state(job_pid) == "T"                       # the job is stopped too
    os.kill(wrapper.pid, signal.SIGCONT)                        # what `fg` does
    os.write(master, b"go on\n")                                # the job reads the terminal again
    assert wrapper.wait(timeout=120) == 0
    output += _read_rest(master)
    os.close(master)
    assert b"continued" in output


def test_a_job_reading_the_terminal_at_once_gets_its_input(kb_db):
    """`head -1` reads the terminal the moment it starts: it must not be stopped as a background job."""
    master, wrapper = _on_terminal(kb_db, "head", "-1")
    os.write(master, b"typed line\n")
    assert wrapper.wait(timeout=120) == 0
    output = _read_rest(master)
    os.close(master)
    assert output.count(b"typed line") == 2     # the terminal's echo, then head's output


def _on_terminal(kb_db, *command: str):
    """`tracefix run -- command` with a pseudo-terminal as its controlling terminal (as in a shell)."""
    import fcntl
    import pty
    import termios

    master, slave = pty.openpty()

    def controlling_terminal():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    wrapper = subprocess.Popen([PYTHON, "-m", "tracefix", "run", "--db", str(kb_db), "--", *command],
                               stdin=slave, stdout=slave, stderr=slave, env=child_env(), cwd=ROOT,
                               preexec_fn=controlling_terminal)
    os.close(slave)
    return master, wrapper


def _process_state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def _read_until(fd: int, marker: bytes) -> bytes:
    """Read until a whole line holding `marker` arrived."""
    data = b""
    while marker not in data or b"\n" not in data.split(marker, 1)[1]:
        chunk = os.read(fd, 4096)
        assert chunk, data
        data += chunk
    return data


def _read_rest(fd: int) -> bytes:
    data = b""
    try:
        while chunk := os.read(fd, 4096):
            data += chunk
    except OSError:   # EIO: every writer closed
        pass
    return data


def test_torchelastic_error_file_gives_the_traceback_the_output_lost(tracefix_run, tmp_path):
    """A @record job whose stderr went nowhere: only the error file holds its traceback."""
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(f"""
        import os
        from torch.distributed.elastic.multiprocessing.errors import record

        @record
        def main():
            print("step 1", flush=True)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)   # stderr lost (a scheduler's log rotation, say)
            raise RuntimeError({DEVICE_MISMATCH!r})

        main()
    """))
    report = tmp_path / "report.json"
    done = tracefix_run(PYTHON, str(script), options=("--json", str(report)))
    assert done.returncode == 1
    assert b"Traceback" not in done.stdout + done.stderr.split(b"tracefix:")[0]
    data = json.loads(report.read_text())
    assert data["query"]["exception"] == "RuntimeError"
    assert data["matches"][0]["id"] == "device-mismatch-generic"


@pytest.mark.slow
def test_torchrun_two_ranks_root_rank_and_the_users_error_file(tracefix_run, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(f"""
        import os
        from torch.distributed.elastic.multiprocessing.errors import record

        @record
        def main():
            if os.environ["RANK"] == "1":
                raise RuntimeError({DEVICE_MISMATCH!r})

        main()
    """))
    torchrun = os.path.join(os.path.dirname(PYTHON), "torchrun")
    error_file = tmp_path / "torchrun-error.json"
    report = tmp_path / "report.json"
    done = tracefix_run(torchrun, "--nproc-per-node", "2", str(script), options=("--json", str(report)),
                        env=child_env(TORCHELASTIC_ERROR_FILE=str(error_file)), cwd=tmp_path)
    assert done.returncode == 1
    data = json.loads(report.read_text())
    assert data["query"]["root_rank"] == 1
    assert data["matches"][0]["id"] == "device-mismatch-generic"
    assert "RuntimeError" in json.loads(error_file.read_text())["message"]["message"]   # the user's file is kept


MEMORY_PROBE = textwrap.dedent("""
    import json, os, resource, subprocess, sys
    job = ("import sys\\n"
           "line = b'[rank0]: step 12345 loss 0.25 UserWarning: an Error-looking line ' + b'x' * 60 + b'\\\\n'\\n"
           "block = line * (2**20 // len(line)); block += b'y' * (2**20 - len(block))\\n"
           "for _ in range(1024): sys.stdout.buffer.write(block)\\n")
    wrapper = subprocess.Popen([sys.executable, "-m", "tracefix", "run", "--", sys.executable, "-c", job],
                               stdout=subprocess.PIPE)
    total = 0
    while chunk := wrapper.stdout.read1(2**20):
        total += len(chunk)
    wrapper.wait()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024   # the wrapper and the job, the larger
    print(json.dumps({"bytes": total, "status": wrapper.returncode, "peak_mb": peak}))
""")


@pytest.mark.slow
def test_a_job_printing_1_gb_leaves_the_wrapper_under_100_mb(kb_db):
    done = subprocess.run([PYTHON, "-c", MEMORY_PROBE], capture_output=True, env=child_env(TRACEFIX_DB=str(kb_db)),
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == 0
    assert result["bytes"] == 2**30          # every byte relayed
    assert result["peak_mb"] < 100, result
