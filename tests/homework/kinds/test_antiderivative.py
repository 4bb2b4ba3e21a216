"""gradcalc.homework.kinds.antiderivative: antiderivatives with and without + C, the
constant's rule, and feedback for the usual slips."""

from __future__ import annotations

import pytest

from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds.registry import Kind


def verdict(function, answer, constant="optional", wrt=None):
    return check(function, answer, wrt, Kind(antiderivative=True, constant=constant))


@pytest.mark.parametrize("function,answer", [
    ("x^3", "x^4/4 + C"),
    ("x^3", "x^4/4"),
    ("x^3", "x^4/4 + K"),
    ("x^3", "(x^4 + 1)/4"),  # another member of the family
    ("cos(2x)", "sin(2x)/2 + C"),
    ("x^2 e^x", "e^x (x^2 - 2x + 2) + C"),
    ("1/x", "ln(abs(x)) + C"),
    ("2x cos(x^2)", "sin(x^2) + c1"),
    ("sec(x)^2", "tan(x) + C"),
])
def test_antiderivatives_correct(function, answer):
    v = verdict(function, answer)
    assert v.verdict == "correct", v
    assert v.kind == "antiderivative"


def test_the_expected_text_is_an_antiderivative_plus_c():
    v = verdict("x^3", "x^4")
    assert v.verdict == "incorrect" and v.expected == "x^4/4 + C"


@pytest.mark.parametrize("function,answer,fragment", [
    ("x^3", "x^4", "4 times the function: the power rule backwards"),
    ("x^3", "x^4/3", "4/3 times the function"),
    ("x^3", "3x^2", "the derivative of the function: integrate, don't differentiate"),
    ("x^3", "x^3", "the function itself"),
    ("x^3", "-x^4/4 + C", "sign error"),
    ("x^3", "C x^4/4", "must be added as a term"),
    ("x^3", "x^4/4 + C + D", "2 constants (C, D)"),
    ("cos(2x)", "sin(2x) + C", "the chain rule backwards"),
    ("x^3", "5", "does not use 'x'"),
])
def test_wrong_antiderivatives_with_feedback(function, answer, fragment):
    v = verdict(function, answer)
    assert v.verdict == "incorrect"
    assert fragment in (v.feedback or ""), v.feedback


def test_the_constant_rule():
    assert verdict("x^3", "x^4/4", "required").verdict == "incorrect"
    assert "missing" in verdict("x^3", "x^4/4", "required").feedback
    assert verdict("x^3", "x^4/4 + C", "required").verdict == "correct"
    assert verdict("x^3", "x^4/4 + C", "forbidden").verdict == "incorrect"
    assert verdict("x^3", "x^4/4", "forbidden").verdict == "correct"


def test_a_counterexample_compares_the_answers_derivative_with_the_function():
    v = verdict("x^3", "x^4")
    c = v.counterexample
    x = c["at"]["x"]
    assert set(c["at"]) == {"x"}
    assert c["expected"] == pytest.approx(x**3) and c["answer"] == pytest.approx(4 * x**3)


def test_a_parameter_with_wrt():
    assert verdict("a x^2", "a x^3/3 + C", wrt=["x"]).verdict == "correct"
    assert verdict("a x^2", "x^3/3 + C", wrt=["x"]).verdict == "incorrect"


@pytest.mark.parametrize("function,wrt,answer", [
    ("xy", ["x"], "x^2y/2 + C"),
    (r"\int xy\,dx", None, "x^2 y/2 + C"),
    ("ty^2", ["y"], "ty^3/3 + C"),
])
def test_a_constant_glued_to_the_variable_reads_as_a_product(function, wrt, answer):
    got = check(function, answer, wrt, Kind(antiderivative=True))
    assert got.verdict == "correct", got.feedback
    assert "·" in got.read["function"]  # the reading said: f(x) = x·y


def test_the_linear_arguments_are_read_as_the_student_wrote_them():
    import sympy as sp

    from gradcalc.homework.kinds.antiderivative import written_arguments
    from gradcalc.language.parse import parse

    x = sp.Symbol("x", real=True)
    program = parse("sec(4 - x)^2 + 3sin(2 - 3x) + cos(x - 1) + sec(4 - x)")
    assert written_arguments(program, x) == (4 - x, 2 - 3 * x)
