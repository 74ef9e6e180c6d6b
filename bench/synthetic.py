"""Synthetic records for the scale and start-up benchmarks: plausible shapes, no real content."""

from __future__ import annotations

import random

from tracefix.kb.record import Record

PACKAGES = ["torch", "deepspeed", "transformers", "accelerate", "peft", "vllm", "lightning", "bitsandbytes", "flash-attn"]
ERRORS = ["RuntimeError", "ValueError", "AssertionError", "TypeError", "KeyError", "OSError", "AttributeError"]
WORDS = ("tensor shard rank gradient optimizer offload kernel stream buffer cache bucket collective "
         "checkpoint parameter module layer attention process group backend device launcher").split()


def synthetic_record(n: int, rng: random.Random) -> Record:
    pkg = rng.choice(PACKAGES)
    words = " ".join(rng.sample(WORDS, 6))
    message = f"{rng.choice(ERRORS)}: {words} failed in {pkg} step {n} with code {rng.randint(1, 999)}"
    return Record(id=f"synthetic-{n:06d}", title=f"Synthetic issue {n}: {words}", symptoms=(message,),
                  frames=(f"{pkg.replace('-', '_')}.{rng.choice(WORDS)}",), packages=(pkg,),
                  cause=f"Synthetic cause {n}.", fix=f"Synthetic fix {n}.", source=f"synthetic/{n}.md")
