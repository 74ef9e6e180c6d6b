"""Bad articles: one clear line each, a non-zero exit, and the database left as it was."""

from __future__ import annotations

import hashlib

import pytest

from tests.conftest import ASSETS

CASES = [
    ("empty.md", "file is empty"),
    ("binary.bin", "binary file, not an article"),
    ("invalid-utf8.md", "invalid-utf8.md:3: not valid UTF-8 text"),
    ("bad-yaml.md", "bad-yaml.md:4: front matter is not valid YAML: expected ',' or ']', but got ':' (in the value that starts on line 3)"),
    ("unknown-field.md", "unknown-field.md:6: unknown field 'severity'"),
    ("invalid-specifier.md", "invalid-specifier.md:6: affected: invalid version specifier 'newer than 0.14' for deepspeed"),
]


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def populated_db(cli, db_path, asset):
    result = cli("kb", "ingest", "--db", str(db_path), str(asset("articles", "good.md")))
    assert result.returncode == 0, result.stderr
    return db_path


@pytest.mark.parametrize("name, message", CASES)
def test_ingest_rejects_with_one_line_and_keeps_db(cli, populated_db, name, message):
    before = _digest(populated_db)
    result = cli("kb", "ingest", "--db", str(populated_db), str(ASSETS / "articles" / name))
    err = result.stderr.decode()
    assert result.returncode == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert _digest(populated_db) == before


@pytest.mark.parametrize("name, message", CASES)
def test_validate_reports_one_line_per_problem(cli, name, message):
    result = cli("kb", "validate", str(ASSETS / "articles" / name))
    assert result.returncode == 1
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_huge_text_file_is_refused(cli, populated_db, tmp_path):
    big = tmp_path / "huge.txt"
    line = "RuntimeError: No backend type associated with device type cpu " * 16 + "\n"
    with big.open("w") as f:
        for _ in range(50 * 2**20 // len(line) + 1):
            f.write(line)
    before = _digest(populated_db)
    result = cli("kb", "ingest", "--db", str(populated_db), str(big))
    assert result.returncode == 2
    assert "articles are limited to 1 MB" in result.stderr.decode()
    assert _digest(populated_db) == before


def test_one_bad_article_means_none_land(cli, populated_db, asset, tmp_path):
    good = tmp_path / "another.md"
    good.write_text(asset("articles", "good.md").read_text().replace("id: good-example", "id: another-example"))
    result = cli("kb", "ingest", "--db", str(populated_db), str(good), str(asset("articles", "unknown-field.md")))
    assert result.returncode == 2
    listed = cli("kb", "list", "--db", str(populated_db)).stdout.decode()
    assert "another-example" not in listed and "good-example" in listed


def test_missing_path(cli, db_path):
    result = cli("kb", "ingest", "--db", str(db_path), "no/such/file.md")
    assert result.returncode == 2
    assert "no such file or folder" in result.stderr.decode()
