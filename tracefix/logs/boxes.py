"""`rich`-style boxed tracebacks (accelerate, typer, kohya scripts) -> plain traceback lines.

rich draws a traceback inside a box:

    ╭──────── Traceback (most recent call last) ────────╮
    │ /usr/lib/python3/site-packages/accelerate/commands/launch.p │
    │ y:567 in simple_launcher                                     │
    │                                                              │
    │ ❱ 567 │   │   raise subprocess.CalledProcessError(...)        │
    ╰──────────────────────────────────────────────────────────────╯
    CalledProcessError: Command '[...]' returned non-zero exit status 1.

The frame header (`path:line in function`) may wrap over several box lines, code lines carry
line numbers and `│` guides, and `show_locals` adds nested panels. This turns the title into
`Traceback (most recent call last):` and each header into `File "path", line N, in function`,
so the traceback parser reads a boxed traceback like a plain one. Every other line of a traceback
box becomes empty (never dropped: line numbers stay those of the input); other rich panels are left
as they are. The exception line after the box is plain text already.
"""

from __future__ import annotations

import functools
import re

_BOX_START = ("│", "╭", "╰")
_MAX_PIECES = 6          # a header wrapped over more box lines than this is not a header


@functools.cache
def _patterns() -> tuple[re.Pattern, re.Pattern]:
    """(frame header, code line), compiled on first use: most logs have no box (CLI start-up)."""
    return (re.compile(r"^(.{1,1024}?):(\d{1,7}) in ?(\S{1,200})$"),
            re.compile(r"^(?:❱\s*)?\d{1,7}(?:\s*│|\s*$)"))


class Unboxer:
    """Rewrites the lines of rich traceback boxes, fed one cleaned line at a time, in order."""

    def __init__(self) -> None:
        self._box = _Box()

    def text(self, text: str) -> str:
        """The line as the traceback parser should read it (most lines: unchanged)."""
        box = self._box
        # cheap tests first: almost no line has a box character
        if text.isascii() or ("│" not in text and "╭" not in text and "╰" not in text):
            if box.pieces:
                box.pieces.clear()
            return text
        stripped = text.strip()
        if stripped[:1] not in _BOX_START:
            box.pieces.clear()
            return text
        plain = box.rewrite(stripped)
        return text if plain is None else plain


class _Box:
    """Where we are in a traceback box. Outside one (another rich panel, or a paste cut above the
    box's title), only frame headers are rewritten and other lines are left alone."""

    def __init__(self) -> None:
        self.inside = False
        self.pieces: list[str] = []     # a frame header being read across wrapped lines

    def rewrite(self, text: str) -> str | None:
        """The plain form of one box line; None to keep it as it is."""
        if text[0] == "╭":
            self.pieces.clear()
            self.inside = "Traceback (most recent call" in text
            return "Traceback (most recent call last):" if self.inside else None
        if text[0] == "╰":
            self.pieces.clear()
            was, self.inside = self.inside, False
            return "" if was else None
        header, code = _patterns()
        inner = (text[1:-1] if text.endswith("│") and len(text) > 1 else text[1:]).strip()
        if not inner or inner[0] in "│╭╰" or code.match(inner):
            # a blank line, a nested locals panel or a line of code; `❱` shows we are in a traceback
            self.pieces.clear()
            self.inside = self.inside or inner[:1] == "❱"
            return "" if self.inside else None
        self.pieces.append(inner)
        if len(self.pieces) > _MAX_PIECES:
            self.pieces.clear()
        joined = "".join(self.pieces)
        m = header.match(joined) if " in" in joined and len(joined) <= 1400 else None
        if not m:
            return "" if self.inside else None
        self.pieces.clear()
        return f'  File "{m.group(1)}", line {m.group(2)}, in {m.group(3)}'
