"""Exact beats numeric (gradcalc.homework.proof.settle, judge.py): a difference sympy
proves not 0 is `incorrect` whatever the tolerances, the counterexample its exact
difference; tolerances stay for the decimals a student types, and the verdict says so."""

from __future__ import annotations

import json
import math

import pytest
import sympy as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gradcalc.homework import proof
from gradcalc.homework.dispatch import check
from gradcalc.homework.judge import Settings, typed_decimals
from gradcalc.homework.kinds.registry import Kind

from conftest import examples

X = proof.symbol("x")
#: the issue's first example: its expanded derivative with the constant term off by one
HUGE = "256*(2*x + 5)^8*(5*x - 1)^6"


def verdict(function, answer, wrt=None, **settings):
    return check(function, answer, wrt, Kind(), Settings(**settings))


def text(expr) -> str:
    """A sympy formula as the text a student types (the language's own printer)."""
    return proof.text(expr)


def test_a_constant_term_off_by_one_on_values_near_1e13_is_incorrect():
    answer = text(sp.expand(sp.diff(256 * (2 * X + 5) ** 8 * (5 * X - 1) ** 6, X)) - 1)
    v = verdict(HUGE, answer)
    assert v.verdict == "incorrect" and v.method == "symbolic"
    assert v.counterexample["difference"] == "-1"
    assert v.counterexample["at"] == {"x": 0.0}
    assert (v.counterexample["expected"], v.counterexample["answer"]) == (-2680000000.0,
                                                                          -2680000001.0)
    assert "the answer minus the derivative is exactly -1" in v.feedback
    assert verdict(HUGE, text(sp.expand(sp.diff(256 * (2 * X + 5) ** 8 *
                                                (5 * X - 1) ** 6, X)))).ok


def test_a_unit_added_to_a_scale_of_1e10_is_incorrect(invoke):
    r = invoke("check", "1e10*x^2", "--answer", "2e10*x + 1", "--json")
    out = json.loads(r.out)
    assert r.code == 1 and out["verdict"] == "incorrect" and out["method"] == "symbolic"
    assert out["counterexample"] == {"at": {"x": 0.0}, "expected": 0.0, "answer": 1.0,
                                     "difference": "1"}
    rich = invoke("check", "1e10*x^2", "--answer", "2e10*x + 1")
    assert "exact: the difference is not 0" in rich.out
    assert "answer − derivative = 1, exactly" in rich.out


def test_equal_values_in_six_digits_are_shown_with_every_digit(invoke):
    answer = text(sp.expand(sp.diff(256 * (2 * X + 5) ** 8 * (5 * X - 1) ** 6, X)) - 1)
    rich = invoke("check", HUGE, "--answer", answer).out
    assert "-2680000001" in rich and "-2680000000" in rich


def test_a_rational_answer_proved_by_cancel_is_correct_by_proof():
    v = verdict("x/(x + 1)", "1/(x + 1) - x/(x + 1)^2")
    assert v.verdict == "correct" and v.method == "symbolic"


def test_a_difference_not_rational_is_proved_not_0_at_an_exact_point():
    v = verdict("sin(x)", "cos(x) + 1e-12")  # typed decimal: the tolerances judge
    assert v.verdict == "correct" and "decimals typed (1e-12)" in v.feedback
    v = verdict("sin(x)", "cos(x) + 1/10^12")
    assert v.verdict == "incorrect" and v.method == "symbolic", v
    assert "1/1000000000000" in v.counterexample["difference"]


def test_typed_decimals_keep_the_tolerances_and_the_verdict_says_so():
    v = verdict("pi x", "3.1416", rtol=1e-3)
    assert v.verdict == "correct" and v.method == "numeric"
    assert v.feedback.startswith("the decimals typed (3.1416) are judged within the "
                                 "tolerances (rtol 0.001, atol 1e-09)")
    assert "exactly, the answer minus the derivative is 3927/1250 - π ≈ 7.35e-06" in \
        v.feedback
    assert verdict("x^2/6", "0.3333333x").verdict == "correct"
    assert verdict("x^2/6", "0.333x").verdict == "incorrect"
    assert typed_decimals("0.333x + 2.0 + .5 + 1e-3 + 2e10 + x1.5") == ["0.333", ".5",
                                                                         "1e-3"]


def test_an_exact_difference_marks_only_its_entry():
    v = verdict("x^2 y + 1e10 y", "[2x y, x^2 + 10000000001]")
    assert v.verdict == "incorrect" and v.score == 0.5
    assert [e["verdict"] for e in v.entries] == ["correct", "incorrect"]


def test_a_formula_of_one_path_is_not_judged_exactly_elsewhere():
    # where(x > 0, ...) decides on x: its formula holds on one side of 0 only
    assert verdict("relu(x)", "where(x > 0, 1, 0)").verdict == "correct"


def test_settle_tells_zero_from_not_zero_and_gives_up_on_floats():
    assert proof.settle(X / 3, X / 3, [], ["x"], 2.0) is True
    assert proof.settle(1 / (X + 1), X / (X * (X + 1)), [], ["x"], 2.0) is True
    d = proof.settle(X ** 2, X ** 2 + sp.Rational(1, 10 ** 30), [{"x": 0.5}], ["x"], 2.0)
    assert isinstance(d, proof.Difference) and d.everywhere
    assert d.value == sp.Rational(1, 10 ** 30) and d.at == {"x": 0}
    assert proof.settle(X, X + sp.Float(2 ** 0.5 / 3), [{"x": 0.5}], ["x"], 2.0) is None
    zero = sp.sin(X) ** 2 + sp.cos(X) ** 2
    assert proof.settle(zero, sp.Integer(1), [{"x": 0.3}], ["x"], 2.0) is None
    tiny = proof.settle(sp.sin(X), sp.sin(X) + sp.Rational(1, 10 ** 20) * sp.exp(X),
                        [{"x": 0.25}], ["x"], 2.0)
    assert isinstance(tiny, proof.Difference) and not tiny.everywhere


@pytest.mark.parametrize("constant", ["ln(2)", "sqrt(2)", "sin(1)", "exp(2)/3", "atan(3)",
                                      "log(10)^2", "1/ln(2)"])
@pytest.mark.parametrize("shape", ["3x^2/{c}", "3x^2*{c}", "x*3x/{c}", "(3/{c})*x^2"])
def test_a_function_of_numbers_in_an_answer_stays_exact(constant, shape):
    """ln(2) is computed as the float 0.693…: 3x^2/ln(2) once carried 3/ln(2) as the float
    4.32808512266689, read back as that decimal and judged incorrect, exactly."""
    v = verdict(f"x^3/({constant})" if "/{c}" in shape else f"x^3*({constant})",
                shape.format(c=f"({constant})"))
    assert (v.verdict, v.method) == ("correct", "symbolic"), v


def test_a_float_left_in_a_difference_is_never_read_as_a_decimal():
    """A Float that reaches settle was computed (3·(1/ln 2) in float64 prints as the short
    4.32808512266689): no exact verdict on it."""
    computed = sp.Integer(3) * sp.Float(1 / 0.6931471805599453)
    assert repr(float(computed)) == "4.32808512266689"
    assert proof.settle(3 * X ** 2 / sp.log(2), computed * X ** 2, [{"x": 1.5}], ["x"],
                        2.0) is None


# --------------------------------------------------------------------------- the property

COEFFICIENT = st.integers(-9, 9).filter(bool)
SCALE = st.integers(-12, 12)
TERM = st.sampled_from([sp.Integer(1), X, sp.Integer(-1), sp.Integer(3), X / 7, -2 * X])


def _coefficient(c: int, k: int) -> sp.Rational:
    return sp.Integer(c) * sp.Integer(10) ** k


@st.composite
def problems(draw) -> tuple[str, sp.Expr]:
    """A polynomial or a rational function of x, coefficients c·10^k at any scale."""
    degree = draw(st.integers(1, 5))
    numerator = sum(_coefficient(draw(COEFFICIENT), draw(SCALE)) * X ** i
                    for i in range(degree + 1))
    if draw(st.booleans()):
        f = numerator
    else:
        root = draw(st.integers(-5, 5))
        f = numerator / (X - root) ** draw(st.integers(1, 2))
    return text(f), f


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(problems(), TERM, SCALE)
@example(("1e10*x^2", 10 ** 10 * X ** 2), sp.Integer(1), 0)
def test_the_right_answer_plus_a_nonzero_low_order_term_is_never_correct(problem, term, k):
    function, f = problem
    right = sp.diff(f, X)
    assert verdict(function, text(right)).verdict == "correct", (function, right)
    added = sp.Integer(10) ** k * term
    typed = f"{text(right)} + ({text(added)})"  # a term added, as a student types it
    wrong = verdict(function, typed)
    assert wrong.verdict != "correct", (function, right, added, wrong)
    assert check(function, typed, None, Kind(domain="x > 6")).verdict != "correct"


@pytest.mark.parametrize("extra", ["1/10^15", "x/10^20", "-1"])
def test_the_same_at_scale_1e15(extra):
    function = "10^15 x^3 + 3x"
    assert verdict(function, "3*10^15 x^2 + 3").ok
    assert verdict(function, f"3*10^15 x^2 + 3 + {extra}").verdict == "incorrect"


@pytest.mark.parametrize("value, form", [
    (math.exp(-3), sp.exp(-3)), (0.05 * math.exp(5), sp.exp(5) / 20),
    (1 + math.exp(3), 1 + sp.exp(3)), (2.5 * math.exp(3), sp.Rational(5, 2) * sp.exp(3)),
    (math.log(2), sp.log(2)), (1 / (2 * math.log(2)), 1 / (2 * sp.log(2))),
    (1.5 * math.pi, 3 * sp.pi / 2), (1 / 7, sp.Rational(1, 7)), (7.123456789, None),
    (0.6931, None),
])
def test_a_computed_value_is_read_as_the_closed_form_it_agrees_with(value, form):
    from gradcalc.homework.exact import closed_form

    # a few ulps off, as a ratio of two float64 values is
    assert closed_form(value * (1 - 3e-16)) == form
