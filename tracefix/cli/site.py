"""`tracefix site build OUT`: the offline static docs site of the knowledge base."""

from __future__ import annotations

import click

from tracefix.cli.common import db_option, open_store, reports_errors


@click.group()
def site() -> None:
    """Build the offline docs site."""


@site.command()
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--base-url", default="", help="Sub-path the site is hosted under, e.g. /kb/.")
@db_option
@reports_errors
def build(out: str, base_url: str, db: str | None) -> None:
    """Write a static site to OUT that works from file:// with no network."""
    from tracefix.site.build import build as build_site

    count = build_site(open_store(db), out, base_url=base_url)
    click.echo(f"Wrote {count} record pages to {out}.")
