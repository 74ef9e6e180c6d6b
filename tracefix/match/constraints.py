"""`check(record, env) -> Verdict`: is this environment in the record's affected range?

Every requirement of a record becomes one `Check` that `holds`, `fails` or is `unknown` (the
package or fact is not in the input). All version logic goes through `packaging`, with
`prereleases=True` passed explicitly (see the style guide's note on packaging 26).

How verdicts are decided (README "How verdicts are decided" says the same):
1. An installed version inside a `fixed` or `works` range -> "not-affected", whatever else holds.
2. Any other check that fails (a version outside `affected`, one GPU for a `gpus>=2` bug) ->
   "not-affected". A failing check is never hidden by an unknown one: no GPU information does not
   turn an installed fixed release into "unknown".
3. Every check holds, and there is at least one -> "affected". "affected" means everything known
   says affected and nothing is unknown: an affected version with no GPU information for a
   `gpus>=2` record stays "unknown", since a one-GPU job would not hit the bug.
4. Otherwise (something unknown, or nothing to check) -> "unknown".
Every check stays in the verdict, so the user sees what decided it and what was missing.

How each range reads:
- Ranges are per project, not per distribution name: `lightning` and `pytorch-lightning` (and the
  other groups in `aliases`) are one package. A record's ranges for several names of one project
  give one check per range kind, made on whichever name is installed; it is unknown only when none
  is. When several are installed, the check holds if it holds for any of them (the log may come
  from either).
- `affected`: holds when the installed version is in the range.
- A dev or pre-release build whose final release falls on the other side of a range's bound
  (0.13.0.dev0 against `>=0.13.0`) is unknown for that range: it may or may not carry the change.
- `fixed`: the versions carrying the fix, so an installed version in the range fails the check.
- `works`: versions known to work, read like `fixed`: inside the range, the issue does not occur.
- `environment`: `gpus` compares the GPU count; `compute_capability` holds when ANY GPU satisfies the
  condition (a bug that needs an sm_75 card shows up as soon as one takes part; for a homogeneous
  machine any/min/max agree); `driver` compares the driver version; `cuda` compares the CUDA torch
  was built for, or, when that is unknown, the newest CUDA the driver supports; `oom_spare_gib`
  compares the GiB torch's out-of-memory message says were still free beyond the failed request.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from tracefix.env.environment import Environment
from tracefix.kb.conditions import parse_condition
from tracefix.match import aliases

HOLDS, FAILS, UNKNOWN = "holds", "fails", "unknown"
_OPS = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}
# Checks that can rule a record out but, holding, say nothing about which of a message's causes it is.
_NOT_TELLING = ("gpus", "oom_spare_gib")


@dataclass(frozen=True)
class Check:
    """One requirement of a record, tested against the environment."""

    requirement: str       # "deepspeed>0.14.0", "lightning not in fixed >=2.4.0 (as pytorch-lightning)", "gpus>=2"
    found: str | None      # what the environment has ("0.14.2", "4 (nvidia-smi)"); None when absent
    result: str            # holds | fails | unknown


@dataclass(frozen=True)
class Verdict:
    """The record's verdict for this environment and the checks behind it."""

    verdict: str                  # affected | not-affected | unknown
    checks: tuple[Check, ...]

    @property
    def confirms_cause(self) -> bool:
        """Affected on more than a GPU count or an OOM message's figures: many causes of one message
        need two GPUs, and an OOM that used up the memory is what every OOM record expects."""
        return self.verdict == "affected" and any(c.result == HOLDS and not c.requirement.startswith(_NOT_TELLING)
                                                  for c in self.checks)


_RANGE_TEXT = {"affected": "{name}{spec}", "fixed": "{name} not in fixed {spec}", "works": "{name} not in working {spec}"}
_PREFERENCE = {HOLDS: 0, FAILS: 1, UNKNOWN: 2}   # among installed aliases, the first that holds decides


def by_project(ranges: dict[str, str]) -> list[dict[str, str]]:
    """A record's ranges grouped by project: {"lightning": "<2.4.0", "pytorch-lightning": "<2.4.0"} is one group."""
    groups: dict[str, dict[str, str]] = {}
    for name, spec in ranges.items():
        groups.setdefault(aliases.project_of(name), {})[name] = spec
    return list(groups.values())


def _range_text(kind: str, named: dict[str, str]) -> str:
    shown = list(named.items())[:1] if len(set(named.values())) == 1 else named.items()
    return " / ".join(_RANGE_TEXT[kind].format(name=name, spec=spec) for name, spec in shown)


def _none_installed(names: tuple[str, ...]) -> str:
    return f"{' / '.join(names)}: {'neither' if len(names) == 2 else 'none'} installed"


def _inside(raw: str, spec: str, inside_holds: bool) -> str:
    try:
        specifier, version = SpecifierSet(spec), Version(raw)
    except (InvalidVersion, InvalidSpecifier):
        return UNKNOWN
    inside = specifier.contains(version, prereleases=True)
    # A dev or pre-release build (trl 0.13.0.dev0, a torch nightly) of a boundary release may or may
    # not carry the change yet: when it and its final release fall on different sides, nobody knows.
    if version.pre is not None or version.dev is not None:
        if specifier.contains(Version(version.base_version), prereleases=True) != inside:
            return UNKNOWN
    return HOLDS if inside == inside_holds else FAILS


def _range_check(kind: str, named: dict[str, str], env: Environment) -> Check:
    """One check for one project's range, made on whichever of its names is installed."""
    text = _range_text(kind, named)
    shown, first_spec = next(iter(named.items()))
    found = aliases.installed(env.packages, shown)
    if not found:
        names = aliases.names_of(shown)
        return Check(f"{text} ({_none_installed(names)})" if len(names) > 1 else text, None, UNKNOWN)
    outcomes = [(dist, raw, _inside(raw or "", named.get(dist, first_spec), kind == "affected")) for dist, raw in found]
    dist, raw, result = min(outcomes, key=lambda outcome: _PREFERENCE[outcome[2]])
    return Check(text if dist == shown else f"{text} (as {dist})", raw, result)


def _compare_versions(found: str | None, op: str, value: str) -> str:
    try:
        return HOLDS if SpecifierSet(f"{op}{value}").contains(Version(found or ""), prereleases=True) else FAILS
    except (InvalidVersion, InvalidSpecifier):
        return UNKNOWN


def _gpus(env: Environment, op: str, value: str) -> Check:
    if env.gpu_count is None:
        return Check(f"gpus{op}{value}", None, UNKNOWN)
    found = f"{env.gpu_count} ({env.gpu_count_source})" if env.gpu_count_source else str(env.gpu_count)
    return Check(f"gpus{op}{value}", found, HOLDS if _OPS[op](env.gpu_count, int(value)) else FAILS)


def _compute_capability(env: Environment, op: str, value: str) -> Check:
    known = [g.compute_capability for g in env.gpus if g.compute_capability]
    requirement = f"compute_capability{op}{value}"
    if not known:
        return Check(requirement, None, UNKNOWN)
    results = {_compare_versions(cc, op, value) for cc in known}
    result = HOLDS if HOLDS in results else (FAILS if results == {FAILS} else UNKNOWN)
    return Check(requirement, ", ".join(dict.fromkeys(known)), result)


def _driver(env: Environment, op: str, value: str) -> Check:
    found = env.driver_version
    return Check(f"driver{op}{value}", found, _compare_versions(found, op, value) if found else UNKNOWN)


def _cuda(env: Environment, op: str, value: str) -> Check:
    requirement = f"cuda{op}{value}"
    if env.torch_cuda == "cpu":
        return Check(requirement, "cpu (torch built without CUDA)", FAILS)
    if env.torch_cuda:
        return Check(requirement, f"{env.torch_cuda} (torch build)", _compare_versions(env.torch_cuda, op, value))
    if env.cuda_version:
        return Check(requirement, f"{env.cuda_version} (driver)", _compare_versions(env.cuda_version, op, value))
    return Check(requirement, None, UNKNOWN)


def _oom_spare(env: Environment, op: str, value: str) -> Check:
    requirement = f"oom_spare_gib{op}{value}"
    if env.oom_spare_gib is None:
        return Check(requirement, None, UNKNOWN)
    found = f"{env.oom_spare_gib:.2f} GiB free beyond the request, per the OOM message"
    return Check(requirement, found, HOLDS if _OPS[op](env.oom_spare_gib, float(value)) else FAILS)


_ENV_CHECKS = {"gpus": _gpus, "compute_capability": _compute_capability, "driver": _driver, "cuda": _cuda,
               "oom_spare_gib": _oom_spare}


def checks(record, env: Environment) -> list[Check]:
    """Every check for a record, in the order: affected, fixed, works (one per project each), environment."""
    out = [_range_check(kind, named, env) for kind in ("affected", "fixed", "works")
           for named in by_project(getattr(record, kind))]
    for condition in record.environment:
        try:
            key, op, value = parse_condition(condition)
        except ValueError:
            out.append(Check(condition, None, UNKNOWN))
            continue
        out.append(_ENV_CHECKS[key](env, op, value))
    return out


def verdict_of(found: list[Check]) -> str:
    """Rules 1-4 of the module docstring (a fixed or working version fails its check, so 1 is part of 2)."""
    results = {c.result for c in found}
    if FAILS in results:
        return "not-affected"
    if found and results == {HOLDS}:
        return "affected"
    return "unknown"


def check(record, env: Environment) -> Verdict:
    """The verdict for one record.

    A record with no ranges and no conditions is "unknown": nothing says whether it applies.
    """
    found = checks(record, env)
    return Verdict(verdict_of(found), tuple(found))
