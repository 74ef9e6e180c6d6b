"""The figures `tracefix eval` prints: what counts as right, wrong, fair-but-generic, unanswered."""

from __future__ import annotations

from tracefix.evaluation.cases import Case
from tracefix.evaluation.metrics import Ranked, score


def case(name: str, expected: tuple[str, ...] = (), acceptable: tuple[str, ...] = ()) -> Case:
    return Case(case=name, expected=expected, log="x", acceptable=acceptable)


def test_precision_counts_right_and_wrong_but_not_the_generic_record_of_the_family():
    cases = [case("a", ("lr-find",), ("cpu-family",)), case("b", ("lr-find",), ("cpu-family",)), case("c", ("oom",)),
             case("neg")]
    answers = [Ranked(("lr-find",), True, 0.95), Ranked(("cpu-family", "lr-find"), True, 0.9),
               Ranked(("nccl",), True, 0.85), Ranked(("oom",), False, 0.1)]
    m = score(cases, answers)
    assert (m.confident_right, m.confident_wrong, m.confident_acceptable) == (1, 1, 1)
    assert m.precision == 0.5
    assert m.top1 == 0.5 and m.top1_positives == 1 / 3
    assert m.negatives_unanswered == 1.0
    assert m.top3_recall == 2 / 3


def test_a_confident_answer_on_a_negative_is_wrong_and_leaves_it_answered():
    m = score([case("neg")], [Ranked(("nccl",), True, 0.97)])
    assert m.confident_wrong_negatives == 1 and m.negatives_unanswered == 0.0 and m.precision == 0.0


def test_reliability_bands_place_each_first_answer_by_its_score():
    cases = [case(str(n), ("r",)) for n in range(4)]
    answers = [Ranked(("r",), True, 0.95), Ranked(("x",), True, 0.93), Ranked(("r",), False, 0.5), Ranked(("r",), True, 1.0)]
    bands = {(b.low, b.high): (b.right, b.answers) for b in score(cases, answers).reliability}
    assert bands[(0.9, 1.0)] == (2, 3)
    assert bands[(0.4, 0.6)] == (1, 1)
    assert sum(answered for _, answered in bands.values()) == 4
