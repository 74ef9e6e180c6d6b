"""`read_log(source) -> LogReport`: the failure in a pasted log, its root cause, and the
environment blocks pasted with it.

One pass over the input feeds every cleaned line to four collectors (Python tracebacks, native
failures, launcher summaries, environment blocks). Their findings are merged here: the same error
printed by eight ranks becomes one failure, a line both a Python exception and a CUDA string
explain is the Python failure, and the root is chosen by `choose_root`. Nothing here raises on
bad input: undecodable bytes are replaced, an empty log gives a report with `root=None`.
"""

from __future__ import annotations

import io
import logging
import os
from collections import deque
from dataclasses import dataclass, replace

from tracefix.logs.clean import Line, Scanner, chunks, is_caret_line, is_progress
from tracefix.logs.signature import mask

log = logging.getLogger(__name__)
MAX_EXCERPT = 64 * 1024
MAX_FAILURES = 200
_WINDOW, _CONTEXT_BEFORE = 400, 8
_BF16 = ("bf16", "BF16", "bfloat16", "Bfloat16")


@dataclass(frozen=True)
class Frame:
    """One stack frame, Python or C++."""

    file: str               # as printed (C++ frames: the shared library, or "")
    line: int | None        # None for C++ frames and IPython-style frames without one
    function: str | None
    package: str | None     # canonical distribution name, from site-/dist-packages/<pkg>/
    module: str | None      # dotted module, e.g. "deepspeed.runtime.zero.stage3"


@dataclass(frozen=True)
class Failure:
    """One error found in the log."""

    kind: str                # python | nccl | c10d | cuda | killed | segfault | bus-error | abort | container | build | import | native | launcher
    exception: str | None    # e.g. "RuntimeError", "torch.distributed.DistBackendError"; None for non-Python errors
    message: str             # unmasked, first line(s), bounded
    frames: tuple[Frame, ...]
    rank: int | None         # the rank that printed it (first one, when several did)
    signature: str           # mask("exception: first message line") or mask(first message line)
    line_no: int             # 1-based line of the exception / error line
    first_line: int = 0      # where its traceback or block starts (0: same as line_no)
    chain: str | None = None     # "cause" / "context": raised from / while handling the failure before it
    noise: str | None = None     # why this is not a root candidate (SIGTERM victim, ignored exception...)
    complete: bool = True        # False for a traceback cut off before its exception
    ranks: tuple[int, ...] = ()  # every rank that printed the same failure
    severity: str = "error"      # "warning" for lines that are often harmless (NCCL WARN)

    def with_frames(self, frames: tuple[Frame, ...]) -> Failure:
        return replace(self, frames=frames)


def make_failure(*, kind: str, exception: str | None, message: str, frames: tuple[Frame, ...], rank: int | None,
                 line_no: int, first_line: int = 0, chain: str | None = None, noise: str | None = None,
                 complete: bool = True, severity: str = "error") -> Failure:
    """A Failure with its signature computed from the exception and the message's first line."""
    head = next((part for part in message.splitlines() if part.strip()), "")[:1000]
    signature = mask(f"{exception}: {head}" if exception else head)
    return Failure(kind, exception, message, frames, rank, signature, line_no, first_line or line_no, chain, noise,
                   complete, (rank,) if rank is not None else (), severity)


@dataclass(frozen=True)
class LauncherSeen:
    """What a launcher's summary said about the workers that failed."""

    launcher: str                 # torchrun | accelerate | deepspeed | mpirun | subprocess
    ranks: tuple[int, ...]        # failing ranks, the launcher's first failure first (SIGTERM victims left out)
    hosts: tuple[str, ...]        # hosts of those ranks, when the summary names them
    exitcode: int | None          # of the first failure
    signal: str | None            # "SIGKILL" for exit code -9...
    error_files: tuple[str, ...]  # torchrun error files the workers wrote (`@record`)
    only: bool                    # the log holds the launcher's summary but no failing rank's own error


@dataclass(frozen=True)
class LogReport:
    """Everything the matcher needs from a log."""

    root: Failure | None            # the root-cause failure; None when no error was recognised
    failures: tuple[Failure, ...]   # distinct failures, root first, then in log order
    root_rank: int | None
    world_size: int | None          # launcher flags / summaries, else the number of ranks seen
    excerpt: str                    # cleaned failure text (whole log if small), <= MAX_EXCERPT chars
    packages: tuple[str, ...]       # canonical packages seen in frames, root first
    freeze_text: str | None
    smi_text: str | None
    collect_env_text: str | None
    lines: int                      # lines read
    terminated_ranks: tuple[int, ...] = ()   # ranks the launcher stopped with SIGTERM (noise)
    mentions_bf16: bool = False     # a flag, config or message in the log says bf16 / bfloat16
    launcher: LauncherSeen | None = None     # the launcher's summary of the failure, if the log has one


# NOTE: imported after the dataclasses above, which these modules use.
from tracefix.env import blocks  # noqa: E402
from tracefix.logs import launcher, native, python_tb  # noqa: E402


def _binary(source) -> io.BufferedIOBase:
    """A binary stream for any accepted source: str (text), bytes, path, or a stream."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source))
    if isinstance(source, os.PathLike):
        return open(source, "rb")
    if isinstance(source, str):
        return io.BytesIO(source.encode("utf-8", "surrogatepass"))
    if isinstance(source, io.TextIOBase) or (hasattr(source, "read") and isinstance(source.read(0), str)):
        return _TextAsBytes(source)
    return source


class _TextAsBytes(io.RawIOBase):
    """Wraps a text stream so it reads as UTF-8 bytes, a piece at a time."""

    def __init__(self, text_stream):
        self._s = text_stream

    def read(self, size: int = -1) -> bytes:
        return self._s.read(size if size and size > 0 else -1).encode("utf-8", "replace")


class _Excerpt:
    """The text the matcher reads: the whole log when it is small, the failure regions otherwise."""

    def __init__(self) -> None:
        self.window: deque[Line] = deque(maxlen=_WINDOW)
        self.whole: list[str] = []
        self.size = 0
        self.overflow = False
        self.regions: dict[str, str] = {}
        self._seen_ranked: set[str] = set()

    def feed(self, line: Line) -> None:
        self.window.append(line)
        if self.overflow or is_progress(line.text):
            return
        if line.rank is not None:
            if line.text in self._seen_ranked:
                return
            if self.size < MAX_EXCERPT:
                self._seen_ranked.add(line.text)
        self.whole.append(line.text)
        self.size += len(line.text) + 1
        self.overflow = self.size > MAX_EXCERPT

    def capture(self, failure: Failure) -> None:
        """Keep the lines of a new failure's region while they are still in the window."""
        if failure.signature in self.regions or len(self.regions) >= MAX_FAILURES:
            return
        lo = failure.first_line - _CONTEXT_BEFORE
        lines = [ln.text for ln in self.window if lo <= ln.no and ln.rank in (failure.rank, None)
                 and not is_progress(ln.text)]
        self.regions[failure.signature] = "\n".join(lines)[-16384:]

    def text(self, failures: tuple[Failure, ...]) -> str:
        if not self.overflow:
            return "\n".join(self.whole)
        parts = [self.regions[f.signature] for f in failures if f.signature in self.regions]
        if not parts:
            parts = [ln.text for ln in self.window if not is_progress(ln.text)]
        return "\n".join(dict.fromkeys(parts))[:MAX_EXCERPT]


def read_log(source) -> LogReport:
    """Read a log and find its failures.

    >>> r = read_log("Traceback (most recent call last):\\n  File \\"x.py\\", line 1, in <module>\\nValueError: bad")
    >>> (r.root.exception, r.root.message)
    ('ValueError', 'bad')
    """
    stream = _binary(source)
    try:
        return _read(stream)
    finally:
        if stream is not source and hasattr(stream, "close"):
            stream.close()


def _read(stream) -> LogReport:
    scanner = Scanner()
    tb, nat, launch, finder, excerpt = (python_tb.Collector(), native.Collector(), launcher.Collector(),
                                        blocks.Finder(), _Excerpt())
    collectors = (tb, nat, launch)
    seen = [0, 0]
    last, bf16 = 0, False
    try:
        for line in scanner.lines(chunks(stream)):
            excerpt.feed(line)
            # A small paste is searched whole for environment blocks (a pip list with no header has no
            # keyword to focus on), as `tracefix env` reads it; a big log only near its keywords.
            whole = not scanner.focused
            if whole:
                finder.feed(line.text)
            if not line.focus:
                continue
            if line.no != last + 1:
                for c in collectors:
                    c.gap()
                if not whole:
                    finder.gap()
            last = line.no
            if "^" in line.text and is_caret_line(line.text):
                continue    # Python 3.11+ position marks under a frame's code
            for c in collectors:
                c.feed(line)
            if not whole:
                finder.feed(line.text)
            bf16 = bf16 or any(w in line.text for w in _BF16)
            _capture_new(excerpt, tb.failures, nat.failures, seen)
    except (OSError, ValueError) as e:   # a stream that fails half-way: report what was read
        log.debug("log reading stopped early: %s", e)
    summary = launch.finish()
    found = merge(tb.finish(), nat.finish(), summary.failures())
    for f in found:
        excerpt.capture(f)
    root, root_rank = launcher.choose_root(found, summary)
    ordered = tuple(([root] if root else []) + [f for f in found if f is not root])
    env = finder.result()
    packages = _packages(ordered)
    return LogReport(
        root=root, failures=ordered, root_rank=root_rank,
        world_size=summary.world_size or (max(scanner.ranks) + 1 if len(scanner.ranks) > 1 else None),
        excerpt=excerpt.text(ordered), packages=packages,
        freeze_text=env.freeze, smi_text=env.smi, collect_env_text=env.collect_env, lines=scanner.lines_read,
        mentions_bf16=bf16,
        terminated_ranks=tuple(sorted({e.rank for e in summary.exits if e.signal == "SIGTERM" and e.rank is not None})),
        launcher=launcher.seen(summary, root, ordered, packages),
    )


_NOISE_EXCEPTIONS = {
    "SignalException": "stopped by a signal from the launcher",
    "KeyboardInterrupt": "interrupted",
    "SystemExit": "exit requested",
    "ChildFailedError": "launcher summary; the rank's own error is the root",
    "CalledProcessError": "a wrapper saw a child process fail",
}


def merge(python: list[Failure], native: list[Failure], launcher: list[Failure]) -> list[Failure]:
    """One failure per error: lines a Python exception already explains dropped from the native
    findings (Python > launcher > native), the same error from several ranks folded into its
    first occurrence, and noise marked."""
    covered = {(f.rank, n) for f in python for n in range(f.first_line, f.line_no + f.message.count("\n") + 1)}
    taken: dict[int, Failure] = {}
    for group in (python, launcher, native):
        for f in group:
            if group is native and (f.rank, f.line_no) in covered:
                owner = next((p for p in python if p.rank == f.rank and p.first_line <= f.line_no), None)
                if owner is not None and not owner.frames and f.frames and owner.line_no in taken:
                    taken[owner.line_no] = taken[owner.line_no].with_frames(f.frames)
                continue
            if f.line_no not in taken:
                taken[f.line_no] = _mark_noise(f)
    distinct: dict[tuple[str, str], Failure] = {}
    for f in sorted(taken.values(), key=lambda f: f.line_no):
        key = (f.kind, f.signature)
        held = distinct.get(key)
        if held is None:
            if len(distinct) < MAX_FAILURES:
                distinct[key] = f
            continue
        distinct[key] = replace(held, ranks=tuple(dict.fromkeys((*held.ranks, *f.ranks))),
                                frames=max(held.frames, f.frames, key=len), noise=held.noise and f.noise,
                                complete=held.complete or f.complete)
    return list(distinct.values())


def _mark_noise(f: Failure) -> Failure:
    if f.noise or not f.exception:
        return f
    name = f.exception.rsplit(".", 1)[-1]
    reason = _NOISE_EXCEPTIONS.get(name)
    if name == "CalledProcessError" and "non-zero exit status" not in f.message:
        reason = None
    return replace(f, noise=reason) if reason else f


def _capture_new(excerpt: _Excerpt, py: list[Failure], nat: list[Failure], seen: list[int]) -> None:
    """Snapshot the region of each failure the collectors finished on this line."""
    for i, found in enumerate((py, nat)):
        if len(found) > seen[i]:
            for f in found[seen[i]:]:
                excerpt.capture(f)
            seen[i] = len(found)


def _packages(failures: tuple[Failure, ...]) -> tuple[str, ...]:
    names = [fr.package for f in failures for fr in f.frames if fr.package]
    return tuple(dict.fromkeys(names))
