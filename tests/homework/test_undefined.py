"""gradcalc.homework.undefined (with points.py): an answer undefined on a part of the
function's real domain is incorrect, confirmed in exact arithmetic, and the part named."""

from __future__ import annotations

import math

import pytest

from gradcalc.homework import proof
from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import read_problem
from gradcalc.homework.undefined import _real


def anti(function, answer, domain=None, constant="optional"):
    return check(function, answer, None, Kind(antiderivative=True, domain=domain,
                                              constant=constant))


@pytest.mark.parametrize("function,wrong,right,feedback", [
    ("1/x", "ln(x) + C", "ln|x| + C",
     "ln(x) is defined only for x > 0, but 1/x is defined for x < 0 too: write ln|x| + C"),
    ("(2x + 7)/(x^2 + 7x + 7)", "ln(x^2 + 7x + 7)", "ln|x^2 + 7x + 7|",
     "ln(x^2 + 7x + 7) is defined only for x < -7/2 - √21/2 or x > -7/2 + √21/2, but "
     "(2x + 7)/(x^2 + 7x + 7) is defined for -7/2 - √21/2 < x < -7/2 + √21/2 too: write "
     "ln|x^2 + 7x + 7|"),
    ("2x/(x^2 - 9)", "log(x - 3) + log(x + 3)", "ln|x - 3| + ln|x + 3|",
     "ln(x - 3) is defined only for x > 3, but 2x/(x^2 - 9) is defined for x < -3 and "
     "-3 < x < 3 too: write ln|x - 3| + ln|x + 3|"),
    ("1/(sqrt(t) - 5)", "2(√t - 5) + 10 ln(√t - 5)", "2(√t - 5) + 10 ln|√t - 5|",
     "ln(√t - 5) is defined only for √t - 5 > 0, but 1/(√t - 5) is defined for "
     "0 < t < 25 too"),
    ("tan(x)", "-ln(cos(x))", "-ln|cos(x)|", "write -ln|cos(x)|"),
])
def test_an_antiderivative_on_one_part_of_the_domain_is_incorrect(function, wrong, right,
                                                                   feedback):
    v = anti(function, wrong)
    assert v.verdict == "incorrect", v
    assert feedback in v.feedback
    assert math.isnan(v.counterexample["answer"]) and v.score == 0.0
    assert anti(function, right).verdict == "correct", anti(function, right)


def test_the_issues_fourth_example_as_written():
    f = "(√t - 10)/(√t (√t - 5))"  # the derivative of 2(√t - 5) - 10 ln|√t - 5|
    v = anti(f, "2(√t - 5) - 10 ln(√t - 5)")
    assert v.verdict == "incorrect" and "0 < t < 25" in v.feedback
    assert anti(f, "2(√t - 5) - 10 ln|√t - 5|").verdict == "correct"


@pytest.mark.parametrize("function,answer,domain", [
    ("1/x", "ln(x) + C", "x > 0"),
    ("1/x", "ln(-x) + C", "x < 0"),
    ("2x/(x^2 - 9)", "log(x - 3) + log(x + 3)", "x in [4, 10]"),
    ("2x/(x^2 - 9)", "log(3 - x) + log(x + 3)", "-3 < x < 3"),
    ("tan(x)", "-ln(cos(x))", "-pi/2 < x < pi/2"),
])
def test_a_domain_accepts_the_answer_on_its_part(function, answer, domain):
    v = anti(function, answer, domain)
    assert v.verdict == "correct", v
    assert v.read["domain"] and v.points


def test_a_domain_does_not_accept_an_answer_wrong_on_it():
    v = anti("1/x", "ln(x) + C", "x < 0")  # where ln(x) is nowhere defined
    assert v.verdict == "incorrect" and "where the answer is not a real number" in v.feedback
    assert anti("1/x", "ln(2x)", "x > 0").verdict == "correct"
    assert anti("1/x", "ln(x^2)", "x > 0").verdict == "incorrect"


def test_a_derivative_undefined_where_the_derivative_is_not():
    v = check("asin(x)", "1/sqrt(x^2 - 1)", None, Kind())
    assert v.verdict == "incorrect"  # was undetermined: no common point at all
    assert "√(x^2 - 1) is defined only for x ≤ -1 or x ≥ 1" in v.feedback
    assert "-1 < x < 1, where the answer is not a real number" in v.feedback
    w = check("sqrt(x^2 - 1)", "x/(sqrt(x - 1) sqrt(x + 1))", None, Kind())
    assert w.verdict == "incorrect" and "for x < -1 too" in w.feedback
    assert check("sqrt(x^2 - 1)", "x/(sqrt(x - 1) sqrt(x + 1))", None,
                 Kind(domain="x > 1")).verdict == "correct"
    assert check("ln(x)", "1/x", None, Kind()).verdict == "correct"  # wider is fine


def test_float_overflow_is_not_undefined():
    # exp(x)/exp(x) is nan past x = 710 in float64, but 1 in exact arithmetic
    assert check("x", "exp(x)/exp(x)", None, Kind()).verdict == "correct"
    assert check("x^2/2", "x exp(x^2)/exp(x^2)", None, Kind()).verdict == "correct"


def test_every_step_must_be_real_not_only_the_result():
    x = proof.symbol("x")
    whole = x / (proof.sp.sqrt(x - 1) * proof.sp.sqrt(x + 1))
    assert not _real(whole, {"x": -2.0})  # √-3·√-1 is -√3 in sympy's complex arithmetic
    assert _real(whole, {"x": 2.0})


def test_several_variables_name_the_point():
    # √(x + y) fails on a part that depends on both: the point is named
    v = check("ln((x + y)^2)", "[2/sqrt(x + y)^2, 2/sqrt(x + y)^2]", None, Kind())
    assert v.verdict == "incorrect" and v.entries is None
    assert "the derivative is defined at x = " in v.feedback and ", y = " in v.feedback
    assert check("ln((x + y)^2)", "[2/(x + y), 2/(x + y)]", None, Kind()).ok


def test_several_variables_name_the_part_of_the_one_the_failure_depends_on():
    # √(x^2 - 1) and the derivative's domain depend on x alone: the part is one in x
    v = check("asin(x) + y", "[1/sqrt(x^2 - 1), 1]", None, Kind())
    assert v.verdict == "incorrect" and v.entries is None
    assert v.feedback == ("√(x^2 - 1) is defined only for x ≤ -1 or x ≥ 1, but the "
                          "derivative is defined for -1 < x < 1, where the answer is not "
                          "a real number")
    assert check("asin(x) + y", "[1/sqrt(1 - x^2), 1]", None, Kind()).ok
    # a first derivative proved equal on the common domain is still undefined for y < 0
    w = check("x ln(y^2)", "[ln(y^2), 2x (1/sqrt(y))^2]", None, Kind())
    assert w.verdict == "incorrect"
    assert w.feedback == "√y is defined only for y ≥ 0, but the derivative is defined " \
        "for y < 0 too"


def test_an_isolated_point_is_no_part():
    # F'(t) has no value at t = 0, the end of the function's domain: no part is lost
    assert anti("1/(sqrt(t) - 5)", "2(√t - 5) + 10 ln|√t - 5|").verdict == "correct"
    assert check("x^2", "2x^3/x^2", None, Kind()).verdict == "correct"  # 0 only


def test_a_constant_undefined_for_some_of_its_values_is_no_domain_error():
    assert anti("x^2", "x^3/3 + ln(c)").verdict == "correct"
    v = anti("x^2", "x^3/3 + sqrt(C)")  # wrong for its values alone, not for a domain
    assert v.verdict == "incorrect" and v.feedback.startswith("√C is a constant that")


def test_the_probes_meet_a_part_the_seeds_draws_miss():
    # (-5.79, -1.21): none of the first round's 48 draws of seed 0 fall there
    problem = read_problem("ln(x^2 + 7x + 7)", "(2x+7)/(x^2+7x+7)", ["x"])
    from dataclasses import replace

    from gradcalc.homework import judged_points
    from gradcalc.limits import DEFAULT_LIMITS

    found = judged_points.sample(replace(problem, turned=True), 8, 0, DEFAULT_LIMITS)
    lost = [p["x"] for p in found.uncovered_points()]
    assert lost and all(-5.8 < x < -1.2 for x in lost)


@pytest.mark.parametrize("text,probed", [
    ("2x sin(x) + x^2 cos(x)", False), ("1/x^2 - tan(x)", False), ("x^-2", False),
    ("ln(x)", True), ("sqrt(x)", True), ("x^0.5", True), ("x^x", True), ("asin(x)", True),
    ("u = log(x); u + 1", True),
])
def test_probes_are_spent_only_on_formulas_that_can_fail_on_a_part(text, probed):
    from gradcalc.homework.judged_points import restricted
    from gradcalc.homework.problem import read_side

    assert restricted(read_side(text, "answer", 0)) is probed
