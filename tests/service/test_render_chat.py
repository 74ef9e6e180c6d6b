"""The chat renderers (render/slack.py, render/markdown.py): whole outputs, Slack's limits, escaping."""

from __future__ import annotations

import json

from tracefix.env.environment import build_environment
from tracefix.logs.report import read_log
from tracefix.match.constraints import Check
from tracefix.match.result import Match, MatchResult
from tracefix.render import markdown, slack

LOG = 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\nRuntimeError: <@U123> & `boom` *bold*\n'


def _match(i: int, size: int = 100, confident: bool = False) -> Match:
    return Match(id=f"rec-{i}", title=f"Title {i} <b>", score=0.9 - i / 100, confident=confident, verdict="fails",
                 checks=(Check("torch>=2.1", "2.0.1", "fails"),), why=("signature matches the root failure",),
                 cause="c" * size, fix="Run `pip install x`.\n" + "f" * size, source="data/kb/x.md",
                 commands=("pip install 'torch>=2.1'",), references=("https://github.com/pytorch/pytorch/issues/1",))


def _result(matches: tuple[Match, ...], log: str = LOG, warnings: tuple[str, ...] = ()) -> MatchResult:
    report = read_log(log)
    return MatchResult(report, build_environment(report=report), matches, warnings)


def test_slack_message_shape_and_escaping():
    message = slack.render(_result((_match(1, confident=True),), warnings=("torch is a CPU build",)))
    assert message["response_type"] == "in_channel"
    assert message["text"].startswith("tracefix: likely match Title 1 <b> (rec-1, score 0.89). Fix: Run `pip install x`.")
    types = [b["type"] for b in message["blocks"]]
    assert types == ["header", "section", "section", "divider", "section", "section", "section", "section", "context"]
    dumped = json.dumps(message["blocks"])
    assert "&lt;@U123&gt; &amp;" in dumped and "<@U123>" not in dumped  # no mention or link from log text
    assert "Title 1 &lt;b&gt;" in dumped
    assert "<https://github.com/pytorch/pytorch/issues/1|" in dumped


def test_slack_limits_hold_for_huge_results():
    long_log = "RuntimeError: " + "x" * 20000
    message = slack.render(_result(tuple(_match(i, size=10000) for i in range(20)), log=long_log,
                                   warnings=tuple("w" * 500 for _ in range(20))))
    blocks = message["blocks"]
    assert len(blocks) <= slack.MAX_BLOCKS
    for block in blocks:
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= slack.MAX_HEADER
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= slack.MAX_SECTION
        if block["type"] == "context":
            assert len(block["elements"]) <= 10 and all(len(e["text"]) <= slack.MAX_SECTION for e in block["elements"])
    assert len(message["text"]) <= slack.MAX_FALLBACK


def test_slack_no_match_and_usage_message():
    message = slack.render(_result(()))
    assert message["text"] == "tracefix: no known issue matches this log."
    assert message["blocks"][-1]["text"]["text"].startswith("No known issue")
    usage = slack.message("Paste a log <here>")
    assert usage == {"response_type": "ephemeral", "text": "Paste a log <here>",
                     "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Paste a log &lt;here&gt;"}}]}


def test_markdown_whole_output():
    text = markdown.render(_result((_match(1, size=3, confident=True),)))
    assert text == (
        "**tracefix: likely cause found**\n\n"
        "Root failure:\n\n```\nRuntimeError: <@U123> & `boom` *bold*\n```\n\n"
        "### 1. Title 1 <b>\n\n`rec-1` · likely · score 0.89 · verdict: fails\n\n"
        "**Cause:** ccc\n\n**Fix:** Run `pip install x`.\nfff\n\n"
        "```sh\npip install 'torch>=2.1'\n```\n\n"
        "- why: signature matches the root failure\n- fails: torch>=2.1 (found 2.0.1)\n\n"
        "References: <https://github.com/pytorch/pytorch/issues/1>\n"
    )


def test_markdown_fence_outgrows_backticks_in_the_log():
    assert markdown.fence("a ```` b") == "`````\na ```` b\n`````"
    text = markdown.render(_result((), log="RuntimeError: ``` injected"))
    assert "````\nRuntimeError: ``` injected\n````" in text and text.endswith("No known issue in the knowledge base matches this log.\n")
