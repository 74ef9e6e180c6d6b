"""Concrete commands from a record's ranges and the installed versions: `pip install 'deepspeed==0.14.0'`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tracefix.env.environment import Environment

if TYPE_CHECKING:
    from tracefix.kb.record import Record

# pip names that differ from the canonical distribution name people type.
_PIP_NAMES = {"swissarmytransformer": "SwissArmyTransformer"}


def _installed(env: Environment, name: str) -> Version | None:
    try:
        return env.version(name)
    except InvalidVersion:
        return None


def commands(record: Record, env: Environment) -> tuple[str, ...]:
    """One pip command per package whose installed version is affected and a good range is known."""
    out = []
    for name, good in {**record.works, **record.fixed}.items():
        installed = _installed(env, name)
        affected = record.affected.get(name)
        if installed is not None and SpecifierSet(good).contains(installed, prereleases=True):
            continue
        if installed is not None and affected and not SpecifierSet(affected).contains(installed, prereleases=True):
            continue
        out.append(f"pip install '{_PIP_NAMES.get(name, name)}{_target(good)}'")
    return tuple(out)


def _target(spec: str) -> str:
    """A pin when the range names one version, else the range itself."""
    parts = spec.split(",")
    if len(parts) == 1 and parts[0].startswith("==") and "*" not in parts[0]:
        return parts[0]
    return spec
