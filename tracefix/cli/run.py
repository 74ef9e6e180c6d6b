"""`tracefix run [--json FILE] [--top N] -- CMD [ARGS...]`: run a job; when it fails, say why.

The command runs as it is (output relayed unchanged, signals forwarded, its exit status kept).
A successful command gets no extra output. A failed one gets, after its own output, the report of
`tracefix < log` on stderr, read from the captured output, the torchelastic error file and the
environment the command ran in. A job stopped from outside (Ctrl-C, a forwarded SIGTERM) gets no
report: its log holds no failure of its own.
"""

from __future__ import annotations

import signal
import sys

import click

from tracefix.cli.common import db_option

EXIT_NOT_FOUND, EXIT_NOT_RUNNABLE = 127, 126   # as a shell reports them


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--json", "json_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="On failure, also write the JSON object (as `tracefix --json`) to FILE.")
@click.option("--top", default=3, show_default=True, type=click.IntRange(1, 50), help="How many matches to show.")
@click.option("--model", envvar="TRACEFIX_MODEL", help="Local sentence-transformers model folder.")
@db_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(json_path, top, model, db, command) -> None:
    """Run CMD; if it fails, print the known issue behind it (tracefix run -- torchrun ... train.py)."""
    from tracefix.capture import elastic, relay
    from tracefix.capture.buffer import CaptureBuffer

    command = list(command)
    env = relay.child_environment()
    error_file = elastic.prepare(env)
    buffer = CaptureBuffer()
    try:
        outcome = _run(command, env, buffer)
        if outcome.exit_status != 0:
            _after_failure(command, env, outcome, buffer, error_file, top, json_path, db, model)
    finally:
        error_file.remove()
    sys.exit(outcome.exit_status)


def _run(command, env, buffer):
    from tracefix.capture import relay

    try:
        return relay.run(command, env, buffer)
    except FileNotFoundError:
        click.echo(f"Error: command not found: {command[0]}", err=True)
        sys.exit(EXIT_NOT_FOUND)
    except OSError as e:
        click.echo(f"Error: cannot run {command[0]}: {e.strerror or e}", err=True)
        sys.exit(EXIT_NOT_RUNNABLE)


def _after_failure(command, env, outcome, buffer, error_file, top, json_path, db, model) -> None:
    from tracefix.capture.report import describe_signal, failure_log, report
    from tracefix.errors import TracefixError
    from tracefix.settings import Settings

    if outcome.signal == signal.SIGPIPE:     # its reader went away (`| head`): not a failure
        return
    stopped = outcome.forwarded or (signal.SIGINT if outcome.signal == signal.SIGINT else None)
    if stopped:
        click.echo(f"\ntracefix: the command was stopped by signal {describe_signal(stopped)}; no report.", err=True)
        return
    log = failure_log(buffer.text(), error_file.read(), outcome, command)
    try:
        report(log, command, env, outcome, Settings.resolve(db, model), top, json_path)
    except (TracefixError, OSError) as e:
        click.echo(f"tracefix: no report: {e}", err=True)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
