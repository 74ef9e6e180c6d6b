"""Front-matter Markdown articles (the format of `data/kb/`) -> Record.

The YAML block holds the structured fields; the body's `## Cause` and `## Fix` sections (any heading
the vocabulary in `sections.py` knows) become `cause` and `fix`. Errors name the file and line.
"""

from __future__ import annotations

import yaml
from markdown_it import MarkdownIt
from pydantic import ValidationError

from tracefix.errors import ArticleError
from tracefix.kb import sections
from tracefix.kb.record import Record

_MD = MarkdownIt("commonmark")


def has_front_matter(text: str) -> bool:
    return text.lstrip("\ufeff").startswith("---\n") or text.startswith("---\r\n")


def split_front_matter(text: str, source: str) -> tuple[str, str, int]:
    """(yaml text, body, line number where the body starts)."""
    lines = text.lstrip("\ufeff").splitlines()
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]), i + 2
    raise ArticleError(source, 1, "front matter is not closed by a '---' line")


def _load_yaml(text: str, source: str) -> tuple[dict, dict[str, int]]:
    """The mapping and the line (1-based, in the article) of each top-level key."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 2 if mark else 1
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        context = getattr(e, "context_mark", None)
        if context is not None and context.line + 2 != line:
            problem += f" (in the value that starts on line {context.line + 2})"
        raise ArticleError(source, line, f"front matter is not valid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise ArticleError(source, 2, "front matter must be a mapping of field: value")
    lines = {k.value: k.start_mark.line + 2 for k, _ in node.value} if node is not None else {}
    return data, lines


def body_sections(body: str) -> dict[str, str]:
    """Body text grouped by field, using the headings markdown-it finds."""
    tokens = _MD.parse(body)
    lines = body.splitlines()
    heads = [
        (tok.map[0], tok.map[1], tokens[i + 1].content)
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and tok.map
    ]
    out: dict[str, list[str]] = {}
    for n, (start, end, title) in enumerate(heads):
        field = sections.field_for_heading(title)
        stop = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        if field:
            out.setdefault(field, []).append("\n".join(lines[end:stop]).strip())
    return {field: "\n\n".join(p for p in parts if p) for field, parts in out.items()}


def validation_error(e: ValidationError, source: str, key_lines: dict[str, int]) -> ArticleError:
    """The first pydantic error as one line naming the field and its line in the article."""
    err = e.errors()[0]
    field = str(err["loc"][0]) if err["loc"] else ""
    if err["type"] == "extra_forbidden":
        message = f"unknown field {field!r}"
    elif err["type"] == "missing":
        message = f"missing field {field!r}"
    else:
        message = f"{field}: {err['msg'].removeprefix('Value error, ')}"
    return ArticleError(source, key_lines.get(field), message)


def parse(text: str, source: str) -> Record:
    """Parse one front-matter article into a validated Record."""
    front, body, _ = split_front_matter(text, source)
    data, key_lines = _load_yaml(front, source)
    found = body_sections(body)
    data.setdefault("cause", found.get(sections.CAUSE, ""))
    data.setdefault("fix", found.get(sections.FIX, ""))
    data["source"] = source
    data.setdefault("provenance", {key: "explicit" for key in data if key != "source"})
    try:
        return Record(**data)
    except ValidationError as e:
        raise validation_error(e, source, key_lines) from None
    except TypeError as e:
        raise ArticleError(source, 2, f"front matter keys must be field names ({e})") from None
