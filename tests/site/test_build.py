"""The build without a browser: determinism, speed, atomic writes, safe rendering, no external assets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.site.conftest import ARTICLES, KB, make_store
from tests.conftest import ROOT, SEEDS
from tracefix.errors import TracefixError
from tracefix.site import build as build_module
from tracefix.site.build import MARKER, build
from tracefix.site.pages import readable_condition, readable_spec, render_markdown, title_html


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def full_store(tmp_path_factory):
    return make_store(tmp_path_factory.mktemp("full") / "kb.db", KB, SEEDS, ARTICLES)


def test_two_builds_are_byte_identical(full_store, tmp_path):
    count = build(full_store, tmp_path / "a")
    build(full_store, tmp_path / "b")
    assert count == len(full_store.records())
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_every_record_has_a_page(kb_site, kb_store):
    pages = {p.stem for p in (kb_site / "records").glob("*.html")}
    assert pages == {r.id for r in kb_store.records()}


def test_rebuild_replaces_the_old_site(fixture_store, kb_store, tmp_path):
    out = tmp_path / "site"
    build(kb_store, out)
    build(fixture_store, out)
    assert {p.stem for p in (out / "records").glob("*.html")} == {r.id for r in fixture_store.records()}
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no temp or backup dirs left behind


def test_failed_build_leaves_the_previous_site(kb_store, tmp_path, monkeypatch):
    out = tmp_path / "site"
    build(kb_store, out)
    before = tree(out)

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(build_module, "_swap", broken)
    with pytest.raises(TracefixError, match="No space left on device"):
        build(kb_store, out)
    assert tree(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_refuses_to_replace_a_directory_it_did_not_write(kb_store, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(TracefixError, match="not written by 'tracefix site build'"):
        build(kb_store, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_every_asset_is_local(kb_site):
    for path in kb_site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        assert '<meta charset="utf-8">' in html
        for ref in re.findall(r'<(?:script|link|img|iframe)\b[^>]*?(?:src|href)="([^"]*)"', html):
            assert not re.match(r"^(?:[a-z]+:|//)", ref), f"{path.name}: external asset {ref}"
            assert (path.parent / ref).resolve().is_file(), f"{path.name}: missing {ref}"
    css = (kb_site / "static" / "site.css").read_text()
    assert "@import" not in css and "url(" not in css and "WenQuanYi" in css


def test_base_url_only_adds_canonical_links(kb_store, kb_site, tmp_path):
    assert "canonical" not in (kb_site / "index.html").read_text()
    build(kb_store, tmp_path / "site", base_url="/kb")
    page = (tmp_path / "site" / "records" / "cuda-oom.html").read_text()
    assert '<link rel="canonical" href="/kb/records/cuda-oom.html">' in page
    assert 'href="../static/site.css"' in page


def test_record_language_is_the_page_language(fixture_site, fixture_store):
    for record in fixture_store.records():
        html = (fixture_site / "records" / f"{record.id}.html").read_text(encoding="utf-8")
        assert html.startswith(f'<!doctype html>\n<html lang="{record.language}">')


def test_planted_script_is_escaped_in_the_html(fixture_site):
    html = (fixture_site / "records" / "fixture-planted-script.html").read_text() + (fixture_site / "index.html").read_text()
    assert "<script>window" not in html and "<img" not in html
    assert "&lt;script&gt;window.__pwned = 3" in html


def test_search_index_is_pure_data(fixture_site):
    """The index script is one assignment of JSON: the planted text in it is a string, never code."""
    prefix, body = "window.TRACEFIX_INDEX = ", (fixture_site / "search-index.js").read_text()
    assert body.startswith(prefix) and body.endswith(";\n")
    index = json.loads(body[len(prefix):-2])
    assert "</" not in body
    assert any("<script>" in d["title"] for d in index["docs"])


@pytest.mark.parametrize(("markdown", "expected"), [
    ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"),
    ("[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n"),
    ("[x](file:///etc/passwd)", "<p>[x](file:///etc/passwd)</p>\n"),
    ("[x](https://a.example/)", '<p><a href="https://a.example/" rel="noopener noreferrer">x</a></p>\n'),
    ("![i](https://a.example/p.png)", '<p>!<a href="https://a.example/p.png" rel="noopener noreferrer">i</a></p>\n'),
    ("```sh\npip install 'a<2'\n```", '<div class="code"><button type="button" class="copy" title="Copy to clipboard">'
     "Copy</button><pre><code class=\"language-sh\">pip install 'a&lt;2'\n</code></pre></div>\n"),
])
def test_markdown_is_rendered_safely(markdown, expected):
    assert render_markdown(markdown) == expected


def test_scraped_text_keeps_its_line_breaks():
    assert render_markdown("第一行\n第二行", scraped=True) == "<p>第一行<br />\n第二行</p>\n"


@pytest.mark.parametrize(("spec", "words"), [
    (">0.14.0", "later than 0.14.0"),
    (">=2.1,<2.3", "2.1 or later and before 2.3"),
    ("==2.2.*", "2.2.x"),
    ("<=1.0,!=0.9", "up to 1.0 and not 0.9"),
    ("", "any version"),
])
def test_version_ranges_read_as_words(spec, words):
    assert readable_spec(spec) == words


def test_conditions_and_titles():
    assert readable_condition("compute_capability<8.0") == "GPU compute capability < 8.0"
    assert title_html("loaded with `device_map='auto'` <b>") == "loaded with <code>device_map=&#39;auto&#39;</code> &lt;b&gt;"


BUILD_SCRIPT = """
import sys
from pathlib import Path
from tests.site.conftest import ARTICLES, KB, SEEDS, make_store
from tracefix.site.build import build
out = Path(sys.argv[1])
build(make_store(out.parent / (out.name + ".db"), KB, SEEDS, ARTICLES), out)
"""


def test_builds_in_separate_processes_are_byte_identical(tmp_path):
    """Hash randomisation differs per process: nothing may depend on set or dict order."""
    for seed, name in (("1", "a"), ("4242", "b")):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", BUILD_SCRIPT, str(tmp_path / name)], cwd=ROOT, env=env, check=True, timeout=120)
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_empty_knowledge_base_builds_an_empty_site(tmp_path):
    assert build(make_store(tmp_path / "kb.db"), tmp_path / "site") == 0
    assert (tmp_path / "site" / "index.html").is_file() and (tmp_path / "site" / MARKER).is_file()
