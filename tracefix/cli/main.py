"""The `tracefix` command. `tracefix [LOGFILE]` (no sub-command) matches a log; the rest are groups.

Imports stay inside the commands: the match path must start fast.
"""

from __future__ import annotations

import os
import sys

import click

from tracefix import __version__


class DefaultGroup(click.Group):
    """A group whose default command is `match`, as `sqlite-utils data.db "select"` runs `query`."""

    default_command = "match"
    chosen: str | None = None  # the sub-command this run invokes

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = [self.default_command, *args]
        self.chosen = args[0] if args else None
        return super().parse_args(ctx, args)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tracefix")
def cli() -> None:
    """Match a distributed-training failure log against known issues.

    \b
    tracefix < error.log           match a log read from stdin
    tracefix error.log --json      the same, as JSON
    tracefix kb list               what the knowledge base knows
    """


def _register() -> None:
    from tracefix.cli.env import env
    from tracefix.cli.eval import eval_
    from tracefix.cli.index import index
    from tracefix.cli.kb import kb
    from tracefix.cli.match import match
    from tracefix.cli.run import run
    from tracefix.cli.serve import serve
    from tracefix.cli.site import site

    for command in (match, kb, index, eval_, serve, site, run, env):
        cli.add_command(command)


# Commands whose process only answers and exits: nothing of theirs needs the interpreter's teardown.
_FAST_EXIT = frozenset({"match", "run"})


def main() -> None:
    _register()
    try:
        cli(prog_name="tracefix")
    except SystemExit as done:
        if cli.chosen not in _FAST_EXIT:
            raise
        _exit_now(done.code)


def _exit_now(code: int | str | None) -> None:
    """Exit without the interpreter's teardown (unloading ONNX Runtime, FAISS and NumPy takes longer
    than matching a log). The match path has written everything it will: flush, then leave."""
    if isinstance(code, str):
        click.echo(code, err=True)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)
