"""torchelastic error files: the root rank's traceback, as `@record` wrote it.

A script whose entry point is decorated with
`torch.distributed.elastic.multiprocessing.errors.record` writes its uncaught exception as JSON to
the path in `TORCHELASTIC_ERROR_FILE`. torchrun gives each worker its own file, and its own `main`
(also `@record`) copies the first failed worker's file to torchrun's `TORCHELASTIC_ERROR_FILE`.
So `tracefix run` sets that variable for the command (unless the user set one) and reads it after.

The format (torch/distributed/elastic/multiprocessing/errors/error_handler.py, `record_exception`):
    {"message": {"message": "RuntimeError: ...", "extraInfo": {"py_callstack": "<traceback>", "timestamp": "..."},
                 "errorCode": <exit code, added by torchrun>}}
or, in the newer format, `{"message": "<text>", "timestamp": ...}`.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass

VARIABLE = "TORCHELASTIC_ERROR_FILE"
MAX_BYTES = 4 * 2**20


@dataclass
class ErrorFile:
    """Where the command's error file will be, and whether tracefix made the place."""

    path: str
    temp_dir: str | None      # ours to delete
    mtime_before: float | None  # the user's file from an earlier run is not this run's failure

    def read(self) -> str | None:
        """The traceback (or message) written during this run, else None."""
        try:
            stat = os.stat(self.path)
            if self.mtime_before is not None and stat.st_mtime <= self.mtime_before:
                return None
            with open(self.path, "rb") as f:
                data = json.loads(f.read(MAX_BYTES).decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            return None
        return traceback_text(data)

    def remove(self) -> None:
        if self.temp_dir:
            shutil.rmtree(self.temp_dir, ignore_errors=True)


def prepare(env: dict[str, str]) -> ErrorFile:
    """Point the command's `TORCHELASTIC_ERROR_FILE` at a file to read after it (env is changed)."""
    given = env.get(VARIABLE)
    if given:
        try:
            before = os.stat(given).st_mtime
        except OSError:
            before = None
        return ErrorFile(given, None, before)
    temp_dir = tempfile.mkdtemp(prefix="tracefix-run-")
    path = os.path.join(temp_dir, "error.json")
    env[VARIABLE] = path
    return ErrorFile(path, temp_dir, None)


def traceback_text(data) -> str | None:
    """The readable part of an error file's JSON: the Python call stack, else the message.

    >>> traceback_text({"message": {"message": "ValueError: x",
    ...                             "extraInfo": {"py_callstack": "Traceback...", "timestamp": "1"}}})
    'Traceback...'
    >>> traceback_text({"message": "Signal 9 (SIGKILL) received by PID 7", "timestamp": 1})
    'Signal 9 (SIGKILL) received by PID 7'
    """
    message = data.get("message") if isinstance(data, dict) else None
    if isinstance(message, str):
        return message or None
    if isinstance(message, dict):
        extra = message.get("extraInfo")
        stack = extra.get("py_callstack") if isinstance(extra, dict) else None
        text = stack if isinstance(stack, str) and stack.strip() else message.get("message")
        return text if isinstance(text, str) and text.strip() else None
    return None
