"""The terminal, while a wrapped command runs: the command's process group is the foreground one.

The command runs in its own process group, so that a signal the wrapper forwards reaches the
whole job (torchrun and its workers) once. At a terminal that group is made the foreground group,
as a shell does for a job: Ctrl-C then goes straight to the job (and not also to the wrapper, which
would forward it a second time), and the job can still read the terminal (a `breakpoint()`).
Ctrl-Z stops the job; the wrapper then stops too, so the shell gets the terminal back, and `fg`
continues both.
"""

from __future__ import annotations

import os
import signal


class Foreground:
    """Gives the terminal on `fd` to a process group and takes it back (no-op when not ours to give)."""

    def __init__(self, fd: int = 0):
        self.fd = fd if _owned(fd) else None

    def give(self, pgid: int) -> None:
        _set_foreground(self.fd, pgid)

    def take_back(self) -> None:
        _set_foreground(self.fd, os.getpgrp())

    def follow_stop(self, pid: int) -> None:
        """When the job was stopped (Ctrl-Z), stop here too; when continued, continue the job."""
        stop = _stop_signal(pid) if self.fd is not None else None
        if stop is None:
            return
        if stop in (signal.SIGTTIN, signal.SIGTTOU):
            # It touched the terminal in the instant before it was given the foreground: it has it now.
            _continue(pid)
            return
        self.take_back()
        os.kill(os.getpid(), signal.SIGSTOP)   # the shell sees the job stopped; `fg` sends SIGCONT
        self.give(pid)
        _continue(pid)


def _continue(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGCONT)
    except ProcessLookupError:
        pass


def _owned(fd: int) -> bool:
    try:
        return os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False


def _set_foreground(fd: int | None, pgid: int) -> None:
    if fd is None:
        return
    # A background group that sets the terminal's foreground gets SIGTTOU (stop) unless it ignores it.
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(fd, pgid)
    except OSError:
        pass
    finally:
        signal.signal(signal.SIGTTOU, previous)


def _stop_signal(pid: int) -> int | None:
    """The signal that stopped the job since the last look, if it was stopped."""
    try:
        info = os.waitid(os.P_PID, pid, os.WSTOPPED | os.WNOHANG)
    except ChildProcessError:
        return None
    return info.si_status if info is not None and info.si_code == os.CLD_STOPPED else None
