"""gradcalc.homework.kinds.on_curve: dy/dx = -F_x/F_y from sympy, an answer proved
to be dy/dx on the whole curve (its difference's numerator is a multiple of F), or
confirmed wrong at an exact point of the curve; where sympy cannot tell (a curve or an
answer that is not polynomial), the numeric check decides, and `method` says which."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds import on_curve as implicit_exact
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import read_side
from gradcalc.limits import DEFAULT_LIMITS


def verdict(equation, answer, order=1):
    return check(equation, answer, None, Kind(implicit="y", order=order))


def slope(equation, order=1):
    left, right = equation.split("=")
    side = read_side(f"({left}) - ({right})", "equation", 0)
    return implicit_exact.slope(side, "x", "y", order, DEFAULT_LIMITS)


def answer(text, s):
    return implicit_exact.answer_expr(read_side(text, "answer", 0), s, DEFAULT_LIMITS)


@pytest.mark.parametrize("equation,answer_text,order", [
    ("sin(x) + cos(y) = 0.5", "-cos(x)/(-sin(y))", 1),  # sympy's formula itself
    ("e^(x y) = x + y", "(1 - y e^(x y))/(x e^(x y) - 1)", 1),
    ("x^2 + y^2 = 25", "-x/y", 1),
    ("x^2 + y^2 = 25", "x/(-y)", 1),
    ("x^2/4 + y^2/9 = 1", "-(9/4) x/y", 1),
    ("x^3 + y^3 = 3x y", "(y - x^2)/(y^2 - x)", 1),
    ("x y = 1", "-1/x^2", 1),  # -y/x on the curve y = 1/x
    ("x^2 + x y + y^2 = 7", "-(2x + y)/(x + 2y)", 1),
    ("x^2 + y^2 = 25", "-25/y^3", 2),
    ("x^2 + y^2 = 25", "-(x^2 + y^2)/y^3", 2),
])
def test_right_answers_are_proved(equation, answer_text, order):
    s = slope(equation, order)
    assert implicit_exact.proved(s, answer(answer_text, s))
    v = verdict(equation, answer_text, order)
    assert v.verdict == "correct" and v.method == "symbolic", v


@pytest.mark.parametrize("equation,answer_text,order", [
    ("x^2 + y^2 = 25", "x/y", 1),
    ("x^2 + y^2 = 25", "-y/x", 1),
    ("x^3 + y^3 = 3x y", "(y - x^2)/(y^2 + x)", 1),
    ("x^2 + x y + y^2 = 7", "-(2x + y)/(x + y)", 1),
    ("x^2 + y^2 = 25", "-1/y", 2),
])
def test_wrong_answers_are_refuted_at_an_exact_point_of_the_curve(equation, answer_text,
                                                                   order):
    s = slope(equation, order)
    assert not implicit_exact.proved(s, answer(answer_text, s))
    v = verdict(equation, answer_text, order)
    assert v.verdict == "incorrect" and v.method == "symbolic", v
    assert implicit_exact.refuted(s, answer(answer_text, s), v.counterexample["at"], 1e-6,
                                  1e-9)


def test_a_point_off_the_curve_refutes_nothing():
    s = slope("x^2 + y^2 = 25")
    wrong = answer("x/y", s)
    assert implicit_exact.refuted(s, wrong, {"x": 3.0, "y": 4.0}, 1e-6, 1e-9)
    assert not implicit_exact.refuted(s, wrong, {"x": 3.0, "y": 2.0}, 1e-6, 1e-9)
    assert not implicit_exact.refuted(s, wrong, {"x": 6.0, "y": 0.5}, 1e-6, 1e-9)
    right = answer("-x/y", s)
    assert not implicit_exact.refuted(s, right, {"x": 3.0, "y": 4.0}, 1e-6, 1e-9)


@pytest.mark.parametrize("equation,answer_text,expected", [
    ("x^2 + y^2 = 25", "-x/sqrt(25 - x^2)", "correct"),  # one branch: not polynomial
    ("sin(x) + cos(y) = 0.5", "cos(x) csc(y)", "correct"),  # the curve is not polynomial
    ("sin(x) + cos(y) = 0.5", "-cos(x)/sin(y)", "incorrect"),
    ("x^2 + y^2 = 25", "where(y > 0, -x/y, -x/y)", "correct"),  # a formula that decides
])
def test_where_sympy_cannot_decide_the_numeric_check_does(equation, answer_text, expected):
    v = verdict(equation, answer_text)
    assert v.verdict == expected and v.method == "numeric", v


def test_an_answer_undefined_on_the_whole_curve_is_not_proved():
    """-x/y plus 0/0 on the curve: the difference's numerator is a multiple of F, and so
    is its denominator."""
    s = slope("x^2 + y^2 = 25")
    undefined = answer("-x/y + ((x - 5)(x + 5) + y^2)/(x^2 + y^2 - 25) - 1", s)
    assert sp.denom(sp.together(undefined - s.slope)) != 1
    assert not implicit_exact.proved(s, undefined)


def test_the_expected_text_comes_from_sympy_in_the_students_notation():
    assert implicit_exact.text(slope("x^2 + y^2 = 25")) == "-x/y"
    assert implicit_exact.text(slope("x^2 + y^2 = 25", 2)) == "-25/y^3"
    assert implicit_exact.text(slope("x^2/4 + y^2/9 = 1")) == "-9x/(4y)"


def test_the_json_says_which_check_decided():
    from gradcalc.render.verdicts import verdict_json

    proved = verdict_json(verdict("x^2 + y^2 = 25", "-x/y"))
    numeric = verdict_json(verdict("x^2 + y^2 = 25", "-x/sqrt(25 - x^2)"))
    assert proved["method"] == "symbolic" and numeric["method"] == "numeric"


def test_the_readable_view_says_the_counterexample_is_exact():
    from rich.console import Console

    from gradcalc.render.verdicts import show

    console = Console(record=True, width=100)
    show(verdict("x^2 + y^2 = 25", "x/y"), console)
    assert "symbolic: a counterexample at an exact point of the curve" in console.export_text()
    console = Console(record=True, width=100)
    show(verdict("sin(x) + cos(y) = 0.5", "-cos(x)/sin(y)"), console)
    assert "numeric: a counterexample" in console.export_text()


def test_a_class_on_one_equation_reads_it_once(monkeypatch):
    """The points of the curve and sympy's slope are kept per equation: a second answer
    to the same equation finds no new points, and its verdict is the one it gets afresh."""
    from gradcalc.homework.kinds import implicit

    implicit.forget()
    calls = []
    real = implicit.curve_points
    monkeypatch.setattr(implicit, "curve_points", lambda *a: calls.append(1) or real(*a))
    first = verdict("x^2 + y^2 = 25", "-x/y")
    again = verdict("x^2 + y^2 = 25", "x/y")
    other_order = verdict("x^2 + y^2 = 25", "-25/y^3", order=2)
    assert len(calls) == 2  # the circle for dy/dx, then for d²y/dx²
    assert implicit.forget() == 2
    fresh = verdict("x^2 + y^2 = 25", "x/y")
    assert len(calls) == 3
    assert (first.verdict, again.verdict, other_order.verdict) == ("correct", "incorrect",
                                                                   "correct")
    assert (fresh.verdict, fresh.method, fresh.counterexample, fresh.points) == (
        again.verdict, again.method, again.counterexample, again.points)


def test_forgetting_every_kind_forgets_the_implicit_equations_too():
    from gradcalc.homework import dispatch
    from gradcalc.homework.kinds import implicit

    dispatch.forget()
    verdict("x^2 + y^2 = 25", "-x/y")
    assert dispatch.forget() >= 1  # the circle's points and slope, with the function's
    assert implicit.forget() == 0
