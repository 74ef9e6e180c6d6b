"""Scraped plain-text articles (zh or en, site chrome around them) -> Record.

The text has no Markdown headings: section titles are lines the vocabulary knows (问题背景, Root
cause...). Navigation before the title and recommendation lists after the article are cut first,
so nothing of the site reaches a record field.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import ValidationError

from tracefix.errors import ArticleError
from tracefix.kb import extract, phrasings, sections
from tracefix.kb.record import Record

# Lines that end the article: login walls and recommendation blocks.
_END_MARKERS = re.compile(
    r"^(登录后查看全文|热门项目推荐|相关项目推荐|热门内容推荐|最新内容推荐|项目优选|相关推荐|推荐阅读|"
    r"sign in to (?:read|view)|log in to (?:read|view)|related (?:articles|posts|projects)|recommended (?:for you|articles)|read more)",
    re.IGNORECASE,
)
# A repository card in a recommendation list: "...Cherry Studio 是一款...TypeScript039".
_REPO_CARD = re.compile(r"(TypeScript|JavaScript|Python|C\+\+|Go|Java|Vue|Rust|Dart|TSX|Dockerfile|Shell|C)\d{1,5}$")
_NAV_LINE = re.compile(r"^(首页|home|/\s.*|.*>\s.*>.*)$", re.IGNORECASE)
_BYLINE = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?\s*(作者|by\b|author)?", re.IGNORECASE)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _article_lines(text: str) -> tuple[str, list[str]]:
    """(title, body lines) with the site chrome before and after removed."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
    lines = _join_markers([line for line in lines if line])
    while lines and _NAV_LINE.match(lines[0]):
        lines.pop(0)
    if not lines:
        raise ArticleError("", None, "no article text found")
    title, body = lines[0], lines[1:]
    while body and (body[0] == title or _BYLINE.match(body[0])):
        body.pop(0)
    for i, line in enumerate(body):
        if _END_MARKERS.match(line) or _is_repo_card(body, i):
            body = body[:i]
            break
    return title, body


def _join_markers(lines: list[str]) -> list[str]:
    """Scrapers put list markers ("-", "1.") on a line of their own: join them to their item."""
    out: list[str] = []
    for line in lines:
        if out and re.fullmatch(r"-|\d+[.、]", out[-1]):
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
    return out


def _is_repo_card(body: list[str], i: int) -> bool:
    """A slug-like line followed by a description ending in language + star count."""
    nxt = body[i + 1] if i + 1 < len(body) else ""
    return bool(re.fullmatch(r"[\w.\-]+", body[i])) and bool(_REPO_CARD.search(nxt))


def split_sections(body: list[str]) -> dict[str, str]:
    """Body lines grouped by the field of the last known heading above them."""
    out: dict[str, list[str]] = {}
    field = sections.BACKGROUND
    for line in body:
        heading = sections.field_for_heading(line) if len(line) <= 40 else None
        if heading:
            field = heading
            continue
        out.setdefault(field, []).append(line)
    return {name: "\n".join(lines) for name, lines in out.items()}


def language_of(text: str) -> str:
    """"zh" when a notable share of the letters are CJK, else "en"."""
    cjk = len(_CJK.findall(text))
    return "zh" if cjk > 0.1 * max(1, len(re.findall(r"\w", text))) else "en"


_ID_WORDS = 9
_ERROR_HEAD = re.compile(r"^(?:[\w.]+(?:Error|Exception)|error):\s*", re.IGNORECASE)


def slug_for(source: str, title: str, symptoms: list[str] | tuple[str, ...] = ()) -> str:
    """A readable id: the Latin words of the title (product names survive in a Chinese title) and of
    the first error line, e.g. `cogvlm-no-backend-type-associated-with-device-type`. The file name
    (often a hash) is kept in `source`, and used only when neither gives a word."""
    words = re.findall(r"[a-z][a-z0-9]*", title.lower())
    if symptoms:
        words += [w for w in re.findall(r"[a-z][a-z0-9]*", _ERROR_HEAD.sub("", symptoms[0]).lower()) if w not in words]
    words = words[:_ID_WORDS] or re.findall(r"[a-z0-9]+", Path(source).stem.lower())
    return "-".join(words)[:80].strip("-") or "article"


def parse(text: str, source: str, record_id: str | None = None) -> Record:
    """Parse one scraped article; every extracted field records its provenance."""
    try:
        title, body = _article_lines(text)
    except ArticleError:
        raise ArticleError(source, None, "no article text found") from None
    parts = split_sections(body)
    fields, provenance = _extracted_fields(title, parts, "\n".join(body))
    data = {
        "id": record_id or slug_for(source, title, fields["symptoms"]),
        "title": title[:200],
        "cause": parts.get(sections.CAUSE) or parts.get(sections.ANALYSIS, ""),
        "fix": "\n\n".join(p for p in (parts.get(sections.FIX), parts.get(sections.ADVICE)) if p),
        "language": language_of(title + "\n".join(body)),
        "source": source,
        **fields,
    }
    data["provenance"] = {"title": "explicit", "cause": "explicit", "fix": "explicit", **provenance}
    try:
        return Record(**data)
    except ValidationError as e:
        err = e.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "article"
        raise ArticleError(source, None, f"{field}: {err['msg'].removeprefix('Value error, ')}") from None


def _extracted_fields(title: str, parts: dict[str, str], whole: str) -> tuple[dict, dict]:
    """Symptoms, packages, frames, ranges and conditions from the prose, with their provenance."""
    provenance: dict[str, str] = {}
    lines = extract.error_lines(whole)
    symptoms = [line for line, _ in lines]
    provenance["symptoms"] = "explicit" if symptoms else "heuristic"
    if not symptoms:
        symptoms = extract.phrase_signatures(parts.get(sections.SYMPTOMS, "") or whole)
    symptoms = phrasings.expand(symptoms)
    # Names in the fix are what to do, not where it failed: packages and frames come from the rest.
    described = "\n".join(parts.get(k, "") for k in (sections.BACKGROUND, sections.SYMPTOMS, sections.ANALYSIS, sections.CAUSE))
    dists, hints = extract.packages(title + "\n" + described)
    frames = hints + extract.code_names(described)
    main = next((d for d in dists if d != "torch"), dists[0] if dists else None)
    ranges = extract.version_ranges(whole, main)
    environment = extract.gpu_conditions(title + "\n" + whole)
    for name in ("packages", "frames", "environment"):
        provenance[name] = "heuristic"
    for name in ranges:
        provenance[name] = "explicit"
    provenance["situation"] = "heuristic"
    fields = {"symptoms": symptoms, "packages": dists, "frames": frames[:20], "environment": environment,
              "situation": extract.situation(dists, frames), **ranges}
    return fields, provenance
