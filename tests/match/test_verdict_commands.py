"""fixcmd.commands: the pip command a user runs, computed from the record's ranges and what is installed."""

from __future__ import annotations

import pytest

from tests.match.test_constraints import env, record
from tracefix.match.fixcmd import commands

LIGHTNING = dict(affected={"lightning": "<2.4.0", "pytorch-lightning": "<2.4.0"},
                 fixed={"lightning": ">=2.4.0", "pytorch-lightning": ">=2.4.0"})
DEEPSPEED = dict(affected={"deepspeed": ">=0.14.1,<0.14.5"}, fixed={"deepspeed": ">=0.14.5"},
                 works={"deepspeed": "==0.14.0"})


@pytest.mark.parametrize("packages, expected", [
    ({"lightning": "2.2.1"}, ("pip install -U 'lightning>=2.4.0'",)),
    ({"pytorch-lightning": "2.2.1"}, ("pip install -U 'pytorch-lightning>=2.4.0'",)),
    ({"lightning": "2.4.0", "pytorch-lightning": "2.2.1"}, ("pip install -U 'pytorch-lightning>=2.4.0'",)),
    ({"lightning": "2.4.0"}, ()),
    ({}, ("pip install -U 'lightning>=2.4.0'",)),   # nothing installed: the record's own name
])
def test_upgrade_into_the_fixed_range_names_the_installed_distribution(packages, expected):
    assert commands(record(**LIGHTNING), env(packages)) == expected


@pytest.mark.parametrize("installed, expected", [
    ("0.14.2", ("pip install -U 'deepspeed>=0.14.5'",)),   # a fix exists: upgrade into it
    ("0.14.0", ()),                                        # the working release
    ("0.14.6", ()),                                        # already fixed
    ("0.13.1", ()),                                        # before the affected releases
])
def test_deepspeed_commands_follow_the_installed_version(installed, expected):
    assert commands(record(**DEEPSPEED), env({"deepspeed": installed})) == expected


def test_a_working_release_without_a_fix_is_a_pin():
    rec = record(affected={"deepspeed": ">=0.14.1"}, works={"deepspeed": "==0.14.0"})
    assert commands(rec, env({"deepspeed": "0.15.1"})) == ("pip install 'deepspeed==0.14.0'",)


def test_a_working_range_below_is_installed_without_upgrade():
    rec = record(affected={"torch": ">=2.6"}, works={"torch": "<2.6"})
    assert commands(rec, env({"torch": "26.0.0"})) == ("pip install 'torch<2.6'",)
    assert commands(rec, env({"torch": "2.5.1+cu121"})) == ()


def test_pip_spelling_and_build_suffixed_distributions():
    assert commands(record(fixed={"SwissArmyTransformer": ">=0.4.11"}), env({"swissarmytransformer": "0.4.10"})) \
        == ("pip install -U 'SwissArmyTransformer>=0.4.11'",)
    assert commands(record(fixed={"bitsandbytes": ">=0.45.0"}), env({"bitsandbytes-cuda117": "0.26.0"})) \
        == ("pip install -U 'bitsandbytes>=0.45.0'",)   # the per-CUDA builds ended at 0.26


def test_an_unreadable_installed_version_still_gets_the_command():
    assert commands(record(**DEEPSPEED), env({"deepspeed": "not-a-version"})) == ("pip install -U 'deepspeed>=0.14.5'",)
