"""The project's labelled set stays usable: every case names its thread and shipped records, no
thread sits on both sides of the tuning / held-out split, no record is written from a held-out
thread, and a family's generic record is acceptable wherever its message is the case's."""

from __future__ import annotations

import json
import re
from collections import defaultdict

from tests.conftest import KB_IDS, ROOT
from tracefix.evaluation.cases import load_cases

EVAL = ROOT / "data" / "eval"
FOLDERS = sorted(p for p in EVAL.iterdir() if p.is_dir() and p.name != "threads")


def thread(url: str) -> str:
    """One spelling per thread: cases and records write the same URL with or without a final slash."""
    return url.rstrip("/").lower()


def test_every_case_has_a_thread_a_reason_and_labels_that_name_shipped_records():
    for folder in FOLDERS:
        for case in load_cases(folder):
            raw = json.loads((folder / f"{case.case}.json").read_text(encoding="utf-8"))
            assert case.url and case.url.startswith("https://github.com/"), case.case
            assert raw.get("notes", "").strip() and case.log.strip(), case.case
            unknown = (set(case.expected) | set(case.acceptable)) - set(KB_IDS)
            assert not unknown, f"{folder.name}/{case.case} names {unknown}, which no shipped record has"


def test_no_thread_is_both_tuned_on_and_held_out():
    sides = defaultdict(set)
    for folder in FOLDERS:
        for case in load_cases(folder):
            sides[thread(case.url)].add("tune" if folder.name == "tune" else "held-out")
    assert not [url for url, where in sides.items() if len(where) > 1]


def test_no_shipped_record_cites_a_held_out_thread():
    # A record whose sources include a held-out thread was written from it: that case would
    # measure recall of the source, not the general case.
    held_out = {thread(case.url) for folder in FOLDERS if folder.name != "tune"
                for case in load_cases(folder)}
    cited = {(path.name, url) for path in (ROOT / "data" / "kb").glob("*.md")
             for url in re.findall(r"https://github\.com/[^\s\")\]>]+", path.read_text(encoding="utf-8"))
             if thread(url) in held_out}
    assert not cited, sorted(cited)


def test_a_familys_generic_record_is_acceptable_wherever_the_case_shows_its_message():
    # eval/README, `acceptable`: the generic record of a family is a fair (not best) answer for a case
    # expecting one of its specific records, and for a near-miss whose notes say it shares the
    # family's message. A label that forgets it counts a fair answer as a confident wrong one.
    from tracefix.kb.load import article_paths, load_article

    family = {}
    for path in article_paths([ROOT / "data" / "kb"]):
        record = load_article(path)
        if record.family:
            family[record.id] = family[record.family] = record.family
    missing = []
    for folder in FOLDERS:
        for case in load_cases(folder):
            notes = json.loads((folder / f"{case.case}.json").read_text(encoding="utf-8")).get("notes", "")
            near = re.match(r"\s*near-miss:.*?\bwith ([a-z0-9-]+)", notes) if not case.expected else None
            named = case.expected or ((near.group(1),) if near else ())
            heads = {family[r] for r in named if r in family} - set(case.expected)
            if heads - set(case.acceptable):
                missing.append(f"{folder.name}/{case.case}: {sorted(heads - set(case.acceptable))}")
    assert not missing, missing
