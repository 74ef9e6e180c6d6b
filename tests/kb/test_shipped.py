"""The shipped knowledge base: complete, valid, and unambiguous."""

from __future__ import annotations

import re
from itertools import combinations

import pytest

from tests.conftest import ROOT, SHARED
from tracefix.kb.validate import load_all
from tracefix.logs.signature import mask

KB = ROOT / "data" / "kb"


@pytest.fixture(scope="module")
def shipped():
    records, problems = load_all([KB])
    assert problems == [], [str(p) for p in problems]
    return {r.id: r for r in records}


def coverage_ids() -> list[str]:
    text = (SHARED / "kb-coverage.md").read_text(encoding="utf-8")
    return re.findall(r"^- `([a-z0-9-]+)`", text, re.MULTILINE)


def test_validate_command_passes(cli):
    result = cli("kb", "validate", str(KB))
    assert result.returncode == 0, result.stderr.decode()


def test_every_coverage_id_is_present(shipped):
    ids = coverage_ids()
    assert len(ids) >= 40
    assert sorted(set(ids) - set(shipped)) == []


def test_at_least_65_records(shipped):
    assert len(shipped) >= 65


def test_file_name_is_the_id(shipped):
    for record in shipped.values():
        assert record.source.endswith(f"/{record.id}.md")


def test_every_record_cites_an_upstream_source(shipped):
    assert [r.id for r in shipped.values() if not r.references] == []


def test_seed_records_record_their_language(shipped):
    seeded = ["sat-broadcast-cpu-backend", "lightning-lr-find-ddp-cpu-backend", "cogvlm-multi-gpu-oom-killed",
              "deepspeed-zero3-offload-device-mismatch", "unsloth-multi-gpu-cpu-backend"]
    assert {shipped[i].translated_from for i in seeded} == {"zh"}


def _tellers(record) -> frozenset[str]:
    return frozenset([*record.frames, *record.packages, *record.environment])


def test_records_sharing_a_signature_are_told_apart(shipped):
    clashes = []
    for a, b in combinations(shipped.values(), 2):
        shared = {mask(s).lower() for s in a.symptoms} & {mask(s).lower() for s in b.symptoms}
        if shared and _tellers(a) == _tellers(b):
            clashes.append((a.id, b.id, sorted(shared)))
    assert clashes == []
