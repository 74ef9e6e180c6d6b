"""One error, several wordings: how the same failure reads in older and newer releases.

A scraped article quotes the error as its author's version printed it; a user's log may come from
another version. Symptoms found in an article get the other wordings of the same error added
(`expand`), so the record also matches logs from other releases. Each group is one message of
PyTorch's own source at different versions, not a guess at similar errors.
"""

from __future__ import annotations

from tracefix.logs.signature import mask, symptom_matches

# ProcessGroupNCCL handed a CPU tensor: torch >= 2.0 raises from the backend dispatcher, older
# releases from ProcessGroupNCCL's own tensor check.
GROUPS: tuple[tuple[str, ...], ...] = (
    ("No backend type associated with device type cpu", "Tensors must be CUDA and dense", "Tensor ... must be CUDA and dense"),
    # The caching allocator's message: torch.OutOfMemoryError since 2.1 (a RuntimeError subclass
    # before), and the THC wording of releases before 1.0.
    ("CUDA out of memory. Tried to allocate", "cuda runtime error (2) : out of memory"),
)


def expand(symptoms: list[str]) -> list[str]:
    """The symptoms plus the other wordings of every group one of them belongs to."""
    out = list(symptoms)
    for group in GROUPS:
        if any(symptom_matches(phrase, mask(s)) for s in symptoms for phrase in group):
            out += [p for p in group if not any(symptom_matches(p, mask(s)) for s in out)]
    return out
