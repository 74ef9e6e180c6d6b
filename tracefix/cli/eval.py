"""`tracefix eval DIR`: quality figures on a labelled set."""

from __future__ import annotations

import json

import click

from tracefix.cli.common import db_option, reports_errors


@click.command("eval")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--model", envvar="TRACEFIX_MODEL", help="Local sentence-transformers model folder.")
@db_option
@reports_errors
def eval_(folder: str, as_json: bool, model: str | None, db: str | None) -> None:
    """Top-1 accuracy, top-3 recall, MRR and confident-wrong count on labelled cases."""
    from tracefix.evaluation.cases import load_cases
    from tracefix.evaluation.metrics import score
    from tracefix.evaluation.run import answer
    from tracefix.match.loader import load_matcher
    from tracefix.settings import Settings

    cases = load_cases(folder)
    matcher = load_matcher(Settings.resolve(db, model))
    metrics = score(cases, [answer(matcher, c) for c in cases])
    if as_json:
        click.echo(json.dumps(metrics.as_dict(), indent=2))
        return
    click.echo(f"cases            {metrics.cases}")
    click.echo(f"top-1 accuracy   {metrics.top1:.3f}")
    click.echo(f"top-3 recall     {metrics.top3_recall:.3f}")
    click.echo(f"MRR              {metrics.mrr:.3f}")
    click.echo(f"confident wrong  {metrics.confident_wrong} ({metrics.confident_wrong_negatives} on negatives)")
    if metrics.failures:
        click.echo(f"missed           {', '.join(metrics.failures)}")
