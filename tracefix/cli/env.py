"""`tracefix env [FILE]`: what tracefix reads from a pasted environment report or log.

The quickest way to see what tracefix understood: GPUs, driver, CUDA, torch and its CUDA build,
key packages (and where each version came from), and the sanity warnings matching would print.
"""

from __future__ import annotations

import json
import sys

import click

from tracefix.cli.common import reports_errors

# Packages shown in the text view; `--json` has every one.
KEY_PACKAGES = ("torch", "deepspeed", "transformers", "accelerate", "pytorch-lightning", "lightning", "vllm",
                "flash-attn", "xformers", "bitsandbytes", "triton", "numpy", "peft", "trl", "megatron-core")


@click.command("env")
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--freeze", type=click.Path(dir_okay=False), help="pip freeze / pip list / conda list output.")
@click.option("--smi", type=click.Path(dir_okay=False), help="nvidia-smi output.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@reports_errors
def env(file, freeze, smi, as_json) -> None:
    """Show the environment read from FILE (a report or a log; stdin by default)."""
    from tracefix.cli.match import _read_input, _read_text
    from tracefix.env.environment import environment_dict, from_text
    from tracefix.match.sanity import environment_warnings

    data = _read_input(file)
    environment = from_text(data, freeze=_read_text(freeze), smi=_read_text(smi))
    warnings = environment_warnings(environment)
    if as_json:
        click.echo(json.dumps({**environment_dict(environment), "warnings": warnings}, indent=2))
        return
    _print(render(environment, warnings))


def render(environment, warnings: list[str]) -> str:
    """Rich markup for the text view."""
    from tracefix.render.text import _esc

    e = environment
    lines = [f"[bold]GPUs:[/] {_esc(_gpus(e))}",
             f"[bold]Driver:[/] {e.driver_version or 'unknown'}    [bold]CUDA (driver supports):[/] {e.cuda_version or 'unknown'}",
             f"[bold]torch:[/] {e.packages.get('torch', 'unknown')}    [bold]built for CUDA:[/] {e.torch_cuda or 'unknown'}"]
    if e.smi_error:
        lines.append(f"[bold]nvidia-smi failed:[/] {_esc(e.smi_error)}")
    shown = [p for p in KEY_PACKAGES if p in e.packages and p != "torch"]
    if shown:
        lines.append("[bold]Packages:[/]")
        lines += [f"  {p} {e.packages[p]}  [dim]({e.package_sources.get(p, '?')})[/]" for p in shown]
    others = len(e.packages) - len(shown) - ("torch" in e.packages)
    if others > 0:
        lines.append(f"  [dim]and {others} more (--json lists them)[/]")
    lines.append(f"[bold]Read:[/] {_esc(', '.join(e.sources)) if e.sources else 'no environment report found'}")
    lines += [f"[yellow]warning:[/] {_esc(w)}" for w in warnings]
    return "\n".join(lines)


def _gpus(e) -> str:
    if e.gpu_count is None and not e.gpus:
        return "unknown"
    names: dict[str, int] = {}
    for g in e.gpus:
        names[g.name or "unnamed"] = names.get(g.name or "unnamed", 0) + 1
    listed = ", ".join(f"{n} x {name}" for name, n in names.items())
    count = f"{e.gpu_count} ({e.gpu_count_source})" if e.gpu_count is not None else "count unknown"
    return f"{count}: {listed}" if listed else count


def _print(markup: str) -> None:
    from tracefix.render.text import plain, use_colour

    if not use_colour(sys.stdout):
        click.echo(plain(markup))
        return
    from rich.console import Console

    Console(highlight=False, soft_wrap=True, emoji=False).print(markup)
