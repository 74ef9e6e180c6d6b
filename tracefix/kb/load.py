"""Reading article files: size, encoding and format checks, then the right parser.

Every bad input becomes one ArticleError line; nothing here writes anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from tracefix.errors import ArticleError
from tracefix.kb import frontmatter, scraped
from tracefix.kb.record import Record

MAX_ARTICLE_BYTES = 1_000_000
ARTICLE_SUFFIXES = (".md", ".markdown", ".txt")


def article_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Files as given, folders expanded to their articles (sorted; `_template.md` and `_*` skipped)."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.suffix in ARTICLE_SUFFIXES and not child.name.startswith(("_", ".")):
                    yield child
        elif path.exists():
            yield path
        else:
            raise ArticleError(str(path), None, "no such file or folder")


def read_text(path: Path) -> str:
    """The article's text, refusing empty, oversized, binary and non-UTF-8 files."""
    source = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_ARTICLE_BYTES:
            raise ArticleError(source, None, f"file is {size / 1e6:.1f} MB; articles are limited to {MAX_ARTICLE_BYTES // 1_000_000} MB")
        data = path.read_bytes()
    except OSError as e:
        raise ArticleError(source, None, f"cannot read file ({e.strerror})") from None
    if b"\x00" in data:
        raise ArticleError(source, None, "binary file, not an article")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ArticleError(source, line, "not valid UTF-8 text") from None
    if not text.strip():
        raise ArticleError(source, None, "file is empty")
    return text


def parse_article(text: str, source: str) -> Record:
    """Front-matter Markdown when it starts with '---', scraped plain text otherwise."""
    if frontmatter.has_front_matter(text):
        return frontmatter.parse(text, source)
    return scraped.parse(text, source)


def load_article(path: Path) -> Record:
    return parse_article(read_text(path), str(path))
