"""Shared CLI plumbing: opening the store from flags, and turning TracefixError into exit code 2."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import click

from tracefix.errors import TracefixError
from tracefix.settings import Settings

EXIT_NO_MATCH, EXIT_USAGE = 1, 2

db_option = click.option("--db", "db", type=click.Path(dir_okay=False), envvar="TRACEFIX_DB",
                         help="Knowledge-base database (default: per-user database holding the shipped articles).")


class UsageError(click.ClickException):
    """A ClickException that exits 2: exit 1 is reserved for 'no confident match'."""

    exit_code = EXIT_USAGE


def fail(message: str) -> None:
    raise UsageError(message)


def reports_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Translate the core's errors into one 'Error: ...' line and exit status 2, once, here."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TracefixError as e:
            raise UsageError(str(e)) from None
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(130)

    return wrapper


def open_store(db: str | None):
    """The store the --db flag (or TRACEFIX_DB, or the default) names."""
    from tracefix.kb.shipped import open_store as open_settings_store

    return open_settings_store(Settings.resolve(db))
