"""`tracefix index build`: embed every record into the FAISS index beside the database."""

from __future__ import annotations

import sys

import click

from tracefix.cli.common import db_option, reports_errors


@click.group()
def index() -> None:
    """Manage the vector index."""


@index.command()
@click.option("--model", envvar="TRACEFIX_MODEL", help="Local sentence-transformers model folder.")
@db_option
@reports_errors
def build(model: str | None, db: str | None) -> None:
    """Build (or rebuild) the index, with a progress bar on stderr."""
    from tracefix.kb.shipped import open_store
    from tracefix.match.loader import build_index
    from tracefix.settings import Settings

    settings = Settings.resolve(db, model)
    store = open_store(settings)
    with click.progressbar(length=max(1, store.count()), label="Embedding", file=sys.stderr) as bar:
        manifest = build_index(settings, store, progress=lambda done, total: bar.update(done - bar.pos))
    click.echo(f"Indexed {len(manifest.ids)} records with {manifest.model} into {settings.index_path}.")
