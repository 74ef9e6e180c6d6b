"""The site in real headless Chromium, opened from file:// with no server and no network."""

from __future__ import annotations

import pytest

from tests.site.conftest import search, url
from tracefix.logs.signature import mask, shown, symptom_matches
from tracefix.site.search_index import tokenize

TRIO = {"sat-broadcast-cpu-backend", "lightning-lr-find-ddp-cpu-backend", "unsloth-multi-gpu-cpu-backend"}
WATCHDOG_LINE = ("[rank3]:[E ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation timeout: "
                 "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
                 "1800483 milliseconds before timing out.")
TRACEBACK_TAIL = """\
  File "/opt/conda/lib/python3.10/site-packages/sat/training/deepspeed_training.py", line 180, in setup_model_untrainable_params_and_optimizer
    dist.broadcast(
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 1906, in broadcast
    work = default_pg.broadcast([tensor], opts)
RuntimeError: No backend type associated with device type cpu"""


def test_start_page_lists_every_record(page, kb_site, kb_store, artifacts):
    page.goto(url(kb_site))
    listed = page.eval_on_selector_all("#browse .records li", "items => items.map(li => li.dataset.id)")
    assert sorted(listed) == sorted(r.id for r in kb_store.records())
    assert page.evaluate("document.characterSet") == "UTF-8"
    page.screenshot(path=str(artifacts / "start-page.png"))


def test_shared_error_line_shows_the_trio(page, kb_site):
    page.goto(url(kb_site))
    ids = search(page, "No backend type associated with device type cpu", typed=True)
    # The trio and the generic record of their family share the message.
    assert set(ids[:4]) == TRIO | {"dist-cpu-tensor-nccl-backend"}
    assert page.locator("#results li.sig").count() == 4


def test_pasted_traceback_tail_finds_the_trio(page, kb_site):
    page.goto(url(kb_site))
    ids = search(page, TRACEBACK_TAIL)
    assert ids[0] == "sat-broadcast-cpu-backend"  # its frames (sat.training...) break the tie
    assert set(ids[:4]) == TRIO | {"dist-cpu-tensor-nccl-backend"}


def test_pasted_watchdog_line_ranks_nccl_watchdog_first(page, kb_site, artifacts):
    page.goto(url(kb_site))
    ids = search(page, WATCHDOG_LINE)
    assert ids[0] == "nccl-watchdog-timeout"
    page.screenshot(path=str(artifacts / "search-watchdog.png"))


@pytest.mark.parametrize(("query", "expected"), [
    ("nccl timeout", "nccl-watchdog-timeout"),
    ("zero3 offload", "deepspeed-zero3-offload-device-mismatch"),
    ("watchdog caught collective", "nccl-watchdog-timeout"),
])
def test_keywords_rank_as_one_types(page, kb_site, query, expected):
    page.goto(url(kb_site))
    assert search(page, query, typed=True)[0] == expected


def test_nonsense_shows_no_match(page, kb_site):
    page.goto(url(kb_site))
    assert search(page, "qwertyuiop zxcvbnm") == []
    assert "No match" in page.text_content("#status")


def test_record_page_shows_fix_with_copy_buttons(page, kb_site, artifacts):
    page.goto(url(kb_site, "records/nccl-watchdog-timeout.html"))
    assert "init_process_group" in page.text_content("section.fix")
    page.goto(url(kb_site, "records/sat-broadcast-cpu-backend.html"))
    blocks = page.locator("section.fix div.code")
    assert blocks.count() >= 2 and page.locator("section.fix div.code button.copy").count() == blocks.count()
    blocks.first.locator("button.copy").click()
    page.wait_for_function("document.querySelector('section.fix .copy').textContent === 'Copied'")
    page.screenshot(path=str(artifacts / "record-page.png"), full_page=True)


def test_versions_and_environment_are_readable(page, fixture_site, artifacts):
    page.goto(url(fixture_site, "records/fixture-versioned-ranges.html"))
    row = page.text_content("section.versions tbody tr")
    assert "fixture-speed" in row and "later than 0.14.0 and before 0.16" in row and "0.16 or later" in row
    assert "GPUs ≥ 2" in page.text_content("section.environment")
    page.screenshot(path=str(artifacts / "record-versions.png"), full_page=True)


def test_no_request_leaves_file_urls(page, kb_site):
    page.goto(url(kb_site))
    search(page, WATCHDOG_LINE)
    page.click("#results li a")
    page.wait_for_url("**/records/nccl-watchdog-timeout.html")
    page.goto(url(kb_site, "records/lightning-lr-find-ddp-cpu-backend.html"))
    assert page.requests, "the request log is empty"
    assert all(u.startswith("file://") for u in page.requests), page.requests


def test_record_page_search_jumps_to_results(page, kb_site):
    page.goto(url(kb_site, "records/cuda-oom.html"))
    page.fill("header input[name=q]", "nccl timeout")
    page.press("header input[name=q]", "Enter")
    page.wait_for_function("document.getElementById('status').textContent !== ''")
    assert page.eval_on_selector("#results li", "li => li.dataset.id") == "nccl-watchdog-timeout"


def test_planted_script_does_not_run(page, fixture_site):
    pages = ["index.html", "records/fixture-planted-script.html"]
    for rel in pages:
        page.goto(url(fixture_site, rel))
        assert page.evaluate("window.__pwned") is None
        assert page.title() != "pwned"
    page.goto(url(fixture_site))
    assert search(page, "FixtureLoaderError: planted <script>window.__pwned=2</script> failure")[0] == "fixture-planted-script"
    assert page.evaluate("window.__pwned") is None and page.title() != "pwned"
    page.goto(url(fixture_site, pages[1]))
    assert page.title().startswith("Planted <script>")  # shown as text, not run
    assert "<script>window.__pwned = 3" in page.text_content("section.cause")
    hrefs = page.eval_on_selector_all("article a", "links => links.map(a => a.getAttribute('href'))")
    assert not [h for h in hrefs if h.startswith(("javascript:", "file:"))]
    assert page.locator("article img").count() == 0


def test_chinese_record_renders_with_its_language(page, fixture_site, fixture_store, artifacts):
    seed = next(r for r in fixture_store.records() if r.language == "zh")
    page.goto(url(fixture_site, f"records/{seed.id}.html"))
    page.screenshot(path=str(artifacts / "record-zh.png"), full_page=True)
    assert page.get_attribute("html", "lang") == "zh"
    assert page.text_content("h1") == seed.title
    assert page.evaluate("document.characterSet") == "UTF-8"
    page.goto(url(fixture_site))
    assert seed.id in search(page, seed.title)


SAMPLES = [
    WATCHDOG_LINE,
    "2024-03-21 02:07:08,408 [E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] at 0x7f3a2b and deadbeefcafe1234",
    "C:\\Users\\me\\proj\\train.py raised in /home/u/.cache/x-1/y@2/z.py on cuda:3 (rank 12)",
    "RuntimeError: CUDA error: an illegal memory access was encountered\n\tat v1.2.3 and 3.5e-4",
    "第3卡 显存不足 12:30:45 分布式训练 设备 cuda:1 版本2.1.0",
    "exitcode: -9 (pid: 4242) and -6, -123, 2024-03-21_02:07:08 /usr/lib/x86_64-linux-gnu/libcudart.so.12 C:\\a\\b\\",
    "ValueError: `.to` is not supported for `4-bit` models; couldn\u2018t \u201cload\u201d it",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_js_mask_and_tokenize_mirror_python(page, kb_site, text):
    page.goto(url(kb_site))
    assert page.evaluate("t => tracefix.mask(t)", text) == mask(text)
    assert page.evaluate("t => tracefix.tokenize(t)", text) == tokenize(text)


def test_js_symptom_patterns_match_like_python(page, kb_site, kb_store):
    """Each symptom, pasted with its gaps filled in, alone on its line or with more text after it (which a
    symptom ending in `$` must not match), hits the same records in the browser as in Python."""
    records = kb_store.records()
    filled = [shown(s).replace("...", " detail 42 ") for r in records for s in r.symptoms]
    samples = [f"[rank1]: {text}{tail}" for text in filled for tail in ("", " and more\n")]
    page.goto(url(kb_site))
    browser_hits = page.evaluate("texts => texts.map(t => tracefix.signatureHits(t))", samples)
    for text, hits in zip(samples, browser_hits):
        expected = [r.id for r in records if any(symptom_matches(s, mask(text)) for s in r.symptoms)]
        assert hits == expected, text
