"""Store semantics: one transaction per ingest, idempotent re-ingest, one id per article."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SEEDS
from tracefix.errors import StoreError
from tracefix.kb.load import load_article
from tracefix.kb.store import Store


def test_reingest_unchanged_is_a_no_op(cli, db_path):
    first = cli("kb", "ingest", "--db", str(db_path), str(SEEDS))
    assert first.returncode == 0, first.stderr
    assert "5 added" in first.stdout.decode()
    again = cli("kb", "ingest", "--db", str(db_path), str(SEEDS))
    assert "0 added, 0 updated, 5 unchanged" in again.stdout.decode()


def test_two_articles_one_id_is_an_error(asset, tmp_path, db_path):
    store = Store(db_path)
    store.ingest([load_article(asset("articles", "good.md"))])
    twin = tmp_path / "twin.md"
    twin.write_text(asset("articles", "good.md").read_text().replace("Because of a reason.", "Another reason."))
    with pytest.raises(StoreError, match="id 'good-example' is already used by"):
        store.ingest([load_article(twin)])
    assert store.get("good-example").cause == "Because of a reason."


def test_same_id_twice_in_one_run_is_refused_by_the_cli(cli, asset, tmp_path, db_path):
    twin = tmp_path / "twin.md"
    twin.write_text(asset("articles", "good.md").read_text())
    result = cli("kb", "ingest", "--db", str(db_path), str(asset("articles", "good.md")), str(twin))
    assert result.returncode == 2
    assert "id 'good-example' is already used by" in result.stderr.decode()


def test_updated_article_replaces_its_record(asset, tmp_path, db_path):
    path = tmp_path / "good.md"
    path.write_text(asset("articles", "good.md").read_text())
    store = Store(db_path)
    store.ingest([load_article(path)])
    path.write_text(path.read_text().replace("Because of a reason.", "A better explanation."))
    result = store.ingest([load_article(path)])
    assert result.updated == ("good-example",)
    assert store.get("good-example").cause == "A better explanation."


def test_fts_finds_exact_words(asset, db_path):
    store = Store(db_path)
    store.ingest([load_article(p) for p in sorted(SEEDS.glob("*.txt"))] + [load_article(asset("articles", "good.md"))])
    assert store.search("perfectly specific failure")[0][0] == "good-example"


def test_show_and_export(cli, asset, db_path):
    cli("kb", "ingest", "--db", str(db_path), str(asset("articles", "good.md")))
    shown = json.loads(cli("kb", "show", "good-example", "--json", "--db", str(db_path)).stdout)
    assert shown["affected"] == {"deepspeed": ">0.14.0"} and shown["environment"] == ["gpus>=2"]
    text = cli("kb", "show", "good-example", "--db", str(db_path)).stdout.decode()
    assert "Because of a reason." in text and "deepspeed>0.14.0" in text
    exported = json.loads(cli("kb", "export", "--json", "--db", str(db_path)).stdout)
    assert [r["id"] for r in exported] == ["good-example"]
    assert {"id", "title", "symptoms", "frames", "cause", "fix", "affected", "fixed", "environment",
            "references", "language", "source", "content_hash"} <= set(exported[0])
    missing = cli("kb", "show", "nope", "--db", str(db_path))
    assert missing.returncode == 2 and "no record with id 'nope'" in missing.stderr.decode()


def test_large_store_leaves_out_words_most_records_share(db_path, monkeypatch):
    from tracefix.kb import store as store_module
    from tracefix.kb.record import Record

    monkeypatch.setattr(store_module, "COMMON_TERMS_FROM", 10)
    records = [Record(id=f"r-{n}", title=f"Failure number {n}", symptoms=(f"RuntimeError: collective failure kind{n}",),
                      cause="c", fix="f") for n in range(20)]
    store = Store(db_path)
    store.ingest(records)
    assert "collect" in store.common_terms()  # porter-stemmed, as FTS5 stores it
    assert "collective" not in store_module.fts_query("collective failure kind7", skip=store.common_terms())
    assert store.search("collective failure kind7")[0][0] == "r-7"


def test_snapshot_holds_every_stored_field_and_follows_changes(asset, tmp_path, db_path):
    """The query path reads views from a cache file; it must say what the store says, after any change."""
    from tracefix.kb.record import FIELDS
    from tracefix.kb.view import FIELD_NAMES

    assert set(FIELD_NAMES) == set(FIELDS)
    store = Store(db_path)
    store.ingest([load_article(asset("articles", "good.md"))])
    stored = store.get("good-example")
    view = store.snapshot().records[0]
    assert {name: getattr(view, name) for name in FIELD_NAMES} == {name: getattr(stored, name) for name in FIELDS}

    changed = tmp_path / "good.md"
    changed.write_text(asset("articles", "good.md").read_text().replace("Because of a reason.", "Another reason."))
    store.ingest([load_article(changed)], replace=True)
    assert Store(db_path).snapshot().records[0].cause == "Another reason."


def test_a_damaged_snapshot_file_is_rebuilt(asset, db_path):
    from tracefix.kb import snapshot

    store = Store(db_path)
    store.ingest([load_article(asset("articles", "good.md"))])
    store.snapshot()
    snapshot.path_for(db_path).write_bytes(b"not a pickle")
    assert [r.id for r in Store(db_path).snapshot().records] == ["good-example"]
