"""Record -> page context for the static site: everything a template shows, already made safe.

Article text is untrusted (scraped seeds, user articles). Markdown goes through markdown-it-py with
raw HTML disabled, so `<script>` comes out as text; only http(s) links become anchors (any other
target stays as plain text) and images are not rendered at all, so a page never fetches anything.
Everything else is plain text that Jinja2 autoescapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup, escape
from packaging.specifiers import InvalidSpecifier, Specifier

from tracefix.kb.record import Record, parse_condition

_HTTP = re.compile(r"^https?://[^\s<>\"']+$", re.IGNORECASE)
_BACKTICKS = re.compile(r"`([^`]+)`")
_LANG_CLASS = re.compile(r"^[A-Za-z0-9_+-]{1,30}$")
_SPEC_WORDS = {
    "==": "{v}", "===": "exactly {v}", "!=": "not {v}", ">=": "{v} or later", ">": "later than {v}",
    "<=": "up to {v}", "<": "before {v}", "~=": "compatible with {v}",
}
_ENV_LABELS = {"gpus": "GPUs", "compute_capability": "GPU compute capability", "driver": "NVIDIA driver", "cuda": "CUDA"}
_OPS = {">=": "≥", "<=": "≤", "!=": "≠", "==": "=", "<": "<", ">": ">"}


def is_http(url: str) -> bool:
    return bool(_HTTP.match(url.strip()))


def _fence(self, tokens, idx, options, env) -> str:
    """A code block with its own copy button (site.js wires the buttons up)."""
    token = tokens[idx]
    info = token.info.strip().split(" ")[0] if token.info else ""
    cls = f' class="language-{info}"' if _LANG_CLASS.match(info) else ""
    return (f'<div class="code"><button type="button" class="copy" title="Copy to clipboard">Copy</button>'
            f"<pre><code{cls}>{escapeHtml(token.content)}</code></pre></div>\n")


def _link_open(self, tokens, idx, options, env) -> str:
    tokens[idx].attrSet("rel", "noopener noreferrer")
    return self.renderToken(tokens, idx, options, env)


def _markdown(breaks: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": breaks})
    md.disable("image")
    md.validateLink = is_http  # type: ignore[method-assign]
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _fence)
    md.add_render_rule("link_open", _link_open)
    return md


# Authored articles wrap prose, scraped seeds put one statement per line: keep their line breaks.
_MD_AUTHORED, _MD_SCRAPED = _markdown(breaks=False), _markdown(breaks=True)


def render_markdown(text: str, scraped: bool = False) -> Markup:
    """Safe HTML for a cause or fix: raw HTML escaped, non-http(s) links left as text."""
    return Markup((_MD_SCRAPED if scraped else _MD_AUTHORED).render(text))


def title_html(title: str) -> Markup:
    """A title with its `code spans` as <code>; everything else escaped."""
    out, pos = [], 0
    for m in _BACKTICKS.finditer(title):
        out += [escape(title[pos : m.start()]), Markup("<code>%s</code>") % m.group(1)]
        pos = m.end()
    return Markup("").join([*out, escape(title[pos:])])


def plain_title(title: str) -> str:
    """A title for places without markup (<title>, search results): backticks dropped."""
    return _BACKTICKS.sub(r"\1", title)


def readable_spec(spec: str) -> str:
    """`>=2.1,<2.3` -> `2.1 or later and before 2.3`; the clauses keep the article's order."""
    words = []
    for clause in filter(None, spec.split(",")):
        try:
            s = Specifier(clause)
        except InvalidSpecifier:
            words.append(clause)
            continue
        version = s.version.replace(".*", ".x") if s.operator == "==" else s.version
        words.append(_SPEC_WORDS.get(s.operator, s.operator + "{v}").format(v=version))
    return " and ".join(words) or "any version"


def readable_condition(condition: str) -> str:
    """`gpus>=2` -> `GPUs ≥ 2`."""
    key, op, value = parse_condition(condition)
    return f"{_ENV_LABELS.get(key, key)} {_OPS.get(op, op)} {value}"


@dataclass(frozen=True)
class Cell:
    """One version-range cell: the specifier as written, and in words."""

    spec: str
    words: str


@dataclass(frozen=True)
class RangeRow:
    package: str
    affected: Cell | None
    fixed: Cell | None
    works: Cell | None


@dataclass(frozen=True)
class Reference:
    url: str
    is_link: bool


@dataclass(frozen=True)
class Condition:
    raw: str
    words: str


@dataclass(frozen=True)
class RecordPage:
    """What record.html shows; built by `record_page`. `url` is relative to the site root."""

    id: str
    url: str
    title: str
    title_html: Markup
    lang: str
    area: str
    packages: tuple[str, ...]
    symptoms: tuple[str, ...]
    frames: tuple[str, ...]
    cause_html: Markup
    fix_html: Markup
    ranges: tuple[RangeRow, ...]
    environment: tuple[Condition, ...]
    references: tuple[Reference, ...]
    source_name: str
    origin: str
    translated_from: str | None
    heuristic: tuple[str, ...]


def _cell(ranges: dict[str, str], package: str) -> Cell | None:
    spec = ranges.get(package)
    return Cell(spec, readable_spec(spec)) if spec is not None else None


def range_rows(record: Record) -> tuple[RangeRow, ...]:
    """One row per package named in affected/fixed/works, sorted by package."""
    names = sorted({*record.affected, *record.fixed, *record.works})
    return tuple(RangeRow(n, _cell(record.affected, n), _cell(record.fixed, n), _cell(record.works, n)) for n in names)


def record_url(record_id: str) -> str:
    return f"records/{record_id}.html"


def record_page(record: Record, origin: str = "") -> RecordPage:
    """The page context of one record."""
    scraped = not record.source.endswith(".md")
    return RecordPage(
        id=record.id,
        url=record_url(record.id),
        title=plain_title(record.title),
        title_html=title_html(record.title),
        lang=record.language or "en",
        area=record.area,
        packages=record.all_packages(),
        symptoms=record.symptoms,
        frames=record.frames,
        cause_html=render_markdown(record.cause, scraped),
        fix_html=render_markdown(record.fix, scraped),
        ranges=range_rows(record),
        environment=tuple(Condition(c, readable_condition(c)) for c in record.environment),
        references=tuple(Reference(u, is_http(u)) for u in record.references),
        source_name=PurePath(record.source).name if record.source else "",
        origin=origin,
        translated_from=record.translated_from,
        heuristic=tuple(sorted(k for k, v in record.provenance.items() if v == "heuristic")),
    )
