"""`tracefix kb list` stays usable with hundreds of records: filters, and a pasted error line."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT, run_cli


@pytest.fixture(scope="module")
def big_db(tmp_path_factory):
    """The shipped records plus 300 more articles of other areas and packages."""
    folder = tmp_path_factory.mktemp("many")
    for n in range(300):
        (folder / f"extra-{n:03d}.md").write_text(
            f'---\nid: extra-{n:03d}\ntitle: "Extra issue {n}"\narea: area{n % 7}\npackages: [pkg{n % 11}]\n'
            f'symptoms:\n  - "ExtraError{n}: widget number {n} refused the frobnication"\n---\n\n# Extra {n}\n\n'
            f"## Cause\n\nA cause.\n\n## Fix\n\nA fix.\n")
    db = folder / "kb.db"
    assert run_cli("kb", "ingest", "--db", str(db), str(ROOT / "data" / "kb"), str(folder)).returncode == 0
    return db


def listed(db, *args) -> list[list[str]]:
    result = run_cli("kb", "list", "--db", str(db), *args)
    assert result.returncode == 0, result.stderr
    return [line.split("\t") for line in result.stdout.decode().splitlines()]


def test_filters_by_area_and_package(big_db):
    rows = listed(big_db, "--area", "area3", "--package", "Pkg5")
    assert rows and all(area == "area3" for _, area, _ in rows)
    assert {rid for rid, _, _ in rows} == {f"extra-{n:03d}" for n in range(300) if n % 7 == 3 and n % 11 == 5}


def test_a_pasted_error_line_finds_its_record_first(big_db):
    line = "[rank3]: RuntimeError: ExtraError217: widget number 217 refused the frobnication"
    assert listed(big_db, "--search", line)[0][0] == "extra-217"
    rows = listed(big_db, "--search", "ValueError: Attempting to unscale FP16 gradients.")
    assert rows[0][0] == "fp16-unscale-gradients" and len(rows) < 50
