"""Site fixtures: the shipped KB and a fixture KB built once per session, and real headless Chromium.

Chromium is Debian's /usr/bin/chromium driven by Playwright (`playwright install` is never run);
a missing browser fails the tests loudly rather than skipping them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, SEEDS
from tracefix.kb.store import Store
from tracefix.kb.validate import load_all
from tracefix.site.build import build

KB = ROOT / "data" / "kb"
ARTICLES = Path(__file__).resolve().parent / "articles"
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def make_store(path: Path, *folders: Path) -> Store:
    """A fresh store holding every article of `folders`; invalid articles fail the test run."""
    store = Store(path)
    for folder in folders:
        records, problems = load_all([folder])
        assert not problems, [str(p) for p in problems]
        store.ingest(records, origin="shipped" if folder == KB else "user")
    return store


@pytest.fixture(scope="session")
def kb_store(tmp_path_factory) -> Store:
    return make_store(tmp_path_factory.mktemp("kb") / "kb.db", KB)


@pytest.fixture(scope="session")
def kb_site(tmp_path_factory, kb_store) -> Path:
    """The site of the shipped knowledge base (data/kb) exactly as users get it."""
    out = tmp_path_factory.mktemp("kb-site") / "site"
    build(kb_store, out)
    return out


@pytest.fixture(scope="session")
def fixture_store(tmp_path_factory) -> Store:
    return make_store(tmp_path_factory.mktemp("fixture") / "kb.db", SEEDS, ARTICLES)


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory, fixture_store) -> Path:
    """The site of the Chinese seeds plus tests/site/articles (planted script, version ranges)."""
    out = tmp_path_factory.mktemp("fixture-site") / "site"
    build(fixture_store, out)
    return out


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A fresh page; `page.requests` logs every URL it asked for, and a script error fails the test."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.requests, errors = [], []
    page.on("request", lambda request: page.requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def url(site: Path, rel: str = "index.html") -> str:
    return (site / rel).as_uri()


def search(page, text: str, typed: bool = False) -> list[str]:
    """Enter `text` in the start page's search box and return the ids shown, best first."""
    box = page.locator("#q")
    box.fill("")
    if typed:
        box.press_sequentially(text)
    else:
        box.fill(text)
    page.wait_for_function("document.getElementById('status').textContent !== ''")
    return page.eval_on_selector_all("#results li", "items => items.map(li => li.dataset.id)")
