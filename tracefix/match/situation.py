"""Whether a record's situation shows in a log: its hints looked up as whole words.

A hint is a frame module (`lightning.pytorch.tuner`), a call (`lr_find`), a package (`unsloth`),
a setting (`offload_optimizer`) or a literal fragment (`"module.`). It is seen when a frame of the
traceback is in that module, or when it stands in the log text (traceback, prose pasted around it)
as a whole word: `sat` must not be found inside `satisfied`.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=8192)
def _pattern(hint: str) -> re.Pattern[str]:
    # Boundaries only where the hint itself starts or ends with a word character.
    start = r"(?<![\w.])" if hint[0].isalnum() or hint[0] == "_" else ""
    # A call named in prose takes English endings: "lr_find" -> "lr finding".
    end = r"(?:s|es|ed|ing|er)?(?![\w])" if hint[-1].isalnum() or hint[-1] == "_" else ""
    variants = {hint, *_spellings(hint)}
    return re.compile(start + "(?:" + "|".join(map(re.escape, sorted(variants))) + ")" + end, re.IGNORECASE)


@lru_cache(maxsize=8192)
def _spellings(hint: str) -> tuple[str, ...]:
    """How else a log writes it: a module as a path, a package with `_` or `-`, a call in prose
    ("lr_find" becomes "lr find")."""
    return hint.replace(".", "/"), hint.replace("-", "_"), hint.replace("_", " ")


def module_prefixes(modules: tuple[str, ...]) -> frozenset[str]:
    """Every dotted prefix of the log's frame modules and packages, lower-cased: `a.b.c` -> a, a.b, a.b.c."""
    out = set()
    for module in modules:
        parts = module.lower().split(".")
        out.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return frozenset(out)


def hint_seen(hint: str, prefixes: frozenset[str], text: str) -> bool:
    """`prefixes`: `module_prefixes` of the log; `text`: the log, lower-cased."""
    low = hint.lower()
    if low in prefixes:
        return True
    if low not in text and not any(v in text for v in _spellings(low)):
        return False  # a substring test first: most hints are absent from most logs
    return bool(_pattern(hint).search(text))


def seen(hints: tuple[str, ...], prefixes: frozenset[str], text: str) -> tuple[str, ...]:
    """The hints that show in the log, in the record's order."""
    return tuple(h for h in hints if hint_seen(h, prefixes, text))
