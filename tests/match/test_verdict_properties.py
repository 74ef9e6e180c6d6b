"""Verdict rules as properties over every shipped record, whatever ranges and conditions it states.

For each record: an environment inside its affected range and conditions is "affected"; one with an
installed version inside a `fixed` or `works` range is "not-affected" whatever else holds; an empty
one is "unknown". Versions are picked next to the boundaries the record's own specifiers name.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.conftest import ROOT
from tracefix.env.environment import Environment, Gpu
from tracefix.kb.conditions import parse_condition
from tracefix.kb.validate import load_all
from tracefix.match import aliases
from tracefix.match.constraints import by_project, check

RECORDS = {r.id: r for r in load_all([ROOT / "data" / "kb"])[0]}
RANGED = sorted(i for i, r in RECORDS.items() if r.affected or r.fixed or r.works or r.environment)
WITH_GOOD_RANGE = sorted(i for i, r in RECORDS.items() if r.fixed or r.works)
KINDS = ("affected", "fixed", "works")
PROPERTY = settings(max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


# -- picking versions inside / outside a specifier set ---------------------------------------------

def boundaries(spec: str) -> list[Version]:
    """The versions a specifier set names (`==2.2.*` names 2.2)."""
    return [Version(s.version.removesuffix(".*")) for s in SpecifierSet(spec)]


def near(version: Version) -> list[Version]:
    """The version, and small steps up and down from it in each component of its release."""
    release = version.release
    out = {version, Version(".".join(map(str, (*release, 1)))), Version("0.0.1")}
    for i, part in enumerate(release):
        rest = len(release) - i - 1
        out.add(Version(".".join(map(str, (*release[:i], part + 1, *[0] * rest)))))
        if part > 0:
            out.add(Version(".".join(map(str, (*release[:i], part - 1, *[0] * rest)))))
            out.add(Version(".".join(map(str, (*release[:i], part - 1, *[99] * rest)))))
    return sorted(out)


def candidates(specs: list[str]) -> list[Version]:
    return sorted({v for spec in specs for b in boundaries(spec) for v in near(b)})


def inside(spec: str | None, version: Version) -> bool:
    return SpecifierSet(spec).contains(version, prereleases=True) if spec else False


def test_near_finds_versions_on_both_sides_of_a_range():
    assert [str(v) for v in candidates(["<2.4.0"]) if inside("<2.4.0", v)][-1] == "2.3.99"
    assert "2.2.1" in [str(v) for v in candidates(["==2.2.*"]) if inside("==2.2.*", v)]
    picked = [str(v) for v in candidates([">=0.14.1,<0.14.5"]) if inside(">=0.14.1,<0.14.5", v)]
    assert picked == ["0.14.1", "0.14.1.1", "0.14.2", "0.14.4"]


# -- building environments from a record ----------------------------------------------------------

def distributions(named: dict[str, str]) -> list[str]:
    """Every installable name of the project (patterns made concrete: `bitsandbytes-cuda*` -> ...-cuda117)."""
    names = dict.fromkeys([*named, *aliases.names_of(next(iter(named)))])
    return [n.replace("*", "117") for n in names]


def spec_for(record, kind: str, dist: str) -> str | None:
    """The record's range of this kind for the project of `dist`, as it would read it for that name."""
    same = {n: s for n, s in getattr(record, kind).items() if aliases.project_of(n) == aliases.project_of(dist)}
    return same.get(dist) or next(iter(same.values()), None)


def projects(record) -> list[dict[str, str]]:
    return by_project({**record.affected, **record.fixed, **record.works})


def affected_version(draw, record, dist: str) -> Version:
    """A version inside the affected range (if any) and outside `fixed` and `works`."""
    affected, fixed, works = (spec_for(record, kind, dist) for kind in KINDS)
    pool = [v for v in candidates([s for s in (affected, fixed, works) if s])
            if (not affected or inside(affected, v)) and not inside(fixed, v) and not inside(works, v)]
    assert pool, f"{record.id}: no version of {dist} is affected and neither fixed nor working"
    return draw(st.sampled_from(pool))


def satisfying(conditions: list[tuple[str, str]], numbers: list[str]) -> list[str]:
    """Values near the conditions' numbers that satisfy every one of them."""
    pool = sorted({str(v) for n in numbers for v in near(Version(n))}, key=Version)
    return [v for v in pool if all(SpecifierSet(f"{op}{value}").contains(Version(v)) for op, value in conditions)]


def environment_facts(draw, record) -> dict:
    """GPU count, GPUs, driver, CUDA and OOM figures that satisfy every environment condition of the record."""
    by_key: dict[str, list[tuple[str, str]]] = {}
    for condition in record.environment:
        key, op, value = parse_condition(condition)
        by_key.setdefault(key, []).append((op, value))
    facts = {}
    for key, conditions in by_key.items():
        pool = satisfying(conditions, [v for _, v in conditions])
        if key == "gpus":
            pool = [v for v in pool if Version(v).release == (Version(v).major,)]   # whole GPU counts
        if key == "oom_spare_gib":
            pool = [v for v in pool if len(Version(v).release) <= 2]   # GiB are plain numbers
        assert pool, f"{record.id}: no value satisfies {key} {conditions}"
        facts[key] = draw(st.sampled_from(pool))
    return facts


def build(packages: dict[str, str], facts: dict, gpu_info: bool = True) -> Environment:
    cc = facts.get("compute_capability")
    gpus = (Gpu("GPU under test", None, cc),) if cc and gpu_info else ()
    count = int(facts["gpus"]) if "gpus" in facts and gpu_info else (len(gpus) or None)
    return Environment(packages=packages, gpus=gpus, gpu_count=count, gpu_count_source="given" if count else None,
                       driver_version=facts.get("driver") if gpu_info else None, cuda_version=None,
                       torch_cuda=facts.get("cuda") if gpu_info else None,
                       oom_spare_gib=float(facts["oom_spare_gib"]) if "oom_spare_gib" in facts and gpu_info else None)


def affected_packages(draw, record) -> dict[str, str]:
    out = {}
    for named in projects(record):
        dist = draw(st.sampled_from(distributions(named)))
        out[dist] = str(affected_version(draw, record, dist))
    return out


def expected_checks(record) -> int:
    return sum(len(by_project(getattr(record, kind))) for kind in KINDS) + len(record.environment)


# -- the properties --------------------------------------------------------------------------------

@pytest.mark.parametrize("record_id", RANGED)
@PROPERTY
@given(data=st.data())
def test_inside_the_affected_range_and_conditions_is_affected(record_id, data):
    record = RECORDS[record_id]
    env = build(affected_packages(data.draw, record), environment_facts(data.draw, record))
    verdict = check(record, env)
    assert verdict.verdict == "affected", verdict.checks
    assert len(verdict.checks) == expected_checks(record)


@pytest.mark.parametrize("record_id", WITH_GOOD_RANGE)
@PROPERTY
@given(data=st.data())
def test_a_fixed_or_working_version_is_not_affected_whatever_else_holds(record_id, data):
    record = RECORDS[record_id]
    packages = affected_packages(data.draw, record)
    good = [(kind, named) for kind in ("fixed", "works") for named in by_project(getattr(record, kind))]
    kind, named = data.draw(st.sampled_from(good))
    for dist in distributions(named):   # replace the project's affected install by a good one
        packages.pop(dist, None)
    dist = data.draw(st.sampled_from(distributions(named)))
    spec = spec_for(record, kind, dist)
    version = data.draw(st.sampled_from([v for v in candidates([spec]) if inside(spec, v)]))
    packages[dist] = str(version)
    env = build(packages, environment_facts(data.draw, record), gpu_info=data.draw(st.booleans()))
    verdict = check(record, env)
    assert verdict.verdict == "not-affected", verdict.checks
    assert any(c.result == "fails" and c.found == str(version) for c in verdict.checks)
    assert len(verdict.checks) == expected_checks(record)


@pytest.mark.parametrize("record_id", sorted(RECORDS))
def test_an_empty_environment_is_unknown(record_id):
    record = RECORDS[record_id]
    verdict = check(record, build({}, {}))
    assert verdict.verdict == "unknown"
    assert {c.result for c in verdict.checks} <= {"unknown"} and len(verdict.checks) == expected_checks(record)


def test_the_properties_cover_the_shipped_ranges():
    # Guards against the parametrisation silently shrinking (e.g. a loader change dropping ranges).
    assert len(RECORDS) >= 65 and len(WITH_GOOD_RANGE) >= 8 and len(RANGED) >= len(WITH_GOOD_RANGE)
