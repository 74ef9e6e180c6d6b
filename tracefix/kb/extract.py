"""Prose heuristics for scraped articles: error lines, packages, version phrases, GPU counts.

Each function returns what it found together with how: "explicit" when the article states it in
so many words (a quoted error line, "fixed in 2.3"), "heuristic" when it is inferred.
"""

from __future__ import annotations

import re

from packaging.utils import canonicalize_name

# An English error line: "RuntimeError: ..." or a quoted English sentence inside Chinese prose.
_TYPED_ERROR = re.compile(r"\b((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)):\s*([^\"“”\n]{8,300})")
_QUOTED = re.compile(r"[\"“]([A-Za-z][^\"“”\n]{15,300})[\"”]")
_ERRORISH = re.compile(r"(?i)\b(error|expected|failed|cannot|can't|unable|not (?:found|supported)|no \w+ (?:type|device)|must be|timed? ?out)\b")

# Chinese symptom phrases that name a log line without quoting it (seed 002's list, for one).
_PHRASE_SIGNATURES: tuple[tuple[str, str], ...] = (
    ("kill -9", "exitcode: -9"),
    ("内存不足", "CUDA out of memory"),
    ("Out of Memory", "CUDA out of memory"),
    ("通信初始化失败", "NCCL error"),
)

# Spelling in prose -> (distribution name, import-name frame hint). `<` and `>` mark word edges.
# NOTE: \b would not fire between "使用" and "DeepSpeed" (CJK letters are \w), hence ASCII edges.
_EDGE = {"<": r"(?<![A-Za-z0-9_])", ">": r"(?![A-Za-z0-9_])"}
_PACKAGES: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(re.sub(r"[<>]", lambda m: _EDGE[m.group(0)], pattern), re.IGNORECASE), dist, frame)
    for pattern, dist, frame in (
        (r"pytorch[ _-]?lightning|<lightning>", "lightning", "lightning.pytorch"),
        (r"swiss ?army ?transformer|<SAT>", "swissarmytransformer", "sat"),
        (r"<deepspeed>", "deepspeed", "deepspeed"),
        (r"<unsloth>", "unsloth", "unsloth"),
        (r"llama[ -]?factory", "llamafactory", "llamafactory"),
        (r"<bitsandbytes>", "bitsandbytes", "bitsandbytes"),
        (r"<transformers>", "transformers", "transformers"),
        (r"<accelerate>", "accelerate", "accelerate"),
        (r"<peft>", "peft", "peft"),
        (r"<vllm>", "vllm", "vllm"),
        (r"flash[ _-]?attn|flashattention", "flash-attn", "flash_attn"),
        (r"<pytorch>|<torch>", "torch", "torch"),
    )
)
# Dotted module paths and call names quoted in prose: torch.distributed.broadcast_object_list, lr_find().
_DOTTED = re.compile(r"(?<![A-Za-z0-9_.])([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*){1,6})(?![A-Za-z0-9_])")
_CALL = re.compile(r"(?<![A-Za-z0-9_.])([a-z][a-z0-9]*_[a-z0-9_]+)(?![A-Za-z0-9_.])")

_VERSION = r"v?(\d+(?:\.\d+){0,3})"
_AFFECTED_IN = re.compile(
    r"(?:在|于)\s*(?:[A-Za-z][\w -]*?\s*)?" + _VERSION + r"\s*版本中?(?:出现|引入|存在)"
    r"|(?:出现|存在)(?:在|于)\s*(?:[A-Za-z][\w -]*?\s*)?" + _VERSION + r"\s*版本"
)
_DOWNGRADE = re.compile(r"(?:降级|回退|降低\S{0,8}?版本)\S{0,6}?到\s*" + _VERSION + r"(?:\s*版本)?")
_FIXED_IN = re.compile(r"(?i)(?:fixed|resolved) in (?:version )?" + _VERSION + r"|在\s*" + _VERSION + r"\s*版本中?(?:已经?)?修复")
_AFFECTED_EN = re.compile(r"(?i)(?:introduced|appears?|occurs?) in (?:version )?" + _VERSION)
_GPU_WORDS = re.compile(r"双卡|多卡|多GPU|多 GPU|多个GPU|(\d+)\s*张\s*\w*\s*(?:GPU|卡|H100|A100|V100|A800|H800|3090|4090)|multi-?GPU|multiple GPUs|(\d+)\s*x?\s*GPUs", re.IGNORECASE)


def error_lines(text: str) -> list[tuple[str, str]]:
    """English error lines in the prose, (line, provenance), most explicit first."""
    found: dict[str, str] = {}
    for m in _TYPED_ERROR.finditer(text):
        found.setdefault(_tidy(m.group(2)), "explicit")
    for m in _QUOTED.finditer(text):
        if _ERRORISH.search(m.group(1)):
            found.setdefault(_tidy(m.group(1)), "explicit")
    # "X" and "RuntimeError: X" are one error line: keep the fuller one.
    unique = {line.lower(): (line, how) for line, how in reversed(found.items())}
    return [pair for key, pair in reversed(unique.items()) if not any(key != other and key in other for other in unique)]


def phrase_signatures(text: str) -> list[str]:
    """Log signatures implied by symptom phrases, for articles that quote no error line."""
    return list(dict.fromkeys(sig for phrase, sig in _PHRASE_SIGNATURES if phrase.lower() in text.lower()))


def _tidy(line: str) -> str:
    return line.strip().rstrip("!。.,，;；").strip()


def packages(text: str) -> tuple[list[str], list[str]]:
    """(distribution names, frame hints) of the packages the prose names, in order of first mention."""
    hits = sorted((m.start(), dist, frame) for pattern, dist, frame in _PACKAGES for m in [pattern.search(text)] if m)
    dists = [canonicalize_name(dist) for _, dist, _ in hits]
    return list(dict.fromkeys(dists)), list(dict.fromkeys(frame for _, _, frame in hits))


def code_names(text: str) -> list[str]:
    """Module paths and snake_case call names mentioned in the prose (frame hints)."""
    names = [m.group(1) for m in _DOTTED.finditer(text) if not m.group(1).endswith((".py", ".json", ".txt"))]
    names += [m.group(1) for m in _CALL.finditer(text)]
    return list(dict.fromkeys(names))


# Names every distributed failure goes through: they say nothing about which cause it is.
_COMMON_CALLS = frozenset({"all_reduce", "all_gather", "broadcast", "reduce_scatter", "barrier", "send", "recv",
                           "init_process_group", "backward", "forward", "step", "to", "cuda"})


def situation(dists: list[str], frames: list[str]) -> list[str]:
    """The article's situation: the packages and code names its prose mentions, less torch itself
    and the collectives and calls that every distributed failure passes through."""
    names = [d for d in dists if d != "torch"]
    names += [f for f in frames if not f.startswith("torch") and f.split(".")[-1] not in _COMMON_CALLS]
    return [n for n in dict.fromkeys(names) if len(n) >= 3]


def version_ranges(text: str, default: str | None) -> dict[str, dict[str, str]]:
    """{"affected"|"fixed"|"works": {package: specifier}} from version statements.

    A statement belongs to the package named just before it ("将DeepSpeed降级到0.14.0"), else to
    `default`, the article's main package.
    """
    ranges: dict[str, dict[str, str]] = {}

    def put(kind: str, m: re.Match[str], spec: str) -> None:
        package = _package_before(text, m.start(), m.end()) or default
        if package:
            ranges.setdefault(kind, {})[package] = spec

    if m := _AFFECTED_IN.search(text) or _AFFECTED_EN.search(text):
        put("affected", m, _series(_first_group(m)))
    if m := _DOWNGRADE.search(text):
        put("affected", m, f">{m.group(1)}")
        put("works", m, f"=={m.group(1)}")
    if m := _FIXED_IN.search(text):
        put("fixed", m, f">={_first_group(m)}")
    return ranges


def _first_group(m: re.Match[str]) -> str:
    return next(g for g in m.groups() if g)


def _package_before(text: str, start: int, end: int) -> str | None:
    """The last package named in the 40 characters before a statement, or inside it."""
    window = text[max(0, start - 40) : end]
    hits = [(m.end(), dist) for pattern, dist, _ in _PACKAGES if dist != "torch" for m in pattern.finditer(window)]
    return canonicalize_name(max(hits)[1]) if hits else None


def _series(version: str) -> str:
    """"2.2" -> "==2.2.*": a release series; a full version stays exact."""
    return f"=={version}.*" if version.count(".") < 2 else f"=={version}"


def gpu_conditions(text: str) -> list[str]:
    """`gpus>=2` when the article is about several GPUs ("双卡", "多GPU", "8张H100")."""
    for m in _GPU_WORDS.finditer(text):
        count = m.group(1) or m.group(2)
        if count is None or int(count) >= 2:
            return ["gpus>=2"]
    return []
