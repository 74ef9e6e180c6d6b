"""Turning raw terminal output into clean `(rank, text)` lines, in bounded memory.

What users paste is what their terminal showed: ANSI colours, CRLF endings, tqdm bars redrawn
with carriage returns, and, from multi-rank launchers, a prefix on every line saying which rank
wrote it (`[rank3]:`, `[default0]:`, `0: `, `[1,3]<stderr>:`). The parsers downstream only ever
see the cleaned text and the rank.

Big logs are read in chunks. A chunk in which no failure or environment keyword occurs is
counted and skipped without being split into lines; in the others, only windows around the
lines that carry a keyword are cleaned and handed on. That keeps a 200 MB log to seconds.
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections import deque
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from tracefix.logs.boxes import Unboxer

MAX_LINE = 8192            # characters kept of one line; the rest cannot help and may hurt regexes
CHUNK = 4 * 2**20          # bytes read at a time
FULL_BELOW = 2**20         # inputs smaller than this are read line by line in full
BEFORE, AFTER, BLOCK_AFTER = 25, 40, 800   # window (lines) kept around a keyword line

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)?|[@-Z\\-_])")
# `[80746] [rank0]:`, `host-1: [rank0]:`, `[default3]:`, `[1,3]<stdout>:`, `0: ` (srun -l / deepspeed)
_PREFIX = re.compile(
    r"^(?:\[\d+\]\s+|[\w.\-]{1,64}:\s+(?=\[(?:rank|default)\d))?\[(?:rank|default)(\d{1,6})\]:\s?"
    r"|^\[\d{1,6},(\d{1,6})\]<std(?:out|err)>:\s?"
    r"|^(\d{1,4}): "
)
# Stream and worker tags put before a rank prefix (or instead of one): `stderr: `, `[stderr] `,
# ray's `(RayTrainWorker pid=43515) ` / `(pid=81511, ip=10.0.0.1) `.
_STREAM = re.compile(r"^(?:\[std(?:err|out)\]:?|std(?:err|out):)(?: |$)|^\((?:[\w.\-]{1,64} )?pid=\d{1,9}(?:, ip=[\w.:\-]{1,64})?\)(?: |$)")
_STREAM_HEADS = ("stde", "stdo", "[std")
_BOX_BAR = "│".encode()   # in every line of a rich box: chunks without it skip the box rewriting
_PROGRESS = re.compile(r"\d%\|.*\|\s*\d+/\d+|\|\s*\d+/\d+\s*\[\d")
# Where a tqdm bar's `[00:57<1:22:40,  2.86s/it]` closes; before its first step the rate is `?it/s`.
_BAR_END = re.compile(r"[\d?](?:s/it|it/s)\]")
_BLOCK_KEYS = (
    b"NVIDIA-SMI", b"NVSMI LOG", b"Failed to initialize NVML", b"UUID: GPU-", b"memory.total", b"PyTorch version",
    b"Collecting environment information", b"packages in environment", b"Package    ", b"version: ",
    b"general environment info", b"op report", b"pip freeze", b"conda list", b"pip list", b"nvidia-smi",
)
# Words that mark a failure (or a fact about the run) near them. NCCL INFO lines are not among
# them on purpose: NCCL_DEBUG=INFO logs are mostly those, and the interesting ones say WARN.
_KEYS = (
    b"Traceback", b'File "', b"Error", b"error", b"ERROR", b"Exception", b"exception", b"WARN ", b"Killed", b"killed",
    b"SIGKILL", b"SIGTERM", b"SIGSEGV", b"SIGABRT", b"SIGBUS", b"Signal", b"signal", b"frame #", b"Segmentation",
    b"fault", b"FAILED", b"Failed", b"failed", b"exitcode", b"exit code", b"exit status", b"return code",
    b"Watchdog", b"watchdog", b"nvcc", b"ninja", b"==", b"what()", b"terminate called", b"Assertion", b"Aborted",
    b"core dumped", b"out of memory", b"nproc", b"num_processes", b"world_size", b"WORLD_SIZE", b"undefined symbol",
    b"shared object", b"[E", b"[F", b"bf16", b"BF16", b"bfloat16", b"CUDA error", b"CUDA Setup", b"compiled with CUDA",
    b"sm_", b"NCCL error", b"Bus error", b"bus error", "❱".encode(),   # rich's current-line marker, one per frame
)


def _trie(words: tuple[bytes, ...]) -> bytes:
    """A regex alternation shaped as a trie: the engine rejects most positions on one byte,
    where a flat `a|b|c...` of fifty words tries each of them at every position."""
    groups: dict[bytes, list[bytes]] = {}
    for w in words:
        groups.setdefault(w[:1], []).append(w[1:])
    parts = []
    for head, tails in sorted(groups.items()):
        esc = re.escape(head)
        if b"" in tails:
            parts.append(esc)
            tails = [t for t in tails if t]
        if tails:
            parts.append(esc + b"(?:" + _trie(tuple(tails)) + b")")
    return b"|".join(parts)


_TRIGGER = re.compile(_trie(_KEYS + _BLOCK_KEYS))
_BLOCK = re.compile(_trie(_BLOCK_KEYS))


class Line(NamedTuple):
    """One cleaned line. A NamedTuple, not a dataclass: millions are made for big logs."""

    no: int            # 1-based line number in the input
    rank: int | None   # the rank (or local rank) the launcher prefix names; None without one
    text: str          # the line without ANSI codes, carriage-return redraws or rank prefix
    focus: bool = True # near a failure keyword: the failure parsers read only these lines


def strip_ansi(text: str) -> str:
    """Remove colour and cursor escape sequences.

    >>> strip_ansi("\\x1b[31mRuntimeError\\x1b[0m: boom")
    'RuntimeError: boom'
    """
    return _ANSI.sub("", text) if "\x1b" in text else text


def split_rank(text: str, tags: bool = True) -> tuple[int | None, str]:
    """Take a launcher's rank prefix off a line (two when nested, as in `0: [rank0]: ...`), and
    a stream or worker tag before it (`stderr: `, `[stderr] `, `(RayTrainWorker pid=1) `)."""
    head = text[:1]
    m = _PREFIX.match(text) if head == "[" or head.isdigit() or "[rank" in text[:80] or "[default" in text[:80] else None
    if not m:
        # the tag test comes last: most prefixed lines are `[rankN]:` ones, and need not pay for it
        if tags and head in "s[(" and (text.startswith(_STREAM_HEADS) or (head == "(" and "pid=" in text[:80])):
            stream = _STREAM.match(text)
            if stream:
                return split_rank(text[stream.end():], tags=False)
        return None, text
    rank, text = int(m.group(m.lastindex)), text[m.end():]
    if text[:1] == "[":
        inner = _PREFIX.match(text)
        if inner:
            text = text[inner.end():]
    return rank, text


def clean(raw: str) -> tuple[int | None, str]:
    """The rank and cleaned text of one raw line (no newline)."""
    if len(raw) > MAX_LINE:
        raw = raw[:MAX_LINE]
    if "\x1b" in raw:
        raw = _ANSI.sub("", raw)
    if "\r" in raw:
        parts = [p for p in raw.split("\r") if p.strip()]
        raw = parts[-1] if parts else ""
    if "s/it]" in raw or "it/s]" in raw:
        raw = _after_progress(raw)
    return split_rank(raw.rstrip())


def _after_progress(raw: str) -> str:
    """A rank's error printed onto the end of another rank's progress bar (no newline between
    them, common in multi-rank pastes) is a line of its own; the bar stays noise."""
    end = _BAR_END.search(raw)
    if end and raw[end.end():].strip() and is_progress(raw[:end.end()]):
        return raw[end.end():]
    return raw


def is_caret_line(text: str) -> bool:
    """Python 3.11+ marks the failing expression under a frame's code with `^^^^`/`~~~~`: not text."""
    stripped = text.strip()
    return stripped[:1] in ("^", "~") and not stripped.strip("^~ ")


def is_progress(text: str) -> bool:
    """A tqdm-style progress bar: noise for matching, however many there are."""
    return ("it/s" in text or "s/it" in text or "%|" in text) and _PROGRESS.search(text) is not None


def chunks(stream, size: int = CHUNK) -> Iterator[bytes]:
    """Read a binary stream in pieces that end at a line break (except perhaps the last).

    A UTF-16 log (PowerShell's `>` writes one) is re-encoded as UTF-8 on the way. A line longer
    than a whole chunk is cut there, so memory stays bounded whatever the input.
    """
    decoder, rest, first = None, b"", True
    while True:
        data = stream.read(size)
        if first and data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) and data[2:400].count(0) * 4 >= len(data[2:400]):
            decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
        first = False
        if decoder is not None:
            data = decoder.decode(data, final=not data).encode("utf-8")
        if not data:
            if rest:
                yield rest
            return
        buf = rest + data
        cut = buf.rfind(b"\n")
        if cut < 0:
            rest = buf if len(buf) < size else b""
            if len(buf) >= size:
                yield buf + b"\n"
            continue
        rest = buf[cut + 1:]
        yield buf[: cut + 1]


class Scanner:
    """Cleaned lines from byte chunks, remembering what it saw on the way (lines, ranks)."""

    def __init__(self) -> None:
        self.lines_read = 0
        self.ranks: set[int] = set()
        self.focused = False          # True when whole chunks were skipped
        self._carry: deque[bytes] = deque(maxlen=BEFORE)
        self._emitted_to = 0
        self._owed = 0
        self._unbox = Unboxer().text   # rich traceback boxes -> plain traceback lines

    def lines(self, pieces: Iterable[bytes]) -> Iterator[Line]:
        it = iter(pieces)
        head: list[bytes] = []
        size = 0
        # A small input may still arrive in several pieces (a last line without "\n" is one).
        for piece in it:
            head.append(piece)
            size += len(piece)
            if size >= FULL_BELOW:
                break
        else:
            if head:
                yield from self._all(b"".join(head))
            return
        self.focused = True
        for chunk in itertools.chain(head, it):
            yield from self._focus(chunk)

    def _all(self, chunk: bytes) -> Iterator[Line]:
        """A small input: every line is cleaned (the excerpt is the whole log), but only the
        lines near a keyword are marked for the failure parsers, as in a big one."""
        texts = chunk.decode("utf-8", "replace").split("\n")
        if texts and texts[-1] == "":
            texts.pop()
        keep, _ = _windows(_hit_lines(chunk), len(texts), 0, 0)
        focus = set(keep)
        ranks = self.ranks
        unbox = self._unbox if _BOX_BAR in chunk else None
        for i, raw in enumerate(texts):
            rank, text = clean(raw)
            if rank is not None:
                ranks.add(rank)
            yield Line(i + 1, rank, unbox(text) if unbox else text, i in focus)
        self.lines_read = len(texts)

    def _focus(self, chunk: bytes) -> Iterator[Line]:
        base = self.lines_read
        hits = _hit_lines(chunk)
        if not self._owed and not hits:
            self.lines_read += chunk.count(b"\n") + (0 if chunk.endswith(b"\n") else 1)
            self._carry.extend(chunk.rsplit(b"\n", BEFORE + 1)[-BEFORE - 1:-1] if chunk.endswith(b"\n") else [])
            return
        raws = _split(chunk)
        self.lines_read += len(raws)
        lines = [*self._carry, *raws]
        keep, self._owed = _windows(hits, len(raws), len(self._carry), self._owed)
        start = base - len(self._carry)
        unbox = self._unbox if _BOX_BAR in chunk or any(_BOX_BAR in raw for raw in self._carry) else None
        for i in keep:
            no = start + i + 1
            if no > self._emitted_to:
                self._emitted_to = no
                rank, text = clean(lines[i][: MAX_LINE * 4].decode("utf-8", "replace"))
                if rank is not None:
                    self.ranks.add(rank)
                yield Line(no, rank, unbox(text) if unbox else text)
        self._carry.extend(raws[-BEFORE:])


def _split(chunk: bytes) -> list[bytes]:
    lines = chunk.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _hit_lines(chunk: bytes) -> list[tuple[int, bool]]:
    """(line index, opens an environment block) for each line of the chunk with a keyword.

    The chunk is searched as a whole, in C; Python only sees the hits, never the quiet lines.
    """
    hits: list[tuple[int, bool]] = []
    pos = idx = 0
    for m in _TRIGGER.finditer(chunk):
        idx += chunk.count(b"\n", pos, m.start())
        pos = m.start()
        block = _BLOCK.match(chunk, pos) is not None
        if hits and hits[-1][0] == idx:
            if block and not hits[-1][1]:
                hits[-1] = (idx, True)
            continue
        hits.append((idx, block))
    return hits


def _windows(hits: list[tuple[int, bool]], count: int, offset: int, owed: int) -> tuple[list[int], int]:
    """Indexes (into carry + raws) of the lines near a keyword, in order, and how many lines of
    the next chunk are still owed to a window that runs past this one."""
    last = count + offset - 1
    upto = offset + owed - 1 if owed else -1
    keep = list(range(offset, min(upto, last) + 1))
    for i, block in hits:
        j = i + offset
        hi = j + (BLOCK_AFTER if block else AFTER)
        if hi > upto:
            keep.extend(range(max(j - BEFORE, upto + 1, 0), min(hi, last) + 1))
            upto = hi
    return keep, max(0, upto - last)
