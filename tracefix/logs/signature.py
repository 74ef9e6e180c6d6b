"""Signatures: one vocabulary for masking log messages and for the symptom patterns of records.

A log line and a record's symptom are both passed through `mask()`, so an author can paste a real
error line into an article and it still matches the same error with other numbers, paths, devices
or ranks. In a symptom, `...` (or `…`) stands for any text on the same line, and a final `$` says
the message ends its line: newer transformers print a bare "Your setup doesn't support bf16/gpu."
only when no CUDA device is visible, and add " You need Ampere+ GPU ..." when there is one.
"""

from __future__ import annotations

import re
from functools import lru_cache



def _path(m: re.Match[str]) -> str:
    """A path's folders vary between machines; its file name (libcudart.so, flash_attn_2_cuda...) is evidence."""
    name = re.split(r"[/\\]", m.group(0).rstrip("/\\"))[-1]
    return f"<PATH>/{name}" if name else "<PATH>"


def _number(m: re.Match[str]) -> str:
    """Numbers vary, but a small negative exit code is a signal number: -9 (SIGKILL) is not -6."""
    sign, digits = m.group(1), m.group(2)
    if sign and len(digits) <= 2:
        return m.group(0)
    return f"{sign}<N>"


# Order matters: timestamps and paths contain numbers, hex addresses contain letters.
_MASKS: tuple[tuple[re.Pattern[str], object], ...] = (
    (re.compile(r"\d{4}-\d{2}-\d{2}[ T_]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?"), "<TIME>"),
    (re.compile(r"\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<TIME>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[/\\][\w.\-+@~]+){2,}[/\\]?"), _path),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<HEX>"),
    (re.compile(r"\b[0-9a-f]{12,}\b"), "<HEX>"),
    (re.compile(r"(?<![A-Za-z_\d.])(-?)(\d+(?:\.\d+)*)(?![\d])"), _number),
)
# A leading exception type is optional evidence: prose and partial pastes often leave it out.
_TYPE_PREFIX = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning):\s*")
_FLAT = re.compile(r"\s+")
_PLACEHOLDER = re.compile(r"<(?:TIME|PATH|HEX|N)>")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
_SPACES = re.compile(r"[ \t\f\v]+")
# A paste copied from a rendered page loses Markdown's backticks and may gain typographic quotes
# (`.to` is shown as .to; couldn't as couldn‘t): neither is evidence, so both sides drop them.
_MARKUP = str.maketrans({"`": None, "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
# Gaps stay on one line and are bounded, so a pattern cannot backtrack across megabytes.
_GAP = r"[^\n]{0,400}?"
_LINE_END = r"[ \t]*(?=\r?\n|\Z)"
MAX_SYMPTOM_CHARS = 400
MASK_VERSION = 2  # bump when mask() changes: cached anchors and masked symptoms are rebuilt


def mask(text: str) -> str:
    """Replace the variable parts of a message with placeholders.

    >>> mask("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 3; 79.15 GiB total)")
    'CUDA out of memory. Tried to allocate <N> MiB (GPU <N>; <N> GiB total)'
    """
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return _SPACES.sub(" ", text.translate(_MARKUP)).strip()



def _literal(piece: str) -> str:
    """Regex for one literal stretch of a masked symptom; placeholders match their own kind."""
    out, pos = [], 0
    for m in _PLACEHOLDER.finditer(piece):
        out.append(re.escape(piece[pos : m.start()]))
        out.append(re.escape(m.group(0)) + r"(?:\s*" + re.escape(m.group(0)) + r")*")
        pos = m.end()
    out.append(re.escape(piece[pos:]))
    return r"\s+".join("".join(out).split(r"\ "))


@lru_cache(maxsize=4096)
def compile_symptom(symptom: str) -> re.Pattern[str]:
    """The regex that finds `symptom` in masked log text (case-insensitive, gaps bounded)."""
    pattern = _GAP.join(_literal(p) for p in symptom_pieces(symptom))
    return re.compile(pattern + (_LINE_END if ends_line(symptom) else ""), re.IGNORECASE)


def ends_line(symptom: str) -> bool:
    """A symptom written with a final `$` matches only where its message ends the line."""
    return symptom.rstrip().endswith("$")


def shown(symptom: str) -> str:
    """The symptom as a person reads it: without the final `$`."""
    return symptom.rstrip().removesuffix("$")


@lru_cache(maxsize=4096)
def anchor(symptom: str) -> str:
    """The longest literal stretch of a symptom: a cheap `in` test before the regex runs."""
    pieces = [bit for piece in symptom_pieces(symptom) for bit in _PLACEHOLDER.split(piece)]
    return max((p.strip() for p in pieces), key=len, default="").lower()


def symptom_pieces(symptom: str) -> list[str]:
    """The masked literal stretches of a symptom, in order, between its `...` gaps.

    >>> symptom_pieces("RuntimeError: Expected all tensors ... cuda:0 and cpu")
    ['Expected all tensors', 'cuda:<N> and cpu']
    """
    return [p for p in _ELLIPSIS.split(_message(shown(symptom))) if p]


def _message(symptom: str) -> str:
    """The masked symptom without its exception type, when enough message is left to be specific."""
    masked = mask(symptom)
    rest = _TYPE_PREFIX.sub("", masked)
    return rest if len(rest) >= 20 else masked


def flatten(masked_text: str) -> str:
    """Lower-cased, all whitespace one space: what `anchor` is looked up in, so wrapped lines still match."""
    return _FLAT.sub(" ", masked_text.lower())


def symptom_matches(symptom: str, masked_text: str, flat: str | None = None) -> bool:
    """Whether `symptom` occurs in text already passed through `mask()` (`flat` = flatten(text), if at hand)."""
    if anchor(symptom) not in (flat if flat is not None else flatten(masked_text)):
        return False
    return compile_symptom(symptom).search(masked_text) is not None
