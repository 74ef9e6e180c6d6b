"""Situation hints are found as a reader would find them: whole words, module paths, prose."""

from __future__ import annotations

import pytest

from tracefix.match.situation import hint_seen, module_prefixes

PREFIXES = module_prefixes(("lightning.pytorch.tuner.lr_finder", "deepspeed"))


@pytest.mark.parametrize("hint, text, seen", [
    ("sat", "the checks were satisfied", False),                       # not inside another word
    ("sat", 'file "/usr/lib/python3/site-packages/sat/training/x.py"', True),
    ("lr_find", "fails in the best initial lr finding process", True),  # a call named in prose
    ("lr_find", "lr_finder_callback", False),
    ('"module.', 'unexpected key(s) in state_dict: "module.conv1.weight"', True),
    ("unsloth-zoo", "import unsloth_zoo.compiler", True),
    ("torch.distributed.elastic", "torch/distributed/elastic/multiprocessing/api.py:869] failed", True),
])
def test_hints_in_text(hint, text, seen):
    assert hint_seen(hint, frozenset(), text.lower()) is seen


@pytest.mark.parametrize("hint, seen", [("lightning.pytorch.tuner", True), ("lightning", True),
                                        ("lightning.fabric", False), ("deepspeed.runtime", False)])
def test_hints_as_frame_modules(hint, seen):
    assert hint_seen(hint, PREFIXES, "") is seen
