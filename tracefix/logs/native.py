"""Failures that are not Python tracebacks -> `Failure`.

NCCL `WARN`/`ERROR` lines, the ProcessGroupNCCL watchdog, c10d `[E ...]` log lines, C++ exceptions
(`terminate called after throwing...`, `what():`, `frame #3: c10::...`), CUDA error strings, the
shell's `Killed`, segmentation and bus faults, and pip / ninja / compiler build failures.

Each detector is one small function: a cheap substring test, then a bounded regex, thefuck-style.
A line a Python exception also explains is resolved in `report` (the Python failure wins).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tracefix.logs.clean import Line
from tracefix.logs import python_tb
from tracefix.logs.report import Failure, Frame, make_failure

Hit = tuple[str, str | None, str, tuple[Frame, ...]]   # kind, exception, message, frames
MAX_CPP_FRAMES = 64
MAX_KEPT = 2000

_NCCL_LINE = re.compile(r"^\S{1,200}:\d+:\d+ \[\d+\] (?:[\w./\-]{1,200}:\d+ )?(?:NCCL )?(WARN|ERROR) (.{1,2000})")
_NCCL_ANY = re.compile(r"NCCL (WARN|ERROR) (.{1,2000})")
_WATCHDOG = re.compile(r"(?:\[(?:PG \d+ )?Rank \d+\]\s*)?(?:Watchdog caught collective operation timeout|"
                       r"ProcessGroupNCCL's watchdog got stuck|Heartbeat monitor timed out).{0,2000}")
_C10D = re.compile(r"^\[([EF])(?:\d{4} [\d:.]{1,20})?\s?[\w.]{1,100}:\d+\]\s?(.{1,2000})")
_CUDA = re.compile(
    r"(?:CUDA error: |cuda runtime error \(\d+\) : |CUDA out of memory|CUBLAS_STATUS_\w+|CUDNN_STATUS_\w+|"
    r"device-side assert triggered|no kernel image is available|CUDA driver version is insufficient|"
    r"Cannot re-initialize CUDA in forked subprocess|with CUDA capability sm_\d+ is not compatible|"
    r"Assertion `.{1,300}` failed|CUDA Setup failed|Found no NVIDIA driver).{0,2000}"
)
_CUDA_HINTS = ("CUDA", "cuda runtime", "CUBLAS", "CUDNN", "Assertion `", "device-side", "NVIDIA driver", "kernel image")
_KILLED = re.compile(r"^(?:.{0,200}\b\d+ )?Killed\b.{0,300}$|Out of memory: Kill(?:ed)? process.{0,300}|oom-kill.{0,300}"
                     r"|exited on signal 9.{0,300}")
_SEGV = re.compile(r"(?:Fatal Python error: )?(?:Segmentation fault|SIGSEGV|[Ss]ignal 11\b).{0,300}")
_BUS = re.compile(r"(?:Bus error|bus error encountered in worker|SIGBUS).{0,300}")
_ABORT = re.compile(r"(?:Fatal Python error: Aborted|Aborted \(core dumped\)|SIGABRT).{0,300}")
_TERMINATE = re.compile(r"terminate called after throwing an instance of '([^']{1,200})'")
_WHAT = re.compile(r"^\s*what\(\):\s*(.{1,2000})")
_CPP_FRAME = re.compile(r"^\s*frame #(\d+): (.{1,600}?)(?: \+ 0x[0-9a-f]+)?(?: \((?:0x[0-9a-f]+ in )?([^()\s]{1,600})\))?\s*$")
_COMPILE = re.compile(r"^(\S{1,500}?)(?::(\d+)(?::\d+)?:|\((\d+)\):) (?:fatal )?error: (.{1,2000})")
_BUILD = re.compile(
    r"fatal error: .{1,2000}|nvcc fatal\s*: .{1,2000}|/ld: cannot find .{1,300}|ERROR: (?:Could not find a version that "
    r"satisfies|No matching distribution found).{0,1000}|Error building extension '[^']{1,200}'"
)
# Summaries that follow the real compiler error: kept, but never preferred as the root.
_BUILD_SUMMARY = re.compile(
    r"^FAILED: .{1,2000}|ninja: build stopped: .{1,300}|^\s*error: (?:command .{1,500} failed.{0,200}|subprocess-exited-with-"
    r"error|legacy-install-failure|metadata-generation-failed)|ERROR: Failed building wheel for \S{1,200}|Failed to build .{1,500}"
)
_BUILD_HINTS = ("FAILED", "ninja", "error", "ERROR", "Failed", "fatal")
# The container runtime refusing to start a GPU container: nothing of the job ran. The toolkit's
# own reason, when the line has it, says more than docker's wrapper around it.
_CONTAINER = (re.compile(r"nvidia-container-cli: [\w ]{1,40} error: .{1,1000}"),
              re.compile(r"docker: Error response from daemon: .{1,2000}"))
_LIB = re.compile(r"(\S{1,1000}\.so[\w.]*): (?:undefined symbol: \S{1,2000}|cannot open shared object file.{0,200})"
                  r"|undefined symbol: \S{1,2000}")


def _nccl(text: str) -> Hit | None:
    if "WARN" not in text and "ERROR" not in text:
        return None
    m = _NCCL_LINE.match(text) or (_NCCL_ANY.search(text) if "NCCL" in text else None)
    return ("nccl-warn" if m.group(1) == "WARN" else "nccl", None, m.group(2).strip(), ()) if m else None


def _watchdog(text: str) -> Hit | None:
    if "atchdog" not in text and "Heartbeat" not in text:
        return None
    m = _WATCHDOG.search(text)
    return ("nccl", None, m.group(0).strip(), ()) if m else None


def _c10d(text: str) -> Hit | None:
    if not text.startswith(("[E", "[F")):
        return None
    m = _C10D.match(text)
    if not m:
        return None
    return ("nccl" if "NCCL" in m.group(2) else "c10d", None, m.group(2).strip(), ())


def _cuda(text: str) -> Hit | None:
    if not any(h in text for h in _CUDA_HINTS):
        return None
    m = _CUDA.search(text)
    return ("cuda", None, m.group(0).strip(), ()) if m else None


def _signals(text: str) -> Hit | None:
    if "ill" in text or "oom" in text or "signal 9" in text:
        m = _KILLED.search(text)
        if m and not text.startswith(("Killing", "Sending")):
            return ("killed", None, m.group(0).strip(), ())
    for kind, pattern, hint in (("segfault", _SEGV, "SEG"), ("segfault", _SEGV, "egmentation"), ("segfault", _SEGV, "ignal 11"),
                                ("bus-error", _BUS, "us error"), ("bus-error", _BUS, "SIGBUS"), ("abort", _ABORT, "Abort"),
                                ("abort", _ABORT, "SIGABRT")):
        if hint in text:
            m = pattern.search(text)
            if m:
                return (kind, None, m.group(0).strip(), ())
    return None


def _build(text: str) -> Hit | None:
    if "error:" in text:
        m = _COMPILE.match(text.strip())
        if m:
            line = m.group(2) or m.group(3)
            return ("build", None, m.group(4).strip(), (python_tb.frame(m.group(1), int(line), None),))
    if not any(h in text for h in _BUILD_HINTS):
        return None
    m = _BUILD.search(text)
    if m:
        return ("build", None, m.group(0).strip(), ())
    m = _BUILD_SUMMARY.search(text)
    return ("build-summary", None, m.group(0).strip(), ()) if m else None


def _container(text: str) -> Hit | None:
    if "nvidia-container-cli" not in text and "Error response from daemon" not in text:
        return None
    m = _CONTAINER[0].search(text) or _CONTAINER[1].search(text)
    return ("container", None, m.group(0).strip(), ()) if m else None


def _library(text: str) -> Hit | None:
    if ".so" not in text or ("undefined symbol" not in text and "shared object" not in text):
        return None
    m = _LIB.search(text)
    if not m:
        return None
    frames = (python_tb.frame(m.group(1), None, None),) if m.group(1) else ()
    return ("import", None, m.group(0).strip(), frames)


DETECTORS: tuple[Callable[[str], Hit | None], ...] = (_watchdog, _nccl, _c10d, _cuda, _signals, _container, _library, _build)


def detect(text: str) -> Hit | None:
    """The first detector that recognises the line; None for an ordinary line."""
    for detector in DETECTORS:
        hit = detector(text)
        if hit:
            return hit
    return None


class Collector:
    """Feeds on cleaned lines; C++ frames and `what():` lines are attached to the failure above them."""

    def __init__(self) -> None:
        self.failures: list[Failure] = []
        self._throw: dict[int | None, tuple[int, str]] = {}     # rank -> (line, C++ exception type)
        self._cpp: dict[int | None, list[Frame]] = {}            # rank -> C++ frames being read
        self._cpp_at: dict[int | None, int] = {}                 # rank -> line of the first of them

    def feed(self, line: Line) -> None:
        text = line.text
        if text.lstrip().startswith(("traceback :", "exitcode  :")):
            return   # a launcher's failure table: `launcher` reads it, with the rank
        if "frame #" in text and self._cpp_frame(line, text):
            return
        self._end_frames(line.rank)
        if "terminate called" in text:
            m = _TERMINATE.search(text)
            if m:
                self._throw[line.rank] = (line.no, m.group(1))
                return
        if "what()" in text and line.rank in self._throw:
            m = _WHAT.match(text)
            if m:
                self._emit(line, ("native", self._throw.pop(line.rank)[1], m.group(1).strip(), ()))
                return
        hit = detect(text)
        if hit:
            self._emit(line, hit)

    def gap(self) -> None:
        for rank in list(self._cpp):
            self._end_frames(rank)

    def finish(self) -> list[Failure]:
        self.gap()
        return self.failures

    def _emit(self, line: Line, hit: Hit) -> None:
        kind, exception, message, frames = hit
        if len(self.failures) >= MAX_KEPT:
            return
        severity = "warning" if kind in ("nccl-warn", "build-summary") else "error"
        self.failures.append(make_failure(kind={"nccl-warn": "nccl", "build-summary": "build"}.get(kind, kind), exception=exception, message=message,
                                          frames=frames, rank=line.rank, line_no=line.no, severity=severity))

    def _cpp_frame(self, line: Line, text: str) -> bool:
        m = _CPP_FRAME.match(text)
        if not m:
            return False
        frames = self._cpp.setdefault(line.rank, [])
        self._cpp_at.setdefault(line.rank, line.no)
        if len(frames) < MAX_CPP_FRAMES:
            path = m.group(3) or ""
            base = python_tb.frame(path, None, m.group(2).strip()) if path else Frame("", None, m.group(2).strip(), None, None)
            frames.append(base)
        return True

    def _end_frames(self, rank: int | None) -> None:
        """Give the C++ frames just read to the last native failure of this rank, if it has none."""
        frames, at = self._cpp.pop(rank, None), self._cpp_at.pop(rank, 0)
        if not frames:
            return
        for i in range(len(self.failures) - 1, max(-1, len(self.failures) - 20), -1):
            f = self.failures[i]
            if f.rank == rank:
                if not f.frames:
                    self.failures[i] = f.with_frames(tuple(frames))
                return
        self.failures.append(make_failure(kind="native", exception=None, message="C++ exception (frames only)",
                                          frames=tuple(frames), rank=rank, line_no=at, complete=False))
