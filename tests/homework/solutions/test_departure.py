"""Where a wrong answer left the path: for every misapplied rule in the catalogue, a wrong
answer made by it (built on the symbolic tape, the rule misapplied at one step) is placed
at the step of the worked solution where that rule acts, with the student's version of
that step and the rule's."""

from __future__ import annotations

import pytest

from gradcalc.homework import proof
from gradcalc.homework.answer import AnswerJob, run, worked
from gradcalc.homework.feedback import misconceptions
from gradcalc.homework.feedback.catalogue import CATALOGUE
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import read_problem
from gradcalc.homework.solutions import departure

#: catalogue id -> (function, the variant the search tries, the step's text, the solution's
#: rule at that step)
MADE = {
    "chain-inner-factor": ("sin(3x)", "chain-inner-factor", "sin(3x)", "chain"),
    "trig-sign": ("cos(x)", "trig-sign", "cos(x)", "trig"),
    "subtraction-sign": ("x^3 - 2x", "subtraction-sign", "x^3 - 2x", "sum"),
    "product-of-derivatives": ("x^2 sin(x)", "product-of-derivatives", "x^2·sin(x)",
                               "product"),
    "product-term-missing": ("x^2 sin(x)", "product-term-missing-right", "x^2·sin(x)",
                             "product"),
    "quotient-reversed": ("x/(x + 1)", "quotient-reversed", "x/(x + 1)", "quotient"),
    "quotient-square-missing": ("x/(x + 1)", "quotient-square-missing", "x/(x + 1)",
                                "quotient"),
    "quotient-of-derivatives": ("x^2/(x + 1)", "quotient-of-derivatives", "x^2/(x + 1)",
                                "quotient"),
    "power-not-lowered": ("x^3", "power-not-lowered", "x^3", "power"),
    "power-raised": ("x^3", "power-raised", "x^3", "power"),
    "exponential-log-missing": ("3^x", "exponential-log-missing", "3^x", "exponential"),
    "exponential-as-power": ("e^(2x)", "exponential-as-power", "e^(2x)", "chain"),
    "variable-exponent": ("x^x", "variable-exponent", "x^x", "log-differentiation"),
    "constant-multiple-dropped": ("5x^2", "constant-multiple-dropped", "5x^2",
                                  "constant-multiple"),
    "power-rule-on-exponential": ("5^x", "power-rule-on-exponential", "5^x", "exponential"),
    "exponential-log-divided": ("5^x", "exponential-log-divided", "5^x", "exponential"),
    "power-coefficient-dropped": ("x^5", "power-coefficient-dropped", "x^5", "power"),
    "constant-term-kept": ("x^2 + 3", "constant-term-kept", "x^2 + 3", "sum"),
    "chain-outer-of-derivative": ("sin(x^2)", "chain-outer-of-derivative", "sin(x^2)",
                                  "chain"),
}


def test_every_catalogue_entry_has_a_case():
    assert set(MADE) == {rule.id for rule in CATALOGUE}


def wrong_answer(function: str, variant: str, at: str) -> str:
    program = read_problem(function, "0").function.entries[0].program
    tape = misconceptions.FormulaTape(program, {"x": proof.symbol("x")}, "x", symbolic=True)
    (k,) = [i for i, s in enumerate(tape.steps) if s.text == at]
    return proof.text(proof.exact(tape.sweep(variant, k)), ("x",))


@pytest.mark.parametrize("rule", sorted(MADE))
def test_the_misapplied_rule_is_placed_at_its_step(rule):
    function, variant, at, solution_rule = MADE[rule]
    job = AnswerJob(function, wrong_answer(function, variant, at))
    verdict = run(job)
    assert verdict.verdict == "incorrect"
    assert verdict.misconception == {"rule": rule, "at": at}, verdict.feedback
    solution = worked(job, verdict)
    where = solution.departs_at
    assert where is not None and where["rule"] == rule and where["at"] == at
    step = solution.steps[where["step"] - 1][2]
    assert step.rule == solution_rule and step.at == at
    assert step.student == where["student"] and where["student"] and where["right"]
    assert where["said"] == (f"you wrote {where['student']} here; the {step.name} gives "
                             f"{where['right']}")


def test_the_issues_example_reads_as_promised():
    job = AnswerJob("x^2 sin(3x)", "2x sin(3x) + x^2 cos(3x)")
    where = worked(job, run(job)).departs_at
    assert where["step"] == 3
    assert where["said"] == "you wrote cos(3x) here; the chain rule gives 3cos(3x)"


def test_a_correct_answer_or_an_unrecognised_mistake_marks_nothing():
    for answer in ("3x^2 cos(3x) + 2x sin(3x)", "x^5"):
        job = AnswerJob("x^2 sin(3x)", answer)
        assert worked(job, run(job)).departs_at is None


def test_a_mistake_in_the_second_differentiation_is_placed_in_its_part():
    job = AnswerJob("sin(3x)", "-3sin(3x)", kind=Kind.read(order=2))
    verdict = run(job)
    assert verdict.misconception and verdict.misconception.get("differentiation") == 2
    solution = worked(job, verdict)
    n = solution.departs_at["step"]
    assert solution.steps[n - 1][1] == 1  # the second part: f''(x) = d/dx(f'(x))
    # the step as the student took it (the factor 3 dropped) and as the rule does
    assert (solution.departs_at["student"], solution.departs_at["right"]) == (
        "-3sin(3x)", "-9sin(3x)")
    assert solution.departs_at["said"].startswith("you wrote -3sin(3x) here; the ")


@pytest.mark.parametrize("function, answer, student, right", [
    ("x^3", "9x^2", "3x^3", "3x^2"),  # the power not lowered in f', then f'' right
    ("x^4", "16x^3", "4x^4", "4x^3"),
])
def test_a_mistake_in_the_first_differentiation_is_placed_with_its_versions(
        function, answer, student, right):
    job = AnswerJob(function, answer, kind=Kind.read(order=2))
    verdict = run(job)
    assert verdict.misconception and verdict.misconception.get("differentiation") == 1
    where = worked(job, verdict).departs_at
    assert (where["student"], where["right"]) == (student, right)
    assert where["said"] == f"you wrote {student} here; the power rule gives {right}"


def test_a_mixed_partials_mistake_carries_the_students_version():
    job = AnswerJob("x^2 sin(3y)", "2x cos(3y)", kind=Kind.read(partial="x,y"))
    verdict = run(job)
    assert verdict.misconception, verdict.feedback
    where = worked(job, verdict).departs_at
    assert where is not None and where["student"] and where["right"]


def test_a_tensor_mistake_is_placed_where_the_product_passes_to_the_input():
    job = AnswerJob("L = sum((W@x - y)^2)", "2*outer(x, W@x - y)", ["W"],
                    kind=Kind.read(shape="W=3x2, x=2, y=3"))
    verdict = run(job)
    solution = worked(job, verdict)
    step = solution.steps[solution.departs_at["step"] - 1][2]
    assert step.rule == "backprop-matmul" and step.covers[0] == "W@x"
    assert solution.departs_at["said"] == verdict.feedback


def test_the_versions_are_counted_work_decided_at_the_same_count_in_every_run(
        monkeypatch, departure_counts):
    """The student's version of the step and the rule's come from counted work: found
    within exactly its count in every run, and not one call less (the step is then
    marked with the judge's feedback alone)."""
    made = departure_counts
    job = AnswerJob("x^2 sin(3x)", "2x sin(3x) + x^2 cos(3x)")
    verdict = run(job)
    assert worked(job, verdict).departs_at["student"] == "cos(3x)"
    monkeypatch.setattr(departure, "MAX_DEPARTURE_CALLS", made[-1])
    assert worked(job, verdict).departs_at["student"] == "cos(3x)"
    monkeypatch.setattr(departure, "MAX_DEPARTURE_CALLS", made[-1] - 1)
    where = worked(job, verdict).departs_at
    assert where["step"] == 3 and where["student"] is None
    assert where["said"] == verdict.feedback
    assert made[0] == made[1] == made[2]  # stopped: the limit + 1


def test_small_versions_are_found_here_as_the_fresh_process_finds_them(monkeypatch):
    """Work within a tenth of its count runs in this process (no fresh process: about
    0.5 s of CPU time saved on every wrong answer), with the answer the exact count
    gives."""
    job = AnswerJob("x^2 sin(3x)", "2x sin(3x) + x^2 cos(3x)")
    verdict = run(job)
    started = []
    real = departure.counted.run
    monkeypatch.setattr(departure.counted, "run",
                        lambda *a, **k: started.append(a[0]) or real(*a, **k))
    here = worked(job, verdict).departs_at
    assert started == []
    monkeypatch.setattr(departure.counted, "HERE", 10**12)  # every piece in a fresh one
    assert worked(job, verdict).departs_at == here and started
    assert here["student"] == "cos(3x)" and here["right"] == "3cos(3x)"
