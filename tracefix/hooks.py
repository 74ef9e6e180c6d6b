"""tracefix inside a Python process: `tracefix.install()` (an excepthook) and `%load_ext tracefix`.

Both print the report of `tracefix < log` under an uncaught exception, matched by the same code
(`tracefix.match.pipeline.match_log`), with the environment of the running interpreter. The original
traceback is always shown first and untouched: the excepthook calls the hook it replaced, the
IPython extension only listens to `post_run_cell`, after IPython showed the error its own way.
A failure of tracefix itself costs one line, never the user's traceback.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import TextIO

_MARK = "_tracefix_hook"
_callbacks: dict[int, object] = {}   # id(shell) -> our post_run_cell callback, for unloading


def install(top: int = 3) -> None:
    """Print the matching known issue after any uncaught exception's traceback (rank 0 only under torchrun)."""
    previous = sys.excepthook
    if getattr(previous, _MARK, False):
        return

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        if _reportable(exc):
            report_exception(exc, tb, top=top)

    setattr(hook, _MARK, True)
    sys.excepthook = hook


def load_ipython_extension(ipython) -> None:
    """`%load_ext tracefix`: the report under every cell that raised."""
    if id(ipython) in _callbacks:
        return

    def after_cell(result) -> None:
        exc = getattr(result, "error_in_exec", None)
        if exc is not None and _reportable(exc):
            report_exception(exc, exc.__traceback__)

    ipython.events.register("post_run_cell", after_cell)
    _callbacks[id(ipython)] = after_cell


def unload_ipython_extension(ipython) -> None:
    callback = _callbacks.pop(id(ipython), None)
    if callback is not None:
        ipython.events.unregister("post_run_cell", callback)


def other_rank() -> bool:
    """True in a torchrun worker that is not rank 0 (RANK, else LOCAL_RANK, says so)."""
    rank = os.environ.get("RANK") or os.environ.get("LOCAL_RANK")
    return rank is not None and rank.strip() not in ("", "0")


def _reportable(exc: BaseException) -> bool:
    return not isinstance(exc, (KeyboardInterrupt, SystemExit)) and not other_rank()


def report_exception(exc: BaseException, tb, top: int = 3, stream: TextIO | None = None) -> None:
    """Match an exception's traceback and print the report on `stream` (stderr)."""
    stream = stream or sys.stderr
    try:
        result = _match(exc, tb, top)
    except Exception as e:   # tracefix's own failure must not bury the user's error
        stream.write(f"tracefix: no report: {e}\n")
        return
    from tracefix.render.text import print_result

    stream.write("\ntracefix: the known issue behind this error:\n")
    print_result(result, stream=stream)
    stream.flush()


def _match(exc: BaseException, tb, top: int):
    from tracefix.capture.live_env import nvidia_smi_text, packages_text
    from tracefix.match.pipeline import match_log
    from tracefix.settings import Settings

    text = "".join(traceback.format_exception(type(exc), exc, tb))
    return match_log(text.encode("utf-8", "replace"), Settings.resolve(), freeze=packages_text(), smi=nvidia_smi_text(),
                     top=top, progress=_quiet)


def _quiet(done: int, total: int) -> None:
    """Index (re)building is not announced under a user's traceback."""
