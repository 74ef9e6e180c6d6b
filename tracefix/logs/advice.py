"""What to do when a log holds only a launcher's summary: where the real error is, how to get it.

torchrun's `ChildFailedError` table (or deepspeed's "exits with return code = 1") says which rank
failed, not why: the worker's own traceback went to that worker's output, which the pasted log
does not contain. No record can be matched on that; the useful answer is how to capture the
rank's output. Exits by a signal (SIGKILL -9, SIGSEGV...) have records of their own and get no
advice here.

Options named below are those of torchrun (`torch/distributed/run.py`: `--log-dir`, `-r/--redirects`,
`-t/--tee`), `torch.distributed.elastic.multiprocessing.errors.record` (writes the exception to
`TORCHELASTIC_ERROR_FILE`, which the agent sets for each worker and reads back), `accelerate launch`
(`--tee`, `--log_dir`, `--debug`) and the deepspeed launcher (`--enable_each_rank_log DIR`).
"""

from __future__ import annotations

from tracefix.logs.report import LauncherSeen, LogReport

MAX_NAMED = 4     # ranks / hosts named in the text; the rest are counted


def launcher_advice(report: LogReport) -> tuple[str, ...]:
    """Short paragraphs for a launcher-only log; empty for any other log."""
    seen = report.launcher
    if seen is None or not seen.only:
        return ()
    lines = [_what_was_seen(seen)]
    if seen.error_files:
        lines.append(f"The worker wrote its error to {seen.error_files[0]} (on the host that ran it): "
                     "that file holds the exception and its traceback.")
    lines += _how_to_capture(seen)
    return tuple(lines)


def _what_was_seen(seen: LauncherSeen) -> str:
    if seen.launcher == "subprocess":
        return ("Only a wrapper's error is in this log: the command it started failed, and that command's own "
                "error (its first 'Traceback') is printed before this one. Paste the output from there.")
    who = _ranks(seen.ranks) + _on(seen.hosts)
    code = f" with exit code {seen.exitcode}" if seen.exitcode is not None else ""
    its = "their own errors are" if len(seen.ranks) > 1 else "its own error is"
    return (f"Only the launcher's summary is in this log: {who or 'a worker'} exited{code} and {its} "
            f"not shown. The real error is in the failing rank's own output (stderr), which is not in this log.")


def _how_to_capture(seen: LauncherSeen) -> list[str]:
    rank = f"rank {seen.ranks[0]}" if seen.ranks else "the failing rank"   # the launcher's first failure
    record = ("Or decorate the script's main function with @record (from torch.distributed.elastic.multiprocessing"
              ".errors import record): the worker then writes its exception to the file named by "
              "TORCHELASTIC_ERROR_FILE, and the launcher shows it in this summary.")
    if seen.launcher == "subprocess":
        return []
    if seen.launcher == "deepspeed":
        return [f"Re-run with `deepspeed --enable_each_rank_log DIR ...` to keep each rank's stdout and stderr "
                f"in its own file under DIR, then read {rank}'s."]
    if seen.launcher == "accelerate":
        return [f"Re-run with `accelerate launch --tee 3 --log_dir DIR ...` to keep each rank's output under DIR "
                f"(`--debug` also prints the torch.distributed stack trace), then read {rank}'s stderr.", record]
    if seen.launcher == "torchrun":
        return [f"Re-run with `torchrun --redirects 3 --tee 3 --log-dir DIR ...`: each rank's stdout and stderr "
                f"go to files under DIR (and still to the console); read {rank}'s stderr.", record]
    return [f"Re-run with each rank's output kept (one file per rank), then read {rank}'s stderr."]


def _ranks(ranks: tuple[int, ...]) -> str:
    if not ranks:
        return ""
    named = ", ".join(str(r) for r in ranks[:MAX_NAMED])
    more = f" and {len(ranks) - MAX_NAMED} more" if len(ranks) > MAX_NAMED else ""
    return f"rank {named}" if len(ranks) == 1 else f"ranks {named}{more}"


def _on(hosts: tuple[str, ...]) -> str:
    if not hosts:
        return ""
    return f" on host {hosts[0]}" if len(hosts) == 1 else f" on hosts {', '.join(hosts[:MAX_NAMED])}"
