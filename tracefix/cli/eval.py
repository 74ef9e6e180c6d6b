"""`tracefix eval DIR`: quality figures on a labelled set."""

from __future__ import annotations

import json

import click

from tracefix.cli.common import db_option, reports_errors


@click.command("eval")
@click.argument("folders", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--model", envvar="TRACEFIX_MODEL", help="Local sentence-transformers model folder.")
@db_option
@reports_errors
def eval_(folders: tuple[str, ...], as_json: bool, model: str | None, db: str | None) -> None:
    """Quality on labelled cases: top-1, top-3 recall, MRR, precision of confident answers,
    negatives left unanswered, and how often an answer of each score is right."""
    from tracefix.evaluation.cases import load_cases
    from tracefix.evaluation.metrics import score
    from tracefix.evaluation.run import answer
    from tracefix.match.loader import load_matcher
    from tracefix.settings import Settings

    cases = load_cases(*folders)
    matcher = load_matcher(Settings.resolve(db, model))
    metrics = score(cases, [answer(matcher, c) for c in cases])
    if as_json:
        click.echo(json.dumps(metrics.as_dict(), indent=2))
        return
    for line in report_lines(metrics):
        click.echo(line)


def report_lines(m) -> list[str]:
    lines = [
        f"cases                    {m.cases} ({m.positives} with a known cause, {m.negatives} negatives)",
        f"top-1 accuracy           {m.top1:.3f} (on known causes {m.top1_positives:.3f})",
        f"top-3 recall             {m.top3_recall:.3f}",
        f"MRR                      {m.mrr:.3f}",
        f"confident answers        {m.confident}: {m.confident_right} right, {m.confident_wrong} wrong "
        f"({m.confident_wrong_negatives} on negatives), {m.confident_acceptable} the generic record of the family",
        f"precision when confident {m.precision:.3f}",
        f"negatives unanswered     {m.negatives_unanswered:.3f}",
        "reliability (first answer's score -> how often it is right):",
    ]
    lines += [f"  {b.low:.1f}-{b.high:.1f}  {b.right:>4}/{b.answers:<4} {b.right / b.answers:.2f}" if b.answers
              else f"  {b.low:.1f}-{b.high:.1f}     -" for b in m.reliability]
    if m.failures:
        lines.append(f"missed                   {', '.join(m.failures)}")
    return lines
