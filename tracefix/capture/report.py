"""After a wrapped command failed: the log the matcher reads, the live environment, the report.

The log is the captured output, then the torchelastic error file's traceback (the root rank's,
possibly long gone from a bounded tail), then one line saying how the command ended when a signal
killed it (`... exited on signal 9 (SIGKILL)`: what the log reader knows as a killed process).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TextIO

from tracefix.capture import live_env
from tracefix.capture.relay import Outcome

ELASTIC_HEADER = "torchelastic error file (the first failed rank's traceback):"


def failure_log(captured: bytes, elastic_text: str | None, outcome: Outcome, command: list[str]) -> bytes:
    parts = [captured.rstrip(b"\n") + b"\n"] if captured.strip() else []
    if elastic_text:
        parts.append(f"\n{ELASTIC_HEADER}\n{elastic_text.rstrip()}\n".encode("utf-8", "replace"))
    if outcome.signal:
        parts.append(f"{os.path.basename(command[0])}: exited on signal {describe_signal(outcome.signal)}\n".encode())
    return b"".join(parts)


def describe_signal(signum: int) -> str:
    """9 -> '9 (SIGKILL)'."""
    try:
        return f"{signum} ({signal.Signals(signum).name})"
    except ValueError:
        return str(signum)


def ending(outcome: Outcome) -> str:
    if outcome.signal:
        return f"killed by signal {describe_signal(outcome.signal)}, exit status {outcome.exit_status}"
    return f"exit status {outcome.exit_status}"


def live_environment(command: list[str], env: dict[str, str]) -> tuple[str, str | None, str | None]:
    """(the interpreter, its packages as freeze text, nvidia-smi text) of where the command ran."""
    python = live_env.interpreter_for(command, env.get("PATH"))
    return python, live_env.packages_text(python, env), live_env.nvidia_smi_text()


def report(log: bytes, command: list[str], env: dict[str, str], outcome: Outcome, settings, top: int,
           json_path: str | None, stream: TextIO | None = None) -> None:
    """Match the failure and print the report (text on `stream`, the JSON object to `json_path`)."""
    from tracefix.match.pipeline import match_log, result_json
    from tracefix.render.text import print_result

    stream = stream or sys.stderr
    python, freeze, smi = live_environment(command, env)
    result = match_log(log, settings, freeze=freeze, smi=smi, top=top)
    stream.write(f"\ntracefix: the command failed ({ending(outcome)}).\n")
    stream.write(f"tracefix: environment: {environment_line(python, result.environment, smi)}\n")
    stream.flush()
    print_result(result, stream=stream)
    stream.flush()
    if json_path:
        try:
            with open(json_path, "w", encoding="utf-8") as f:
                f.write(result_json(result) + "\n")
        except OSError as e:
            stream.write(f"tracefix: cannot write {json_path}: {e.strerror or e}\n")


def environment_line(python: str, environment, smi: str | None) -> str:
    """Where the packages were read, and what nvidia-smi said, in one line."""
    packages = environment.packages
    torch = f", torch {packages['torch']}" if "torch" in packages else ""
    gpus = (f"{len(environment.gpus)} GPU(s) from nvidia-smi" if environment.gpus
            else "nvidia-smi not on PATH" if smi is None else "nvidia-smi shows no GPU")
    return f"packages of {python} ({len(packages)} packages{torch}); {gpus}"
