"""Labelled cases in the shared eval format: one JSON object per file (see shared/eval/README.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tracefix.errors import InputError


@dataclass(frozen=True)
class Case:
    case: str
    expected: tuple[str, ...]   # empty: a negative case, the right answer is "no confident match"
    log: str
    pip_freeze: str | None = None
    nvidia_smi: str | None = None
    gpu_count: int | None = None
    seed: str | None = None
    acceptable: tuple[str, ...] = ()   # generic records of the family: fair, but neither right nor wrong
    url: str | None = None             # the thread: cases of one thread stay on one side of a split


def load_cases(*folders: str | Path) -> list[Case]:
    """Every case of the folders, in file-name order."""
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise InputError(f"{folder}: not a folder of labelled cases")
    cases = []
    for path in sorted(p for folder in folders for p in Path(folder).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            cases.append(Case(case=data.get("case", path.stem), expected=tuple(data["expected"]), log=data["log"],
                              pip_freeze=data.get("pip_freeze"), nvidia_smi=data.get("nvidia_smi"),
                              gpu_count=data.get("gpu_count"), seed=data.get("seed"),
                              acceptable=tuple(data.get("acceptable") or ()), url=data.get("url")))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
            raise InputError(f"{path}: not a labelled case ({e})") from None
    if not cases:
        raise InputError(f"{', '.join(map(str, folders))}: no *.json cases found")
    return cases
