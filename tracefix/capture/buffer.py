"""A bounded copy of a command's output: what the log reader needs, never the whole output.

Two parts: the last `TAIL_BYTES` of output (where a failure usually ends up), and "failure
regions": the lines around the first `MAX_REGIONS` error-looking lines (a traceback header, an
`...Error`, `NCCL WARN`, a launcher's `FAILED`...), kept even after they left the tail, because the
root cause is often printed long before a job finally dies. Work is per chunk, not per line (one
`rfind` and one regex scan over each chunk), so relaying 1 GB stays cheap.

Stdout and stderr are kept apart until the end; each chunk is cut at its last newline so that the
streams interleave by whole lines, in the order they arrived.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

TAIL_BYTES = 4 * 2**20
BEFORE_BYTES = 16 * 1024       # context kept before an error line (the traceback's frames)
AFTER_BYTES = 48 * 1024        # and after it (the rest of a traceback, other ranks' lines)
MAX_REGION_BYTES = 256 * 1024
MAX_REGIONS = 32
MAX_LINE_BYTES = 64 * 1024     # a longer line without a newline (a progress bar redrawn with \r) is cut

_TRIGGER = re.compile(rb"Traceback \(most recent call last\)|Error|Exception|NCCL WARN|FAILED|Killed"
                      rb"|Segmentation fault|core dumped|Aborted|exitcode|[Ss]ignal \d+")


@dataclass
class _Region:
    first_seq: int
    last_seq: int = -1
    parts: list[bytes] = field(default_factory=list)
    size: int = 0
    remaining: int = AFTER_BYTES

    def add(self, seq: int, piece: bytes) -> None:
        if piece:
            self.parts.append(piece)
            self.size += len(piece)
            self.last_seq = seq


@dataclass
class _Stream:
    carry: bytes = b""               # a line not finished yet
    before: bytes = b""              # the last BEFORE_BYTES of finished lines
    open: _Region | None = None      # the region still taking lines


class CaptureBuffer:
    """Feed it chunks as they arrive (`feed`), then `flush()` and read `text()`."""

    def __init__(self) -> None:
        self._seq = 0
        self._tail: deque[tuple[int, bytes]] = deque()
        self._tail_size = 0
        self._regions: list[_Region] = []
        self._streams: dict[str, _Stream] = {}
        self.total_bytes = 0

    def feed(self, stream: str, data: bytes) -> None:
        self.total_bytes += len(data)
        state = self._streams.setdefault(stream, _Stream())
        data = state.carry + data
        cut = data.rfind(b"\n") + 1
        lines, state.carry = data[:cut], data[cut:]
        if len(state.carry) > MAX_LINE_BYTES:
            lines, state.carry = lines + state.carry[:MAX_LINE_BYTES] + b"\n", b""
        self._take(state, lines)

    def flush(self) -> None:
        """The output ended: unfinished lines count as lines."""
        for state in self._streams.values():
            if state.carry:
                self._take(state, state.carry + b"\n")
                state.carry = b""

    def text(self) -> bytes:
        """Regions that fell out of the tail, in order, then the tail; a blank line marks each gap."""
        tail_start = self._tail[0][0] if self._tail else self._seq
        earlier = [b"".join(r.parts) for r in self._regions if r.parts and r.last_seq < tail_start]
        tail = b"".join(chunk for _, chunk in self._tail)
        if tail_start == 0:
            return tail
        return b"\n".join([*earlier, tail])

    def _take(self, state: _Stream, lines: bytes) -> None:
        if not lines:
            return
        seq = self._seq
        self._seq += 1
        self._tail.append((seq, lines))
        self._tail_size += len(lines)
        while self._tail_size - len(self._tail[0][1]) >= TAIL_BYTES:
            self._tail_size -= len(self._tail.popleft()[1])
        self._watch(state, seq, lines)
        state.before = (state.before + lines)[-BEFORE_BYTES:]

    def _watch(self, state: _Stream, seq: int, lines: bytes) -> None:
        """Continue the open region, then open new ones at error-looking lines."""
        pos = self._continue(state, seq, lines, 0) if state.open else 0
        while state.open is None and pos < len(lines) and len(self._regions) < MAX_REGIONS:
            hit = _TRIGGER.search(lines, pos)
            if hit is None:
                return
            start = lines.rfind(b"\n", 0, hit.start()) + 1
            region = _Region(first_seq=seq)
            region.add(seq, _whole_lines((state.before if pos == 0 else b"") + lines[pos:start], BEFORE_BYTES))
            self._regions.append(region)
            state.open = region
            pos = self._continue(state, seq, lines, start)

    def _continue(self, state: _Stream, seq: int, lines: bytes, pos: int) -> int:
        """Add lines to the open region from `pos`; returns where it stopped."""
        region = state.open
        while pos < len(lines) and region.remaining > 0:
            end = _line_end(lines, pos + region.remaining)
            piece = lines[pos:end]
            region.add(seq, piece)
            region.remaining -= len(piece)
            if region.size < MAX_REGION_BYTES and _TRIGGER.search(piece):
                region.remaining = AFTER_BYTES   # the error goes on: keep following it
            pos = end
        if region.remaining <= 0 or region.size >= MAX_REGION_BYTES:
            state.open = None
        return pos


def _line_end(data: bytes, at: int) -> int:
    """The index just after the line that holds position `at` (data ends with a newline)."""
    if at >= len(data):
        return len(data)
    return data.find(b"\n", at) + 1 or len(data)


def _whole_lines(data: bytes, limit: int) -> bytes:
    """The last `limit` bytes of data, without a cut first line."""
    if len(data) <= limit:
        return data
    data = data[-limit:]
    return data[data.find(b"\n") + 1:]
