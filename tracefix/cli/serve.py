"""`tracefix serve`: the HTTP service for chat-ops bots (see tracefix.service)."""

from __future__ import annotations

import os

import click

from tracefix.cli.common import db_option, reports_errors


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=lambda: os.cpu_count() or 1, show_default="one per core", type=click.IntRange(1, 64),
              help="Worker processes.")
@click.option("--max-body", default=2 * 2**20, show_default=True, type=click.IntRange(1024), help="Largest request body, bytes.")
@click.option("--model", envvar="TRACEFIX_MODEL", help="Local sentence-transformers model folder.")
@db_option
@reports_errors
def serve(host: str, port: int, workers: int, max_body: int, model: str | None, db: str | None) -> None:
    """Serve POST /v1/match, the Slack and webhook endpoints and the records API."""
    from tracefix.service.app import run

    run(host=host, port=port, workers=workers, max_body=max_body, db=db, model=model)
