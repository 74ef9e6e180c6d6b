"""What torchrun, deepspeed, accelerate and mpirun say about their workers when a job dies.

A launcher is the one witness that knows which rank failed first: torchrun's `ChildFailedError`
table has a "Root Cause (first observed failure)" entry, the elastic agent logs `failed
(exitcode: -9) local_rank: 0`, deepspeed's `sigkill_handler` logs the first child's return code.
Everything the launcher did afterwards (SIGTERM to the other ranks) is noise: those ranks did
not fail, they were stopped. It also tells how many processes there were.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass, replace

from tracefix.logs.clean import Line
from tracefix.logs.report import Failure, LauncherSeen, make_failure

_ELASTIC_FAILED = re.compile(r"failed \(exitcode: (-?\d{1,4})\)(?: local_rank: (\d{1,6}))?(?: \(pid: (\d{1,9})\))?")
_DS_EXIT = re.compile(r"exits with return code = (-?\d{1,4})")
_DS_RANK = re.compile(r"--local_rank=(\d{1,6})")
_MPI = re.compile(r"process rank (\d{1,6}) with PID \d{1,9} on node \S{1,200} exited on signal (\d{1,3})")
_SIGTERM_SENT = re.compile(r"Sending process (\d{1,9}) closing signal SIGTERM")
_FIELD = re.compile(r"^\s*(rank|exitcode|traceback|host|time|error_file)\s*: ?(.{0,1000})$")
_RANK_FIELD = re.compile(r"^(\d{1,6})(?: \(local_rank: (\d{1,6})\))?")
_EXIT_FIELD = re.compile(r"^(-?\d{1,4})(?: \(pid: (\d{1,9})\))?")
_PER_NODE = (
    re.compile(r"--nproc[_-]per[_-]node[= ](\d{1,5})"), re.compile(r"--num_gpus[= ](\d{1,5})"),
)
_GLOBAL = (
    re.compile(r"--num[_-]processes[= ](\d{1,5})"), re.compile(r"\bdist_world_size=(\d{1,6})"),
    re.compile(r"\bWORLD_SIZE=(\d{1,6})"), re.compile(r"global_world_sizes=\[(\d{1,6})"),
    re.compile(r"\bworld[_ ]size[=:] ?(\d{1,6})"),
)
_NNODES = re.compile(r"--nnodes[= ](\d{1,4})\b(?!:)")
_WORLD_HINTS = ("nproc", "num_processes", "num-processes", "num_gpus", "world", "WORLD", "nnodes")


def signal_name(exitcode: int | None) -> str | None:
    """`-9` -> `SIGKILL`: a negative exit code is the signal that ended the process."""
    if exitcode is None or exitcode >= 0:
        return None
    try:
        return signal.Signals(-exitcode).name
    except ValueError:
        return f"signal {-exitcode}"


_KIND_BY_SIGNAL = {"SIGKILL": "killed", "SIGSEGV": "segfault", "SIGBUS": "bus-error", "SIGABRT": "abort"}


@dataclass(frozen=True)
class RankExit:
    """One worker's end as the launcher reported it."""

    rank: int | None          # global rank if given, else the local rank
    exitcode: int | None
    pid: int | None
    signal: str | None        # "SIGKILL" for -9, "SIGTERM" for -15...
    root: bool                # the launcher named this the first observed failure
    line_no: int
    detail: str               # the launcher's words, e.g. "Signal 9 (SIGKILL) received by PID 1236"
    host: str | None = None
    error_file: str | None = None   # torchrun's per-rank error file, when the worker wrote one
    launcher: str = "torchrun"      # which launcher said it: torchrun | deepspeed | mpirun


@dataclass(frozen=True)
class Summary:
    """What the launcher(s) in a log said, all fields "could not tell" = None / empty."""

    exits: tuple[RankExit, ...]
    terminated_pids: frozenset[int]     # processes the launcher sent SIGTERM to
    world_size: int | None              # from --nproc_per_node, WORLD_SIZE, dist_world_size...

    @property
    def root(self) -> RankExit | None:
        """The first failing worker: the launcher's own root cause, else the first non-SIGTERM exit."""
        named = [e for e in self.exits if e.root]
        others = [e for e in self.exits if e.signal != "SIGTERM" and e.exitcode not in (None, 0)]
        return (named or others or [None])[0]

    def failures(self) -> list[Failure]:
        """Launcher failures: a killed root is a real failure; other exits are noise."""
        root = self.root
        out = []
        for e in self.exits:
            kind = _KIND_BY_SIGNAL.get(e.signal or "", "launcher")
            noise = None
            if e.signal == "SIGTERM" or (e.pid in self.terminated_pids and e is not root):
                noise = "stopped by the launcher (SIGTERM) after another rank failed"
            elif kind == "launcher":
                noise = "launcher summary; the rank's own error is the root"
            message = e.detail or f"exitcode {e.exitcode}" + (f" ({e.signal})" if e.signal else "")
            out.append(make_failure(kind=kind, exception=None, message=message, frames=(), rank=e.rank,
                                    line_no=e.line_no, noise=noise))
        return out


class Collector:
    """Feeds on cleaned lines and remembers the launcher's statements."""

    def __init__(self) -> None:
        self._exits: list[RankExit] = []
        self._pids: set[int] = set()
        self._global: int | None = None
        self._per_node: int | None = None
        self._nnodes: int | None = None
        self._section: str | None = None     # "failures" | "root" inside a ChildFailedError table
        self._entry: dict[str, str] = {}
        self._entry_line = 0

    def feed(self, line: Line) -> None:
        text = line.text
        if self._section is not None and self._table(line, text):
            return
        if "Root Cause (first observed failure)" in text or text.strip() in ("Failures:", "Root Cause:"):
            self._section = "root" if "Root Cause" in text else "failures"
        elif "rank" in text and "(local_rank:" in text and _FIELD.match(text):
            self._section = "failures"     # a table pasted without its heading
            self._table(line, text)
        elif "exitcode" in text and "failed (" in text:
            self._elastic(line, text)
        elif "return code" in text:
            self._deepspeed(line, text)
        elif "SIGTERM" in text and "Sending process" in text:
            self._pids.update(int(p) for p in _SIGTERM_SENT.findall(text))
        elif "exited on signal" in text:
            self._mpirun(line, text)
        if any(h in text for h in _WORLD_HINTS) and "Error" not in text and "`" not in text:
            self._world_size(text)

    def finish(self) -> Summary:
        self._flush()
        world = self._global or (self._per_node * (self._nnodes or 1) if self._per_node else None)
        return Summary(tuple(self._exits), frozenset(self._pids), world)

    def gap(self) -> None:
        self._flush()
        self._section = None

    # -- the forms -------------------------------------------------------------------------

    def _table(self, line: Line, text: str) -> bool:
        """One line of torchrun's failure table; False once the table is over."""
        m = _FIELD.match(text)
        if m:
            if m.group(1) == "time" or (m.group(1) == "rank" and "rank" in self._entry):
                self._flush()
            if not self._entry:
                self._entry_line = line.no
            self._entry[m.group(1)] = m.group(2).strip()
            return True
        stripped = text.strip()
        if re.fullmatch(r"\[\d{1,6}\]:|[-=]{3,}|error_file\s*:.*|.*FAILED|Failures:|<NO_OTHER_FAILURES>", stripped) \
                or "Root Cause" in stripped or not stripped:
            if stripped.startswith(("=", "Root Cause", "[")) or stripped == "Failures:":
                self._flush()
            if "Root Cause" in stripped:
                self._section = "root"
            return True
        self._flush()
        self._section = None
        return False

    def _flush(self) -> None:
        entry, self._entry = self._entry, {}
        if not entry or ("rank" not in entry and "exitcode" not in entry):
            return
        rank = _RANK_FIELD.match(entry.get("rank", ""))
        code = _EXIT_FIELD.match(entry.get("exitcode", ""))
        exitcode = int(code.group(1)) if code else None
        pid = int(code.group(2)) if code and code.group(2) else None
        detail = entry.get("traceback", "")
        detail = detail if "Signal" in detail else f"exitcode: {entry.get('exitcode', '?')}" + (
            f" ({signal_name(exitcode)})" if signal_name(exitcode) else "")
        error_file = entry.get("error_file", "").strip()
        self._add(RankExit(int(rank.group(1)) if rank else None, exitcode, pid, signal_name(exitcode),
                           self._section == "root", self._entry_line, detail, host=entry.get("host") or None,
                           error_file=error_file if error_file and error_file != "<N/A>" else None))

    def _add(self, exit_: RankExit) -> None:
        for i, e in enumerate(self._exits):
            if (e.root and e.rank is None and exit_.rank is not None and e.exitcode == exit_.exitcode
                    and e.launcher == exit_.launcher):
                self._exits[i] = replace(exit_, root=True)   # a title restating the exit, then the launcher's line
                return
        if not any((e.rank, e.exitcode, e.pid) == (exit_.rank, exit_.exitcode, exit_.pid) and e.root == exit_.root
                   for e in self._exits):
            self._exits.append(exit_)

    def _elastic(self, line: Line, text: str) -> None:
        m = _ELASTIC_FAILED.search(text)
        if m:
            code = int(m.group(1))
            first = not any(e.root for e in self._exits)
            self._add(RankExit(int(m.group(2)) if m.group(2) else None, code, int(m.group(3)) if m.group(3) else None,
                               signal_name(code), first, line.no, m.group(0)))

    def _deepspeed(self, line: Line, text: str) -> None:
        m = _DS_EXIT.search(text)
        if m:
            code, rank = int(m.group(1)), _DS_RANK.search(text)
            first = not any(e.root for e in self._exits)
            self._add(RankExit(int(rank.group(1)) if rank else None, code, None, signal_name(code), first, line.no,
                               m.group(0) + (f" ({signal_name(code)})" if signal_name(code) else ""),
                               launcher="deepspeed"))

    def _mpirun(self, line: Line, text: str) -> None:
        m = _MPI.search(text)
        if m:
            code = -int(m.group(2))
            self._add(RankExit(int(m.group(1)), code, None, signal_name(code), True, line.no, m.group(0),
                               launcher="mpirun"))

    def _world_size(self, text: str) -> None:
        for patterns, attr in ((_GLOBAL, "_global"), (_PER_NODE, "_per_node")):
            for pattern in patterns:
                m = pattern.search(text)
                if m and int(m.group(1)) > 0:
                    setattr(self, attr, max(getattr(self, attr) or 0, int(m.group(1))))
        m = _NNODES.search(text)
        if m:
            self._nnodes = int(m.group(1))


_FATAL_SIGNALS = frozenset(_KIND_BY_SIGNAL)


def _tier(f: Failure) -> int:
    """Lower is more likely the root: errors, then warnings, then launcher lines, then cut-off traces."""
    if not f.complete:
        return 3
    if f.kind == "launcher":
        return 2
    return 1 if f.severity == "warning" else 0


def choose_root(failures: list[Failure], summary: Summary) -> tuple[Failure | None, int | None]:
    """The root cause and its rank.

    The launcher's first failing rank decides when it is known: that rank's earliest error, or,
    when it was killed by a signal without printing an error (the OOM killer's SIGKILL), the kill
    itself. Otherwise the earliest real error wins; noise (SIGTERM victims, ignored exceptions,
    launcher wrappers) is only chosen when there is nothing else.
    """
    first = summary.root
    rank = first.rank if first else None
    if not failures:
        return None, rank
    real = [f for f in failures if f.noise is None] or list(failures)
    if first is not None and rank is not None:
        mine = [f for f in real if rank in f.ranks and _tier(f) == 0 and f.kind != first_kind(first)]
        if not mine and first.signal in _FATAL_SIGNALS:
            mine = [f for f in real if f.line_no == first.line_no]
        if mine:
            return _on_rank(min(mine, key=lambda f: f.line_no), rank), rank
    if first is not None and first.signal in _FATAL_SIGNALS and not any(_tier(f) == 0 and f.kind == "python" for f in real):
        killed = [f for f in real if f.line_no == first.line_no]
        if killed:
            return killed[0], rank
    root = min(real, key=lambda f: (_tier(f), f.line_no))
    if root.noise and first is not None:
        # only the launcher's words: its own first failure, not the first entry printed, is the root
        named = [f for f in real if f.kind == "launcher" and f.line_no == first.line_no]
        if root.kind == "launcher" and named:
            root = named[0]
        return root, rank if rank is not None else root.rank
    return root, root.rank if root.rank is not None else rank


def first_kind(exit_: RankExit) -> str:
    return _KIND_BY_SIGNAL.get(exit_.signal or "", "launcher")


def _on_rank(f: Failure, rank: int) -> Failure:
    return f if f.rank == rank else replace(f, rank=rank)


_WRAPPERS = {"ChildFailedError": "torchrun", "CalledProcessError": "subprocess"}


def seen(summary: Summary, root: Failure | None, failures: tuple[Failure, ...],
         packages: tuple[str, ...]) -> LauncherSeen | None:
    """What the launcher said, and whether that is all the log says (no failing rank's own error)."""
    wrapper = _WRAPPERS.get((root.exception or "").rsplit(".", 1)[-1]) if root and root.noise else None
    if not summary.exits and wrapper is None:
        return None
    failed = [e for e in summary.exits if e.signal != "SIGTERM" and e.exitcode not in (None, 0)]
    first = summary.root
    if first in failed:
        failed.remove(first)
        failed.insert(0, first)
    name = "accelerate" if "accelerate" in packages else (first.launcher if first else wrapper or "torchrun")
    launcher_only = (root is not None and root.noise is not None and (root.kind == "launcher" or wrapper is not None)
                     and all(f.noise for f in failures) and (first is None or first.signal is None))
    return LauncherSeen(
        launcher=name,
        ranks=tuple(dict.fromkeys(e.rank for e in failed if e.rank is not None)),
        hosts=tuple(dict.fromkeys(e.host for e in failed if e.host)),
        exitcode=first.exitcode if first else None,
        signal=first.signal if first else None,
        error_files=tuple(dict.fromkeys(e.error_file for e in failed if e.error_file)),
        only=launcher_only,
    )
