"""The seed situations through the real matcher: the verdict and the command a user gets.

Lightning `lr_find` under DDP (fixed in 2.4.0, either distribution name) and DeepSpeed ZeRO-3 with
CPU offload (releases 0.14.1-0.14.2 affected, 0.14.0 works, 0.14.3 reverts the change).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import ASSETS, SEEDS
from tracefix.env.environment import build_environment
from tracefix.logs.report import read_log

LIGHTNING = "lightning-lr-find-ddp-cpu-backend"
DEEPSPEED = "deepspeed-zero3-offload-device-mismatch"


def record_match(matcher, record_id: str, freeze: str, **env):
    report = read_log((ASSETS / "kb-logs" / f"{record_id}.log").read_text())
    result = matcher.match(report, build_environment(freeze=freeze, report=report, **env), top=3)
    return next(m for m in result.matches if m.id == record_id)


@pytest.mark.parametrize("dist", ["lightning", "pytorch-lightning"])
def test_lightning_2_2_on_four_gpus_is_affected_under_either_name(matcher, dist):
    m = record_match(matcher, LIGHTNING, f"{dist}==2.2.1\ntorch==2.2.1\n", gpu_count=4)
    assert m.verdict == "affected" and m.confident, m.checks
    assert all(c.result == "holds" for c in m.checks) and len(m.checks) == 3
    assert m.commands == (f"pip install -U '{dist}>=2.4.0'",)


def test_the_lightning_check_names_the_distribution_it_was_made_on(matcher):
    m = record_match(matcher, LIGHTNING, "pytorch-lightning==2.2.1\n", gpu_count=4)
    assert m.checks[0].requirement == "lightning<2.4.0 (as pytorch-lightning)" and m.checks[0].found == "2.2.1"


@pytest.mark.parametrize("freeze", ["lightning==2.4.0", "pytorch-lightning==2.5.0"])
def test_lightning_with_the_fix_is_not_affected_and_gets_no_command(matcher, freeze):
    m = record_match(matcher, LIGHTNING, freeze + "\n", gpu_count=4)
    assert m.verdict == "not-affected" and not m.confident
    assert m.commands == ()


def test_lightning_on_one_gpu_is_not_affected(matcher):
    assert record_match(matcher, LIGHTNING, "lightning==2.2.1\n", gpu_count=1).verdict == "not-affected"


def test_deepspeed_inside_the_affected_releases_is_affected_with_an_upgrade(matcher):
    m = record_match(matcher, DEEPSPEED, "deepspeed==0.14.2\ntorch==2.3.1\n")
    assert m.verdict == "affected" and m.confident
    assert m.commands == ("pip install -U 'deepspeed>=0.14.3'",)


@pytest.mark.parametrize("version", ["0.14.0", "0.14.3", "0.15.1"])
def test_deepspeed_working_or_fixed_release_is_not_affected(matcher, version):
    m = record_match(matcher, DEEPSPEED, f"deepspeed=={version}\n")
    assert m.verdict == "not-affected" and not m.confident
    assert m.commands == ()
    assert any(c.result == "fails" and c.found == version for c in m.checks)


@pytest.mark.parametrize("version, verdict, commands", [
    ("0.15.1", "affected", ["pip install 'deepspeed==0.14.0'"]),   # the article: newer than 0.14.0 fails
    ("0.14.0", "not-affected", []),                                # the release the article pins
])
def test_the_ingested_deepspeed_seed_judges_by_its_own_article(cli, tmp_path, version, verdict, commands):
    db = tmp_path / "seeds.db"
    assert cli("kb", "ingest", "--db", str(db), str(SEEDS)).returncode == 0
    log, freeze = tmp_path / "case.log", tmp_path / "freeze.txt"
    log.write_text((ASSETS / "kb-logs" / f"{DEEPSPEED}.log").read_text())
    freeze.write_text(f"deepspeed=={version}\n")
    first = json.loads(cli("--db", str(db), "--freeze", str(freeze), "--json", str(log)).stdout)["matches"][0]
    assert first["source"].rsplit("/", 1)[-1].startswith("003")
    assert (first["verdict"], first["commands"]) == (verdict, commands)
