"""A wrong antiderivative's departure: the step whose integral, worked differently, gives
the answer (with the student's version), or where a lost factor comes from."""

from __future__ import annotations

import json

import pytest


def departs(invoke, function: str, answer: str) -> dict:
    run = invoke("check", function, "--antiderivative", "--answer", answer, "--steps",
                 "--json")
    out = json.loads(run.out)
    assert out["verdict"] == "incorrect"
    return out["departs_at"]


@pytest.mark.parametrize("function,answer,rule,student,right", [
    ("x^3 + 1/x", "x^4/3 + ln|x|", "integral-power", "x^4/3", "x^4/4"),
    ("x^3 + cos(x)", "x^4/4 - sin(x) + C", "integral-table", "-sin(x)", "sin(x)"),
    ("x^2 e^x", "(x^2 + 2x + 2)e^x + C", "tabular-parts", "(x^2 + 2x + 2)·e^x",
     "x^2·e^x - 2x·e^x + 2e^x"),
    ("2x cos(x^2)", "2sin(x^2)", "substitution", "2sin(x^2)", "sin(x^2)"),
    ("x sin(x)", "x cos(x) - sin(x)", "parts", "x·cos(x) - sin(x)", "-x·cos(x) + sin(x)"),
    # parts takes v·du's minus out (u·v + ∫ cos(x) dx): the integral's step is marked
    # with the student's version of that integral as it is printed
    ("x sin(x)", "-x cos(x) - sin(x)", "integral-table", "-sin(x)", "sin(x)"),
    ("x sin(2x)", "-x cos(2x)/2 + sin(2x)/2", "integral-table", "sin(2x)/2", "sin(2x)/4"),
    ("x e^x/(x+1)^2", "-x e^x/(x+1) - e^x", "integral-exponential", "-e^x", "e^x"),
    # the sum rule takes a constant's minus out too (∫ 1 du - ∫ cos(2u) du)
    ("x sin(x^2)^2", "x^2/4 + sin(2x^2)/8", "integral-table", "-sin(2u)/2", "sin(2u)/2"),
    ("sin(2x)^5", "cos(2x)^5/10 + cos(2x)^3/3 - cos(2x)/2", "integral-power", "-u^5/10",
     "u^5/10"),
    ("3sin(x)^2 cos(x)^2", "3x/8 + 3sin(4x)/32", "integral-sum", "x - sin(4x)/4",
     "x + sin(4x)/4"),
])
def test_the_step_a_wrong_antiderivative_leaves_the_path_at(invoke, function, answer, rule,
                                                            student, right):
    at = departs(invoke, function, answer)
    assert (at["rule"], at["student"], at["right"]) == (rule, student, right)
    assert at["said"]


def test_the_plain_view_marks_the_step_with_the_students_version(invoke):
    run = invoke("check", "x^3 + 1/x", "--antiderivative", "--answer", "x^4/3 + ln|x|",
                 "--steps", "--plain")
    assert ("2. power rule for integrals: ∫ x^3 dx = x^4/4; = x^4/4 + ∫ 1/x dx  <- you "
            "wrote x^4/3 here; the power rule for integrals gives x^4/4") in run.out


def test_an_answer_with_a_function_no_step_gives_is_not_placed(invoke):
    assert departs(invoke, "x^3", "x^4/4 + sin(x)") is None


def test_a_parts_problem_marks_the_integral_parts_left_as_it_is_printed(invoke):
    run = invoke("check", "x sin(x)", "--antiderivative", "--answer", "-x cos(x) - sin(x)",
                 "--steps", "--plain")
    lines = run.out.splitlines()
    assert lines[3].startswith("1. integration by parts") and "<-" not in lines[3]
    assert lines[3].endswith("∫ x·sin(x) dx = -x·cos(x) + ∫ cos(x) dx")
    assert lines[4] == ("2. a table integral (∫ cos(u) du = sin(u)): ∫ cos(x) dx = sin(x); "
                        "= -x·cos(x) + sin(x)  <- you wrote -sin(x) here; a table integral "
                        "gives sin(x)")


def test_a_sum_marks_the_integral_whose_minus_it_took_out_as_it_is_printed(invoke):
    run = invoke("check", "x sin(x^2)^2", "--antiderivative", "--answer",
                 "x^2/4 + sin(2x^2)/8", "--steps", "--plain")
    lines = run.out.splitlines()
    assert lines[5].endswith("∫ (1 - cos(2u)) du = ∫ 1 du - ∫ cos(2u) du; "
                             "= (1/4)·(∫ 1 du - ∫ cos(2u) du)") and "<-" not in lines[5]
    assert lines[7].endswith("∫ cos(2u) du = sin(2u)/2; = (1/4)·(u - sin(2u)/2)  <- you "
                             "wrote -sin(2u)/2 here; a table integral gives sin(2u)/2")
