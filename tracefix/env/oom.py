"""GPU memory figures from torch's CUDA out-of-memory message.

The message says what the failed allocation asked for and how much the GPU still had free:
`Tried to allocate 20.00 MiB (GPU 0; 22.00 GiB total capacity; ...; 20.28 GiB free; ...)` in older
releases, `Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 22.00 GiB of which 20.28 GiB
is free.` in newer ones. When far more was free than asked for, the memory was not used up: the
cause is something else (a CUDA context broken by an earlier error, for one). A cap the user set
with `set_per_process_memory_fraction` is a real limit: the caching allocator then adds
`... allowed;` to the message, and such messages are not read.
"""

from __future__ import annotations

import re

_UNIT_MIB = {"B": 1 / 2**20, "bytes": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0, "TiB": 1024.0**2}
_AMOUNT = r"(\d+(?:\.\d+)?) ?(TiB|GiB|MiB|KiB|bytes|B)\b"
_REQUEST = re.compile(r"Tried to allocate " + _AMOUNT)
_FREE = re.compile(r"(?:of which |; )" + _AMOUNT + r" (?:is )?free")
_CAPPED = re.compile(r"\ballowed;|memory fraction")


def _mib(number: str, unit: str) -> float:
    return float(number) * _UNIT_MIB[unit]


def spare_gib(text: str | None) -> float | None:
    """GiB the GPU still had free beyond the failed request, from the last OOM message in `text`.

    >>> round(spare_gib("CUDA out of memory. Tried to allocate 214.00 MiB. GPU 0 has a total capacity of "
    ...                 "22.00 GiB of which 20.28 GiB is free."), 2)
    20.07
    >>> spare_gib("Tried to allocate 1.17 GiB (GPU 0; 7.79 GiB total capacity; 5.2 GiB already allocated; "
    ...           "19.31 MiB free; 6.1 GiB reserved in total by PyTorch)") < 0
    True
    """
    if not text or "Tried to allocate" not in text:
        return None
    for line in reversed(text.splitlines()):
        request, free = _REQUEST.search(line), _FREE.search(line)
        if request and free and not _CAPPED.search(line):
            return (_mib(*free.groups()) - _mib(*request.groups())) / 1024
    return None
