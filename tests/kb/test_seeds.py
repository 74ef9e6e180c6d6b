"""The five scraped seed articles become five records, field by field."""

from __future__ import annotations

import pytest

from tests.conftest import SEEDS
from tracefix.kb.load import load_article
from tracefix.kb.validate import load_all

CHROME = ("登录后查看全文", "热门项目推荐", "相关项目推荐", "热门内容推荐", "项目优选", "首页", "cherry-studio",
          "RuoYi", "作者", "Cherry Studio", "openGauss")


@pytest.fixture(scope="module")
def seeds():
    records, problems = load_all([SEEDS])
    assert problems == []
    return {r.source.rsplit("/", 1)[-1][:3]: r for r in records}


def test_five_seeds_five_records(seeds):
    assert sorted(seeds) == ["000", "001", "002", "003", "004"]
    assert len({r.id for r in seeds.values()}) == 5


@pytest.mark.parametrize("seed, signature", [
    ("000", "No backend type associated with device type cpu"),
    ("001", "No backend type associated with device type cpu"),
    ("003", "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu"),
    ("004", "No backend type associated with device type cpu"),
])
def test_symptom_is_the_articles_error_line(seeds, seed, signature):
    assert any(signature in s for s in seeds[seed].symptoms), seeds[seed].symptoms
    assert seeds[seed].provenance["symptoms"] == "explicit"


def test_seed_without_error_line_gets_heuristic_signatures(seeds):
    record = seeds["002"]
    assert "CUDA out of memory" in record.symptoms
    assert record.provenance["symptoms"] == "heuristic"


@pytest.mark.parametrize("seed, cause_words, fix_words", [
    ("000", "SwissArmyTransformer(SAT)库的一个近期更新", "model = model.cuda()"),
    ("001", "需要确保有合适的CPU后端(通常是gloo)可用", "考虑在单GPU模式下先运行学习率查找"),
    ("002", "其LoRA实现默认会将部分模块放在CPU上", "pip install bitsandbytes --prefer-binary"),
    ("003", "所有参与运算的张量必须位于同一设备上", "将DeepSpeed降级到0.14.0版本可以解决此问题"),
    ("004", "Unsloth在多卡环境下的初始化流程存在缺陷", "将use_unsloth参数设置为False"),
])
def test_cause_and_fix_hold_their_sections_and_no_chrome(seeds, seed, cause_words, fix_words):
    record = seeds[seed]
    assert cause_words in record.cause
    assert fix_words in record.fix
    for field in (record.title, record.cause, record.fix, *record.symptoms):
        for chrome in CHROME:
            assert chrome not in field, (seed, chrome)


def test_summary_sections_are_not_the_fix(seeds):
    # 总结 (summary) follows the fix in every seed; it belongs to no field.
    assert "总结" not in seeds["000"].fix
    assert "CogVLM项目中的这个分布式训练错误展示了" not in seeds["000"].fix


def test_version_ranges_match_what_the_articles_state(seeds):
    assert seeds["001"].affected == {"lightning": "==2.2.*"}
    assert seeds["003"].affected == {"deepspeed": ">0.14.0"}
    assert seeds["003"].works == {"deepspeed": "==0.14.0"}
    assert seeds["003"].provenance["affected"] == "explicit"


def test_multi_gpu_conditions(seeds):
    assert "gpus>=2" in seeds["002"].environment
    assert "gpus>=2" in seeds["004"].environment
    assert seeds["002"].provenance["environment"] == "heuristic"


def test_packages_and_frames_tell_the_cpu_backend_trio_apart(seeds):
    assert "swissarmytransformer" in seeds["000"].packages and "sat" in seeds["000"].frames
    assert "lightning" in seeds["001"].packages and "lr_find" in seeds["001"].frames
    assert "unsloth" in seeds["004"].packages and "llamafactory" in seeds["004"].packages


def test_titles_and_language(seeds):
    assert seeds["004"].title == "LLaMA-Factory项目中Unsloth多卡预训练问题的分析与解决"
    assert seeds["003"].title.startswith("MiniCPM-V微调过程中")
    assert {r.language for r in seeds.values()} == {"zh"}


def test_english_scraped_article(tmp_path):
    text = (
        "Home\n/ Blog\nDeepSpeed ZeRO-3 crash after upgrade\n2025-01-02 10:00:00 by someone\n"
        "Problem\nTraining with ZeRO-3 fails with \"RuntimeError: Tensors of the same index must be on the same device\".\n"
        "Root cause\nA regression introduced in 0.15.1 moved grads to the CPU.\n"
        "Solution\nThe bug is fixed in 0.15.3. Upgrade with pip install -U deepspeed.\n"
        "Related articles\nSomething else entirely\n"
    )
    path = tmp_path / "deepspeed-crash.txt"
    path.write_text(text)
    record = load_article(path)
    assert record.language == "en"
    assert record.title == "DeepSpeed ZeRO-3 crash after upgrade"
    assert record.symptoms == ("RuntimeError: Tensors of the same index must be on the same device",)
    assert "regression introduced" in record.cause
    assert record.fixed == {"deepspeed": ">=0.15.3"}
    assert "Something else entirely" not in record.fix


def test_ids_are_readable_and_the_file_name_is_kept(seeds):
    """Ids come from the title's product names and the error, not from the scraped file's hash."""
    for seed, record in seeds.items():
        assert not any(c.isdigit() for c in record.id.split("-")[0]), record.id
        assert record.source.endswith(".txt") and record.source.rsplit("/", 1)[-1].startswith(seed)
    assert seeds["000"].id.startswith("cogvlm-") and "backend" in seeds["000"].id
    assert seeds["001"].id.startswith("pytorch-lightning-") and "lr-find" in seeds["001"].id


@pytest.mark.parametrize("seed, signs", [
    ("000", {"sat"}), ("001", {"lr_find"}), ("003", {"deepspeed"}), ("004", {"unsloth"}),
])
def test_seeds_carry_the_situation_their_prose_names(seeds, seed, signs):
    assert signs <= set(seeds[seed].situation), seeds[seed].situation
    assert "torch" not in seeds[seed].situation and "all_reduce" not in seeds[seed].situation


def test_the_older_wording_of_the_error_is_added(seeds):
    assert "Tensors must be CUDA and dense" in seeds["001"].symptoms
