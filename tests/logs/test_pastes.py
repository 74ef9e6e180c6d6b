"""Real pastes in the shapes users post them: each is read into the root failure its plain
traceback gives (exception, message, frames where shown).

The logs in tests/assets/logs/pastes/ are copied from public threads (URL in each sidecar JSON);
the inputs written inline below are hand-written, each for one parser edge case, and say so.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import ASSETS
from tracefix.logs.boxes import Unboxer
from tracefix.logs.report import read_log

PASTES = ASSETS / "logs" / "pastes"
CASES = sorted(PASTES.glob("*.json"))


@pytest.mark.parametrize("sidecar", CASES, ids=[p.stem for p in CASES])
def test_real_paste_gives_the_root_failure(sidecar):
    case = json.loads(sidecar.read_text())
    report = read_log(sidecar.with_suffix(".log"))
    root = report.root
    assert root is not None, case["shape"]
    assert root.exception == case["exception"]
    assert root.message.startswith(case["message_starts"]), root.message
    functions = [f.function for f in root.frames]
    assert set(case["frames_include"]) <= set(functions), functions
    if "kind" in case:
        assert root.kind == case["kind"]
    if "root_rank" in case:
        assert report.root_rank == case["root_rank"]


def test_every_paste_has_its_source():
    assert len(CASES) >= 8
    for sidecar in CASES:
        case = json.loads(sidecar.read_text())
        assert case["url"].startswith("https://github.com/") and sidecar.with_suffix(".log").exists()


def test_carets_are_never_part_of_a_message_or_a_stray_line():
    for name in ("ray-47759", "accelerate-1473"):
        report = read_log(PASTES / f"{name}.log")
        assert all("^" not in f.message for f in report.failures)
    # the second traceback of the ray paste alone: carets between its last frame and the exception
    second = "\n".join((PASTES / "ray-47759.log").read_text().splitlines()[7:13])
    assert "^^^^" in second
    root = read_log(second).root
    assert (root.exception, root.message) == ("AttributeError", "'Worker' object has no attribute 'core_worker'")
    assert [f.function for f in root.frames] == ["ray._raylet.task_execution_handler", "push_error_to_driver"]


def test_rich_frame_header_wrapped_over_box_lines_is_one_frame():
    frame = read_log(PASTES / "kohya-ss-1151.log").root.frames[-1]
    assert frame.file == "/root/miniconda3/lib/python3.10/site-packages/accelerate/commands/launch.py"
    assert (frame.line, frame.package, frame.module) == (567, "accelerate", "accelerate.commands.launch")


def test_rich_box_reads_like_the_plain_traceback():
    # hand-written: the same two frames as a rich box (title, a header wrapped after "in", code
    # lines, a show_locals panel) and as a plain traceback
    boxed = "\n".join([
        "╭───────────── Traceback (most recent call last) ─────────────╮",
        "│ /usr/lib/python3.10/site-packages/accelerate/commands/launch.py:45 in  │",
        "│ main                                                          │",
        "│                                                               │",
        "│ ❱ 45 │   args.func(args)                                      │",
        "│ ╭──────────── locals ─────────────╮                           │",
        "│ │ args = Namespace(debug=False)   │                           │",
        "│ ╰─────────────────────────────────╯                           │",
        "│                                                               │",
        "│ /work/train.py:12 in run                                      │",
        "│                                                               │",
        "│   11 │   model = load()                                       │",
        "│ ❱ 12 │   raise ValueError('bad config')                       │",
        "╰───────────────────────────────────────────────────────────────╯",
        "ValueError: bad config",
    ])
    plain = "\n".join([
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/site-packages/accelerate/commands/launch.py", line 45, in main',
        "    args.func(args)",
        '  File "/work/train.py", line 12, in run',
        "    raise ValueError('bad config')",
        "ValueError: bad config",
    ])
    a, b = read_log(boxed).root, read_log(plain).root
    assert (a.exception, a.message, a.frames) == (b.exception, b.message, b.frames)
    assert len(read_log(boxed).failures) == 1


def test_other_rich_panels_are_left_alone():
    # hand-written: typer's usage-error panel is a box too, but not a traceback
    panel = ["╭─ Error ─────────────────────────╮", "│ No such option: --nproc-per-node │", "╰─────────────────────────────────╯"]
    unbox = Unboxer().text
    assert [unbox(text) for text in panel] == panel


def test_exception_line_before_its_cut_traceback_is_one_failure():
    report = read_log(PASTES / "unitab-2.log")
    assert len(report.failures) == 1 and report.root.complete
    assert report.root.frames[0].file == "main.py" and report.root.frames[-1].module == "torch.autograd"


def test_rich_box_deep_in_a_big_log_is_still_read():
    # the real kohya-ss-1151 paste after 2 MB of training output: only windows around keywords
    # (here rich's `❱` marker and the exception) are parsed in a log this size
    noise = "".join(f"step {i} loss 0.{i % 97:02d}\n" for i in range(150_000))
    report = read_log((noise + (PASTES / "kohya-ss-1151.log").read_text()).encode())
    assert len(noise) > 2**20 and report.root.line_no == 150_000 + 17
    assert (report.root.exception, [f.function for f in report.root.frames]) == ("CalledProcessError", ["simple_launcher"])
