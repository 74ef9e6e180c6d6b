"""Concrete commands from a record's ranges and the installed versions: `pip install -U 'lightning>=2.4.0'`.

One command per project that needs one: an upgrade into the `fixed` range when the record names one
(`pip install -U 'deepspeed>=0.14.5'`), else the `works` range, as a pin when it names one release
(`pip install 'deepspeed==0.14.0'`). The command names the distribution that is installed
(`pytorch-lightning` when that is what the freeze lists), else the record's own name. None when the
installed version is already fixed or working, or outside the affected range.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from tracefix.env.environment import Environment
from tracefix.match import aliases
from tracefix.match.constraints import by_project

if TYPE_CHECKING:
    from tracefix.kb.record import Record

# pip names that differ from the canonical distribution name people type.
_PIP_NAMES = {"swissarmytransformer": "SwissArmyTransformer"}
_LOWER_BOUNDS = (">=", ">", "~=")


def commands(record: Record, env: Environment) -> tuple[str, ...]:
    """One pip command per project whose installed version is affected (or unknown) and a good range is known."""
    out = []
    for good in by_project({**record.works, **record.fixed}):
        project = next(iter(good))
        target = _of_project(record.fixed, project) or good
        dist, version = _installed(record, env, project)
        if version is not None and _needs_no_fix(record, dist, version):
            continue
        spec = target.get(dist) or next(iter(target.values()))
        name = aliases.install_name(dist)
        out.append(_command(_PIP_NAMES.get(name, name), spec))
    return tuple(out)


def _installed(record: Record, env: Environment, project: str) -> tuple[str, Version | None]:
    """The installed distribution of the project that most needs the fix, else the record's name and None."""
    found = []
    for dist, raw in aliases.installed(env.packages, project):
        try:
            found.append((dist, Version(raw)))
        except InvalidVersion:
            continue
    if not found:
        return project, None
    return min(found, key=lambda pair: _needs_no_fix(record, *pair))   # False sorts first


def _of_project(ranges: dict[str, str], name: str) -> dict[str, str]:
    """The ranges given for any name of `name`'s project."""
    return {other: spec for other, spec in ranges.items() if aliases.project_of(other) == aliases.project_of(name)}


def _within(ranges: dict[str, str], dist: str, version: Version) -> bool | None:
    """Whether `version` of `dist` lies in the record's range for its project; None when there is none."""
    specs = _of_project(ranges, dist)
    if not specs:
        return None
    spec = specs.get(dist) or next(iter(specs.values()))
    try:
        return SpecifierSet(spec).contains(version, prereleases=True)
    except InvalidSpecifier:
        return None


def _needs_no_fix(record: Record, dist: str, version: Version) -> bool:
    """Already fixed or working, or outside the affected range."""
    if _within(record.fixed, dist, version) or _within(record.works, dist, version):
        return True
    return _within(record.affected, dist, version) is False


def _command(dist: str, spec: str) -> str:
    """`-U` for a range that only bounds from below (an upgrade); a pin or a range is installed as is."""
    clauses = [c.strip() for c in spec.split(",") if c.strip()]
    upgrade = all(c.startswith(_LOWER_BOUNDS) for c in clauses)
    return f"pip install -U '{dist}{spec}'" if upgrade else f"pip install '{dist}{spec}'"
