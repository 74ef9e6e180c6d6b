"""`tracefix [LOGFILE]`: the main job. Exit 0 on a confident match, 1 on none, 2 on bad input."""

from __future__ import annotations

import sys

import click

from tracefix.cli.common import EXIT_NO_MATCH, db_option, fail, reports_errors

MAX_INPUT_BYTES = 512 * 1024 * 1024


def _read_input(logfile: str | None) -> bytes:
    if logfile in (None, "-"):
        if sys.stdin.isatty():
            fail("no log given: pass a file, or pipe one in (tracefix < error.log)")
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    else:
        try:
            with open(logfile, "rb") as f:
                data = f.read(MAX_INPUT_BYTES + 1)
        except OSError as e:
            fail(f"cannot read {logfile}: {e.strerror}")
    if len(data) > MAX_INPUT_BYTES:
        fail(f"the log is larger than {MAX_INPUT_BYTES // 2**20} MiB")
    if not data.strip():
        fail("the log is empty")
    return data


def _read_text(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return f.read(16 * 2**20).decode("utf-8", errors="replace")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")


@click.command()
@click.argument("logfile", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--freeze", type=click.Path(dir_okay=False), help="pip freeze / pip list / conda list output.")
@click.option("--smi", type=click.Path(dir_okay=False), help="nvidia-smi output.")
@click.option("--gpus", type=click.IntRange(0, 4096), help="GPUs used, when no nvidia-smi output says.")
@click.option("--top", default=3, show_default=True, type=click.IntRange(1, 50), help="How many matches to show.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (stable shape).")
@click.option("--model", envvar="TRACEFIX_MODEL", help="Local sentence-transformers model folder.")
@db_option
@reports_errors
def match(logfile, freeze, smi, gpus, top, as_json, model, db) -> None:
    """Match a log (file or stdin) against the knowledge base."""
    from tracefix.match.pipeline import match_log, result_json
    from tracefix.settings import Settings

    data = _read_input(logfile)
    freeze_text, smi_text = _read_text(freeze), _read_text(smi)
    result = match_log(data, Settings.resolve(db, model), freeze=freeze_text, smi=smi_text, gpus=gpus, top=top,
                       progress=_progress)
    if as_json:
        click.echo(result_json(result))
    else:
        from tracefix.render.text import print_result

        print_result(result)
    if not result.confident:
        sys.exit(EXIT_NO_MATCH)


def _progress(done: int, total: int) -> None:
    click.echo(f"\rBuilding the index: {done}/{total} records", err=True, nl=done >= total)
