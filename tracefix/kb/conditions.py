"""Environment conditions of a record: `gpus>=2`, `compute_capability<8.0`, `driver<525.60`, `cuda>=12.1`,
`oom_spare_gib<1` (GiB torch's out-of-memory message says were still free beyond the failed request).

Kept apart from the pydantic schema so the query path can check them without importing pydantic.
"""

from __future__ import annotations

import re

ENV_KEYS = ("gpus", "compute_capability", "driver", "cuda", "oom_spare_gib")
_CONDITION = re.compile(r"^\s*(" + "|".join(ENV_KEYS) + r")\s*(==|!=|<=|>=|<|>)\s*(\d+(?:\.\d+)*)\s*$")


def parse_condition(text: str) -> tuple[str, str, str]:
    """Split `gpus>=2` into ("gpus", ">=", "2"); ValueError names the accepted keys."""
    m = _CONDITION.match(text)
    if not m:
        raise ValueError(f"invalid environment condition {text!r} (expected e.g. 'gpus>=2'; keys: {', '.join(ENV_KEYS)})")
    return m.group(1), m.group(2), m.group(3)
