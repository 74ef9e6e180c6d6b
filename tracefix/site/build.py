"""build(store, out) -> the offline static docs site of the knowledge base.

Layout of OUT (every link is relative, so the site works from file:// with no server):

    index.html            start page: search box, records by area and by package
    records/<id>.html     one page per record
    search-index.js       the client-side search index (a script: file:// forbids fetching JSON)
    static/site.css, static/site.js

`base_url` (e.g. `/kb/` or `https://docs.example/kb/`) is only used for absolute links, i.e. the
`<link rel="canonical">` of each page; leave it empty for a site opened from disk.

The build is deterministic (records sorted by id, no timestamps, no random ids) and atomic: the
site is written to a temporary directory next to OUT and renamed into place, so a failed build
leaves the previous site (or nothing) rather than half a site.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import defaultdict
from importlib import resources
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from tracefix import __version__
from tracefix.errors import TracefixError
from tracefix.kb.record import Record
from tracefix.site.pages import RecordPage, record_page
from tracefix.site.search_index import build_index, index_js

MARKER = ".tracefix-site"
STATIC_FILES = ("site.css", "site.js")
NO_PACKAGE = "(no package)"


class SiteError(TracefixError):
    """The site cannot be written where asked."""


def build(store, out: str | Path, base_url: str = "") -> int:
    """Write the site for every record in `store` to `out`; returns the number of record pages."""
    records = sorted(store.records(), key=lambda r: r.id)
    origins = store.origins()
    pages = [record_page(r, origins.get(r.id, "")) for r in records]
    files = render_site(records, pages, base_url)
    write_atomically(Path(out), files)
    return len(pages)


def _env() -> Environment:
    env = Environment(loader=PackageLoader("tracefix.site", "templates"), autoescape=True,
                      undefined=StrictUndefined, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    env.globals["version"] = __version__
    return env


def _base(base_url: str) -> str:
    return base_url if not base_url or base_url.endswith("/") else base_url + "/"


def render_site(records: list[Record], pages: list[RecordPage], base_url: str = "") -> dict[str, bytes]:
    """Every file of the site: relative path -> bytes."""
    env, base = _env(), _base(base_url)
    files = {"index.html": _render(env, "index.html", root="", canonical=base and base + "index.html",
                                   lang="en", areas=group_by_area(pages), packages=group_by_package(pages),
                                   count=len(pages))}
    for page in pages:
        files[page.url] = _render(env, "record.html", root="../", canonical=base and base + page.url,
                                  lang=page.lang, page=page)
    files["search-index.js"] = index_js(build_index(records)).encode("utf-8")
    for name in STATIC_FILES:
        files[f"static/{name}"] = resources.files("tracefix.site").joinpath("static", name).read_bytes()
    files[MARKER] = b"written by tracefix site build; this directory is replaced on every build\n"
    return files


def _render(env: Environment, template: str, **context) -> bytes:
    return env.get_template(template).render(**context).encode("utf-8")


def _title_key(page: RecordPage) -> tuple[str, str]:
    return (page.title.casefold(), page.id)


def group_by_area(pages: list[RecordPage]) -> list[tuple[str, list[RecordPage]]]:
    groups: dict[str, list[RecordPage]] = defaultdict(list)
    for page in pages:
        groups[page.area].append(page)
    return [(area, sorted(groups[area], key=_title_key)) for area in sorted(groups)]


def group_by_package(pages: list[RecordPage]) -> list[tuple[str, list[RecordPage]]]:
    groups: dict[str, list[RecordPage]] = defaultdict(list)
    for page in pages:
        for name in page.packages or (NO_PACKAGE,):
            groups[name].append(page)
    return [(name, sorted(groups[name], key=_title_key)) for name in sorted(groups)]


def _check_target(out: Path) -> None:
    """Refuse to replace a directory that is not a previous site (a typo must not eat $HOME)."""
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise SiteError(f"{out}: directory is not empty and was not written by 'tracefix site build'; choose another OUT")


def write_atomically(out: Path, files: dict[str, bytes]) -> None:
    """Write `files` to a temp dir beside `out`, then swap it in with renames."""
    _check_target(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    except OSError as e:
        raise SiteError(f"{out}: cannot create the site directory ({e.strerror})") from None
    try:
        for rel, data in sorted(files.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        os.chmod(tmp, 0o755)
        _swap(tmp, out)
    except OSError as e:
        raise SiteError(f"{out}: cannot write the site ({e.strerror})") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _swap(tmp: Path, out: Path) -> None:
    """Rename `tmp` to `out`; an old site is moved aside first and removed only afterwards."""
    if not out.exists():
        tmp.rename(out)
        return
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    out.rename(old)
    try:
        tmp.rename(out)
    except OSError:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)
