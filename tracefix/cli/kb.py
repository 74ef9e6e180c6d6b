"""`tracefix kb ...`: ingest, list, show, validate, export."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext

import click

from tracefix.cli.common import db_option, open_store, reports_errors

PROGRESS_FROM = 10  # files; fewer finish before a bar would be worth drawing


@click.group()
def kb() -> None:
    """Manage the knowledge base of known issues."""


@kb.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--replace", is_flag=True, help="Let these articles overwrite records with the same id from other files.")
@db_option
@reports_errors
def ingest(paths: tuple[str, ...], replace: bool, db: str | None) -> None:
    """Parse articles (files or folders) and store them, all or none."""
    from tracefix.kb.load import article_paths, load_article
    from tracefix.kb.validate import duplicate_ids

    files = list(article_paths(paths))
    records = []
    with click.progressbar(files, label="Parsing", file=sys.stderr) if len(files) >= PROGRESS_FROM else nullcontext(files) as bar:
        for path in bar:
            records.append(load_article(path))
    if problems := duplicate_ids(records):
        raise problems[0]
    result = open_store(db).ingest(records, replace=replace)
    click.echo(f"{len(result.added)} added, {len(result.updated)} updated, {len(result.unchanged)} unchanged.")


@kb.command("list")
@click.option("--area", help="Only records of this area (distributed, cuda, deepspeed, ...).")
@click.option("--package", help="Only records that name this package.")
@click.option("--search", "query", metavar="TEXT", help="An error line or keywords: the records it fits, best first.")
@db_option
@reports_errors
def list_(area: str | None, package: str | None, query: str | None, db: str | None) -> None:
    """List the records: id, area and title."""
    from tracefix.kb.listing import select

    store = open_store(db)
    for record in select(store, area=area, package=package, query=query):
        click.echo(f"{record.id}\t{record.area}\t{record.title}")


@kb.command()
@click.argument("record_id")
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
@db_option
@reports_errors
def show(record_id: str, as_json: bool, db: str | None) -> None:
    """Show one record."""
    record = open_store(db).get(record_id)
    if as_json:
        click.echo(json.dumps(record.to_json(), indent=2, ensure_ascii=False))
        return
    from tracefix.render.record_text import render_record

    click.echo(render_record(record))


@kb.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
def validate(paths: tuple[str, ...]) -> None:
    """Check articles without storing them: one line per problem, exit 1 if any."""
    from tracefix.kb.validate import load_all

    records, problems = load_all(paths)
    for problem in problems:
        click.echo(str(problem), err=True)
    if problems:
        sys.exit(1)
    click.echo(f"{len(records)} articles valid.")


@kb.command()
@click.option("--json", "as_json", is_flag=True, required=True, help="Export as a JSON list (the only format).")
@db_option
@reports_errors
def export(as_json: bool, db: str | None) -> None:
    """Print every record as a JSON list with the schema's field names."""
    click.echo(json.dumps([r.to_json() for r in open_store(db).records()], indent=2, ensure_ascii=False))

