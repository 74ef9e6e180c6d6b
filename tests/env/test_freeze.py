"""pip freeze / pip list / conda list, one asset per format."""

from __future__ import annotations

import pytest

from tests.conftest import ASSETS
from tracefix.env import freeze

FREEZE = ASSETS / "freeze"


def test_pip_freeze_with_urls_editables_and_local_versions():
    parsed = freeze.parse((FREEZE / "pip-freeze-mixed.txt").read_text())
    got = parsed.as_dict()
    assert parsed.format == "pip freeze"
    assert got["torch"] == "2.1.0+cu118"
    assert got["pytorch-lightning"] == "2.1.3"                    # PyTorch-Lightning, canonical
    assert got["swissarmytransformer"] == "0.4.11"
    assert got["flash-attn"] == "2.5.6+cu118torch2.1cxx11abiFALSE"  # from the wheel file name in the URL
    assert got["numpy"] == "1.26.4"
    assert "deepspeed" not in got                                 # git URL: no version to compare
    reasons = {s.text.split()[0]: s.reason for s in parsed.skipped}
    assert reasons["deepspeed"].startswith("direct reference without a version")
    assert reasons["-e"] == "editable install: no version"
    assert reasons["xformers==not-a-version"] == "invalid version 'not-a-version'"
    assert reasons["this"] == "not a package line"


def test_pip_list_with_editable_location():
    parsed = freeze.parse((FREEZE / "pip-list.txt").read_text())
    assert parsed.format == "pip list"
    assert parsed.as_dict() == {"accelerate": "0.30.1", "deepspeed": "0.14.2", "numpy": "1.26.4", "pytorch-lightning": "2.2.4",
                                "torch": "2.3.0+cu121", "tracefix": "0.1.0", "transformers": "4.40.2"}
    assert parsed.skipped == ()


def test_conda_list_names_pytorch_as_torch_and_keeps_the_build():
    parsed = freeze.parse((FREEZE / "conda-list.txt").read_text())
    assert parsed.format == "conda list"
    torch = next(p for p in parsed.packages if p.name == "torch")
    assert (torch.version, torch.build) == ("2.0.1", "py3.10_cuda11.8_cudnn8.7.0_0")
    assert parsed.as_dict()["deepspeed"] == "0.12.6"


@pytest.mark.parametrize("line, name, version", [
    ("pytorch_lightning==2.0.0", "pytorch-lightning", "2.0.0"),
    ("Flash_Attn==2.3.3", "flash-attn", "2.3.3"),
    ("transformers[torch]==4.36.0", "transformers", "4.36.0"),
    ("torch===2.1.0+cpu", "torch", "2.1.0+cpu"),
    ("requests==2.31.0 ; python_version >= '3.8'", "requests", "2.31.0"),
])
def test_line_forms(line, name, version):
    assert freeze.parse_line(line, "pip freeze") == freeze.Package(name, version)


def test_empty_input():
    assert freeze.parse(None).format == "empty" and freeze.parse("").packages == ()
