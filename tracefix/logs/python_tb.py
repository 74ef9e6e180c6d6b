"""Python tracebacks, chained ones included, and bare exception lines -> `Failure`.

Pasted tracebacks are rarely whole: they start at some frame, lose their indentation, run
frames together on one line, or carry a logger prefix before the exception. The parser keeps
one small state machine per rank, so tracebacks that several ranks print at the same time do
not get mixed up, and it never needs more than the current traceback in memory.
"""

from __future__ import annotations

import re

from packaging.utils import canonicalize_name

from tracefix.logs.clean import Line
from tracefix.logs.report import Failure, Frame, make_failure

MAX_FRAMES = 200
MAX_KEPT = 2000         # failures kept per log; a log with more repeats itself
MAX_MESSAGE_LINES, MAX_MESSAGE = 12, 1200
_MAX_STRAY = 4          # unrecognised lines tolerated inside a traceback before giving up on it
_TITLE_GAP = 8          # lines allowed between an exception line and the cut traceback printed after it

_FRAME = re.compile(r'File "([^"\n]{1,1024})", line (\d{1,7})(?:,? in ([^\s,]{1,200}))?')
_IPY_FRAME = re.compile(r"^(\S{1,1024}\.py) in ([\w<>]{1,200})\(")
_EXC_NAME = r"(?:[A-Za-z_]\w{0,80}\.){0,12}[A-Z]\w{0,100}"
# Inside a traceback any class-like name ending the trace counts; outside, only the usual suffixes.
_TB_EXC = re.compile(r"^\s{0,3}(" + _EXC_NAME + r")(?::(?:\s(.*)|\s*$)|\s*$)")
# `Failed`: torch._dynamo's BackendCompilerFailed, often pasted without the traceback above it.
# Full-width `：，。` may precede an exception pasted inside Chinese prose ("报错如下：TypeError: ...").
_BARE_EXC = re.compile(
    r"(?:^|(?<=[\s`'\"(\[>:：，。]))((?:[A-Za-z_]\w{0,80}\.){0,12}[A-Z]\w{0,100}?(?:Error|Exception|Interrupt|Exit|Failure|Failed))"
    r"(?::\s(.*)|:\s*$|\s*$)"
)
_BARE_HINTS = ("Error", "Exception", "Interrupt", "Exit", "Failure", "Failed")
_CHAIN = {
    "The above exception was the direct cause of the following exception": "cause",
    "During handling of the above exception, another exception occurred": "context",
}
_NEW_RECORD = re.compile(r"^(?:\[?\d{4}-\d\d-\d\d|\[[EWIF]\d*[ \]]|(?:WARNING|ERROR|INFO|DEBUG|CRITICAL)[:\s]|\w+Warning: )")
_SITE = re.compile(r"[/\\](?:site|dist)-packages[/\\](.+)$")
_STDLIB = re.compile(r"[/\\]lib[/\\]python\d\.\d+[/\\](.+)$")
# Import name -> distribution, where they differ (one line each; canonicalised on use).
IMPORT_TO_DIST = {
    "sat": "SwissArmyTransformer", "flash_attn_2_cuda": "flash-attn", "flash_attn_cuda": "flash-attn",
    "cv2": "opencv-python", "sklearn": "scikit-learn", "PIL": "pillow", "yaml": "pyyaml",
    "google": "protobuf", "bnb": "bitsandbytes", "mmcv": "mmcv", "apex": "apex", "_pickle": None,
    "lightning_fabric": "lightning-fabric", "skimage": "scikit-image", "attr": "attrs",
    "dateutil": "python-dateutil", "faiss": "faiss-cpu", "fused_adam": "deepspeed", "cpu_adam": "deepspeed",
}


def locate(path: str) -> tuple[str | None, str | None]:
    """(distribution, module) for a frame's file, from the path after site-/dist-packages.

    >>> locate("/usr/lib/python3/dist-packages/deepspeed/runtime/zero/stage3.py")
    ('deepspeed', 'deepspeed.runtime.zero.stage3')
    """
    m = _SITE.search(path)
    if m:
        parts = [p for p in re.split(r"[/\\]", m.group(1)) if p]
        if parts and parts[0].endswith((".egg", ".egg-link")) and len(parts) > 1:
            parts = parts[1:]
        top = parts[0].split(".")[0] if parts else ""
        if not top or top.startswith("__"):
            return None, None
        dist = IMPORT_TO_DIST.get(top, top)
        return (canonicalize_name(dist) if dist else None), _module(parts)
    if path.startswith("<frozen ") and path.endswith(">"):
        return None, path[8:-1]
    m = _STDLIB.search(path)
    return None, (_module([p for p in re.split(r"[/\\]", m.group(1)) if p]) if m else None)


def _module(parts: list[str]) -> str | None:
    if not parts or not parts[-1].endswith(".py"):
        return None
    names = [*parts[:-1], parts[-1][:-3]]
    if names[-1] == "__init__":
        names.pop()
    return ".".join(names) if all(n.isidentifier() for n in names) and names else None


def frame(file: str, line: int | None, function: str | None) -> Frame:
    package, module = locate(file)
    return Frame(file=file, line=line, function=function, package=package, module=module)


def exception_in(text: str, in_traceback: bool) -> tuple[str, str] | None:
    """(exception, first message line) if `text` is an exception line; None otherwise."""
    if in_traceback:
        m = _TB_EXC.match(text)
        if m and not text.startswith("    "):
            return m.group(1), (m.group(2) or "").strip().rstrip("`")
    if not any(h in text for h in _BARE_HINTS):
        return None
    m = _BARE_EXC.search(text)
    return (m.group(1), unquoted_tail((m.group(2) or "").strip())) if m else None


def unquoted_tail(message: str) -> str:
    """Drop the quote that closes a line quoted in prose (`"RuntimeError: boom"`), not one the message
    itself closes (`No module named 'x'`): a trailing quote is the prose's only when it has no partner."""
    message = message.rstrip("`")
    for quote in "'\"":
        if message.endswith(quote) and message.count(quote) % 2:
            message = message[:-1]
    return message


class _Trace:
    """The traceback being read for one rank."""

    def __init__(self, start: int, chain: str | None, ignored: bool):
        self.start, self.chain, self.ignored = start, chain, ignored
        self.frames: list[Frame] = []
        self.exception: str | None = None
        self.message: list[str] = []
        self.at = start
        self.stray = 0
        self.last_was_frame = False
        self.open_message = False   # the exception line had no message: the lines after it are the message


class Collector:
    """Feeds on cleaned lines; `failures` holds what it found, in the order tracebacks ended."""

    def __init__(self) -> None:
        self.failures: list[Failure] = []
        self._open: dict[int | None, _Trace] = {}
        self._chain: dict[int | None, str] = {}
        self._previous: dict[int | None, str] = {}
        self._last: dict[int | None, int] = {}     # rank -> index in `failures` of its last failure

    def feed(self, line: Line) -> None:
        text = line.text
        trace = self._open.get(line.rank)
        if trace is not None and trace.exception is not None:
            if self._continues(trace, text):
                return
            self._close(line.rank)
            trace = None
        if "Traceback (most recent call" in text:
            self._close(line.rank)
            ignored = self._previous.get(line.rank, "").startswith("Exception ignored in")
            self._open[line.rank] = _Trace(line.no, self._chain.pop(line.rank, None), ignored)
        elif 'File "' in text and _FRAME.search(text):
            self._frames(line, text)
        elif text.strip().rstrip(":") in _CHAIN:
            self._close(line.rank)
            self._chain[line.rank] = _CHAIN[text.strip().rstrip(":")]
        elif trace is not None:
            self._inside(trace, line, text)
        else:
            self._bare(line, text)
        self._previous[line.rank] = text

    def gap(self) -> None:
        """Lines were skipped here: nothing open can continue across the gap."""
        for rank in list(self._open):
            self._close(rank)

    def finish(self) -> list[Failure]:
        self.gap()
        return self.failures

    # -- states ------------------------------------------------------------------------------

    def _frames(self, line: Line, text: str) -> None:
        trace = self._open.get(line.rank)
        if trace is None:
            trace = self._open[line.rank] = _Trace(line.no, self._chain.pop(line.rank, None), False)
        last = None
        for m in _FRAME.finditer(text):
            if len(trace.frames) < MAX_FRAMES:
                trace.frames.append(frame(m.group(1), int(m.group(2)), m.group(3)))
            last = m
        trace.last_was_frame, trace.stray = True, 0
        rest = text[last.end():] if last else ""
        found = exception_in(rest, False) if rest else None
        if found:
            self._exception(trace, line, *found)

    def _inside(self, trace: _Trace, line: Line, text: str) -> None:
        found = exception_in(text, True)
        if found and not (trace.last_was_frame and text.startswith("    ")):
            self._exception(trace, line, *found)
            return
        m = _IPY_FRAME.match(text)
        if m:
            trace.frames.append(frame(m.group(1), None, m.group(2)))
        elif text.strip() and not trace.last_was_frame and not set(text.strip()) <= set("^~ "):
            trace.stray += 1
            if trace.stray > _MAX_STRAY:
                self._close(line.rank)
                return
        trace.last_was_frame = False

    def _bare(self, line: Line, text: str) -> None:
        found = exception_in(text, False)
        if found:
            trace = self._open[line.rank] = _Trace(line.no, self._chain.pop(line.rank, None), False)
            self._exception(trace, line, *found)

    def _exception(self, trace: _Trace, line: Line, exception: str, message: str) -> None:
        trace.exception, trace.at = exception, line.no
        trace.message = [message] if message else []

    def _continues(self, trace: _Trace, text: str) -> bool:
        """Whether `text` continues the exception's message (multi-line messages are common)."""
        stripped = text.strip()
        if not stripped:
            return not trace.message  # `AssertionError:` then a blank, then the message
        if (len(trace.message) >= MAX_MESSAGE_LINES or "Traceback (most recent call" in text
                or stripped.rstrip(":") in _CHAIN or 'File "' in text or _NEW_RECORD.match(stripped)
                or stripped.startswith(("Exception raised from", "frame #", "Exception ignored in"))):
            return False
        if trace.message and not (trace.open_message or text[:1] in " \t" or trace.message[-1].endswith(":")):
            return False   # an ordinary next line, not part of a one-line message
        trace.open_message = trace.open_message or not trace.message
        trace.message.append(stripped)
        return True

    def _close(self, rank: int | None) -> None:
        trace = self._open.pop(rank, None)
        if trace is None or (trace.exception is None and not trace.frames):
            return
        if trace.exception is None and self._give_frames_to_title(rank, trace):
            return
        message = "\n".join(trace.message)[:MAX_MESSAGE]
        noise = "exception ignored (in a destructor or callback)" if trace.ignored else None
        if len(self.failures) >= MAX_KEPT:
            return
        self.failures.append(make_failure(
            kind="python", exception=trace.exception,
            message=message if trace.exception else "(traceback cut off before the exception)",
            frames=tuple(trace.frames), rank=rank, line_no=trace.at, first_line=trace.start,
            chain=trace.chain, noise=noise, complete=trace.exception is not None,
        ))
        self._last[rank] = len(self.failures) - 1

    def _give_frames_to_title(self, rank: int | None, trace: _Trace) -> bool:
        """A traceback cut before its exception, just after an exception line with no frames (printed
        first by a logger, or a title above the paste), is that exception's traceback."""
        i = self._last.get(rank)
        title = self.failures[i] if i is not None else None
        if title is None or title.frames or not title.complete or title.kind != "python":
            return False
        if not 0 < trace.start - (title.line_no + title.message.count("\n")) <= _TITLE_GAP:
            return False
        self.failures[i] = title.with_frames(tuple(trace.frames))
        return True
