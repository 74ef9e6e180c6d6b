"""One clean-up for environment text as people paste it, applied before any parser reads it.

Reports copied into issues arrive quoted (`> `), indented under a list item, with the fullwidth
colon and space of CJK input methods (`GPU 0：`, `0.34.2　(...)`), or inside Markdown fences and
`<details>` tags. Every parser reads `lines(text)` instead of undoing these itself.
"""

from __future__ import annotations

import re
import textwrap

_QUOTE = re.compile(r"^[ \t]{0,3}(?:>[ \t]?)+")
_MARKUP = re.compile(r"^\s*(?:```|~~~|</?details>|</?summary>|<summary>.*</summary>\s*$)")
_WIDE = str.maketrans({"\uff1a": ": ", "\u3000": " ", "\u00a0": " ", "\uff0c": ", "})


def line(text: str) -> str:
    """One line: quote marks off, fullwidth colon / space made plain, trailing blanks off.

    >>> line("> GPU 0：NVIDIA A100")
    'GPU 0: NVIDIA A100'
    """
    text = text.translate(_WIDE)
    if ">" in text[:8]:
        text = _QUOTE.sub("", text)
    return text.rstrip()


def lines(text: str | None, limit: int = 20000) -> list[str]:
    """Every line of a pasted report, cleaned and dedented together (relative indentation, which
    `nvidia-smi -q` uses for nesting, is kept); fence and `<details>` lines dropped."""
    if not text:
        return []
    kept = [line(raw[:2000]) for raw in text.splitlines()[:limit]]
    kept = [t for t in kept if not _MARKUP.match(t)]
    return textwrap.dedent("\n".join(kept)).splitlines()


def text(raw: str | None, limit: int = 20000) -> str:
    """`lines()` joined back into one string."""
    return "\n".join(lines(raw, limit))
