"""Every real report collected from public threads (tests/assets/env-reports), read as `tracefix env`
reads it: each fact its sidecar states must come out as stated."""

from __future__ import annotations

from collections import Counter

import pytest

from bench.env_reports import REPORTS, check, reports
from tracefix.env.environment import environment_dict, from_text

COLLECTED = reports()


def test_the_collection_covers_every_kind_with_real_sources():
    kinds = Counter(sidecar["kind"] for _, sidecar in COLLECTED)
    assert len(COLLECTED) >= 45
    assert all(n >= 2 for n in kinds.values()) and len(kinds) >= 10
    for path, sidecar in COLLECTED:
        assert sidecar["url"].startswith("https://github.com/") and path.exists()
        assert sidecar["kind"] == path.parent.name and sidecar["expected"]


@pytest.mark.parametrize("path, sidecar", COLLECTED, ids=[str(p.relative_to(REPORTS)) for p, _ in COLLECTED])
def test_report_facts_are_read(path, sidecar):
    read = environment_dict(from_text(path.read_text()))
    wrong = [(fact, want, got) for fact, want, got, ok in check(read, sidecar["expected"]) if not ok]
    assert wrong == []
