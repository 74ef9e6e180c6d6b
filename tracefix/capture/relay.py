"""Run a command as it is, relaying its output byte for byte while a bounded copy is kept.

Each of the command's stdout and stderr gets its own channel, read with `os.read` in a selector
loop and written straight to our fd 1 / fd 2, so bytes, their order within a stream and the
separation of the two streams are unchanged. The channel is a pseudo-terminal when our own stream
is a terminal, else a pipe: the command sees what it would see without the wrapper (colours and
progress bars at a terminal, none in a log file). A pipe makes Python block-buffer stdout, so
`PYTHONUNBUFFERED=1` is set unless the user set it: output then arrives when it is written.

Signals: SIGINT, SIGTERM and SIGHUP sent to the wrapper are forwarded to the command's process
group (see `terminal` for why it has its own group and how Ctrl-C reaches it exactly once).
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import selectors
import signal
import subprocess
import sys
import termios
import time
import tty
from dataclasses import dataclass

from tracefix.capture.buffer import CaptureBuffer
from tracefix.capture.terminal import Foreground

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
CHUNK = 64 * 1024
DRAIN_QUIET_SECONDS = 1.0    # after the command exits, output still held by its children...
DRAIN_MAX_SECONDS = 10.0     # ...is read until quiet, or at most this long


@dataclass
class Outcome:
    returncode: int            # the command's exit code, or -N for death by signal N
    forwarded: int | None      # a signal the wrapper passed on (the job was stopped from outside)

    @property
    def signal(self) -> int | None:
        return -self.returncode if self.returncode < 0 else None

    @property
    def exit_status(self) -> int:
        """As a shell reports it: the exit code, or 128 + N."""
        return 128 + self.signal if self.signal else self.returncode


class _Channel:
    """One output stream of the command: the end it writes to and the end we read."""

    def __init__(self, our_fd: int):
        self.our_fd, self.relaying = our_fd, True
        if os.isatty(our_fd):
            self.read_fd, self.child_fd = os.openpty()
            tty.setraw(self.child_fd)            # no \n -> \r\n: bytes pass unchanged, our terminal does that
            copy_window_size(our_fd, self.child_fd)
        else:
            self.read_fd, self.child_fd = os.pipe()

    def relay(self, data: bytes) -> None:
        """Write to our stream; when that is closed (`| head`), `relaying` turns False."""
        view = memoryview(data)
        while self.relaying and view:
            try:
                view = view[os.write(self.our_fd, view):]
            except BrokenPipeError:
                self.relaying = False
            except BlockingIOError:       # our stream is non-blocking: wait until it takes more
                select.select([], [self.our_fd], [])
            except OSError as e:
                if e.errno != errno.EINTR:
                    self.relaying = False


def copy_window_size(source_fd: int, target_fd: int) -> None:
    try:
        size = fcntl.ioctl(source_fd, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(target_fd, termios.TIOCSWINSZ, size)
    except OSError:
        pass


def child_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run(command: list[str], env: dict[str, str], buffer: CaptureBuffer) -> Outcome:
    """Run `command`, relay and capture its output, return how it ended. Raises OSError when it cannot start."""
    channels = {"stdout": _Channel(1), "stderr": _Channel(2)}
    foreground = Foreground(0)
    job: dict[str, int] = {}          # the command's pid (= its process group) once started
    forwarded: list[int] = []
    previous = _forward_signals(job, forwarded, channels)   # before the start: no signal is lost
    try:
        try:
            child = _start(command, env, channels)
        finally:
            for ch in channels.values():
                os.close(ch.child_fd)
        early = list(forwarded)       # arrived while it was starting
        job["pid"] = child.pid
        for signum in early:
            _signal_group(child.pid, signum)
        foreground.give(child.pid)
        _pump(child, channels, buffer, foreground)
        returncode = child.wait()
    finally:
        foreground.take_back()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    buffer.flush()
    return Outcome(returncode, forwarded[-1] if forwarded else None)


def _start(command: list[str], env: dict[str, str], channels: dict[str, _Channel]) -> subprocess.Popen:
    group = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
    try:
        return subprocess.Popen(command, stdout=channels["stdout"].child_fd, stderr=channels["stderr"].child_fd,
                                env=env, **group)
    except BaseException:
        for ch in channels.values():
            os.close(ch.read_fd)
        raise


def _forward_signals(job: dict[str, int], forwarded: list[int], channels: dict[str, _Channel]) -> dict:
    def forward(signum, _frame):
        forwarded.append(signum)
        if "pid" in job:
            _signal_group(job["pid"], signum)

    def resize(_signum, _frame):
        for ch in channels.values():
            if os.isatty(ch.our_fd) and os.isatty(ch.read_fd):
                copy_window_size(ch.our_fd, ch.read_fd)

    previous = {s: signal.signal(s, forward) for s in FORWARDED}
    previous[signal.SIGWINCH] = signal.signal(signal.SIGWINCH, resize)
    return previous


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


def _pump(child: subprocess.Popen, channels: dict[str, _Channel], buffer: CaptureBuffer,
          foreground: Foreground) -> None:
    """Relay until both streams end (or, once the command exited, until they go quiet)."""
    selector = selectors.DefaultSelector()
    for name, ch in channels.items():
        selector.register(ch.read_fd, selectors.EVENT_READ, (name, ch))
    exited_at = last_data = None
    try:
        while selector.get_map():
            for key, _ in selector.select(timeout=0.2):
                name, ch = key.data
                data = _read(ch.read_fd)
                if data:
                    ch.relay(data)
                    buffer.feed(name, data)
                if not data or not ch.relaying:   # its end, or ours closed (`| head`): the job sees a closed pipe too
                    selector.unregister(ch.read_fd)
                    os.close(ch.read_fd)
                    continue
                last_data = time.monotonic()
            foreground.follow_stop(child.pid)
            if exited_at is None and child.poll() is not None:
                exited_at = time.monotonic()
            if exited_at is not None and _drained(exited_at, last_data):
                break
    finally:
        for key in list(selector.get_map().values()):
            os.close(key.fd)
        selector.close()


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, CHUNK)
    except OSError as e:
        if e.errno == errno.EIO:    # a pseudo-terminal whose writers all closed: its end of file
            return b""
        raise


def _drained(exited_at: float, last_data: float | None) -> bool:
    now = time.monotonic()
    quiet_since = max(exited_at, last_data or exited_at)
    return now - quiet_since > DRAIN_QUIET_SECONDS or now - exited_at > DRAIN_MAX_SECONDS
