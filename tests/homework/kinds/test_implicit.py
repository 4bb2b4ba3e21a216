"""gradcalc.homework.kinds.implicit: dy/dx and d²y/dx² of curves, judged on points of the
curve found by Newton's method on the tape's derivative, with the branches reported."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.errors import GradcalcError
from gradcalc.homework.dispatch import check
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.implicit import curve_points, split_equation
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import read_side
from gradcalc.limits import DEFAULT_LIMITS


def verdict(equation, answer, order=1, y="y"):
    return check(equation, answer, None, Kind(implicit=y, order=order))


CIRCLE = "x^2 + y^2 = 25"
ELLIPSE = "x^2/4 + y^2/9 = 1"
FOLIUM = "x^3 + y^3 = 3x y"


def test_the_points_lie_on_the_curve_on_both_branches():
    side = read_side("(x^2 + y^2) - (25)", "equation", 0)
    pts, labels = curve_points(side, "x", "y", Settings(), DEFAULT_LIMITS)
    assert len(pts["x"]) >= 8
    np.testing.assert_allclose(pts["x"] ** 2 + pts["y"] ** 2, 25, rtol=1e-12)
    assert {"upper", "lower"} <= set(labels)
    assert all(pts["y"][labels == "upper"] > 0) and all(pts["y"][labels == "lower"] < 0)


@pytest.mark.parametrize("equation,answer", [
    (CIRCLE, "-x/y"),
    (CIRCLE, "x/(-y)"),
    (ELLIPSE, "-9x/(4y)"),
    (ELLIPSE, "-(9/4) x/y"),
    (FOLIUM, "(y - x^2)/(y^2 - x)"),
    (FOLIUM, "(x^2 - y)/(x - y^2)"),
    ("x y = 1", "-y/x"),
    ("sin(x) + cos(y) = 0.5", "cos(x)/sin(y)"),
])
def test_implicit_derivatives_correct_on_every_branch(equation, answer):
    v = verdict(equation, answer)
    assert v.verdict == "correct", v
    assert v.kind == "implicit" and v.feedback is None


def test_the_folium_is_judged_on_its_branches():
    v = verdict(FOLIUM, "(y - x^2)/(y^2 - x)")
    assert "every branch" in v.branch
    pts = np.array([[p["x"], p["y"]] for p in v.points])
    np.testing.assert_allclose(pts[:, 0] ** 3 + pts[:, 1] ** 3, 3 * pts[:, 0] * pts[:, 1],
                               atol=1e-8)


@pytest.mark.parametrize("answer,branch", [
    ("-x/sqrt(25 - x^2)", "upper branch"),
    ("x/sqrt(25 - x^2)", "lower branch"),
])
def test_an_explicit_answer_is_correct_on_its_branch_and_says_which(answer, branch):
    v = verdict(CIRCLE, answer)
    assert v.verdict == "correct" and v.branch == branch
    assert "only" in v.feedback


@pytest.mark.parametrize("equation,answer,fragment", [
    (CIRCLE, "x/y", "sign error"),
    (CIRCLE, "-y/x", "reciprocal"),
    (CIRCLE, "y/x", "-F_y/F_x"),
    (ELLIPSE, "-4x/(9y)", None),
    (FOLIUM, "(y - x^2)/(y^2 + x)", None),
])
def test_wrong_implicit_derivatives(equation, answer, fragment):
    v = verdict(equation, answer)
    assert v.verdict == "incorrect"
    c = v.counterexample
    assert set(c["at"]) == {"x", "y"} and c["expected"] != pytest.approx(c["answer"])
    if fragment:
        assert fragment in v.feedback


def test_second_derivatives():
    assert verdict(CIRCLE, "-25/y^3", order=2).verdict == "correct"
    assert verdict(CIRCLE, "-(x^2 + y^2)/y^3", order=2).verdict == "correct"
    assert verdict(CIRCLE, "-1/y - x^2/y^3", order=2).verdict == "correct"
    assert verdict(CIRCLE, "-x/y", order=2).verdict == "incorrect"
    assert verdict(ELLIPSE, "-81/(4 y^3)", order=2).verdict == "correct"


def test_the_expected_formula():
    assert verdict(CIRCLE, "x/y").expected == "-x/y"
    # on the circle the numerator -(x^2 + y^2) is reduced modulo the curve: -25
    assert verdict(CIRCLE, "x", order=2).expected == "-25/y^3"
    assert verdict(FOLIUM, "x").expected == "(x^2 - y)/(x - y^2)"


def test_another_dependent_name():
    assert verdict("u^2 + x^2 = 4", "-x/u", y="u").verdict == "correct"


def test_a_curve_with_no_real_points_is_undetermined():
    v = verdict("x^2 + y^2 = -1", "-x/y")
    assert v.verdict == "undetermined"


@pytest.mark.parametrize("text", ["x^2 + y^2", "x = y = 1", "x^2 + y^2 == 25", "= 5"])
def test_not_one_equation(text):
    with pytest.raises(GradcalcError) as err:
        verdict(text, "-x/y")
    assert err.value.kind == "usage"


def test_equation_splitting_leaves_comparisons_alone():
    assert split_equation("x^2 + y^2 = 25") == ("x^2 + y^2", "25")
    assert split_equation("where(x <= 1, x, y) = 2") == ("where(x <= 1, x, y)", "2")


def test_names_the_answer_may_use():
    with pytest.raises(GradcalcError):
        verdict(CIRCLE, "-x/z")
    with pytest.raises(GradcalcError, match="name the variable with --wrt"):
        verdict("s^2 + y^2 + z^2 = 1", "-1")  # neither s nor z is said to be the variable


# --------------------------------------------------------------------------- named constants


def with_wrt(equation, answer, wrt, y="y"):
    return check(equation, answer, wrt, Kind(implicit=y))


@pytest.mark.parametrize("equation,answer,y,wrt,said", [
    ("x^2 + y^2 = r^2", "-x/y", "y", None, "(r: constant)"),
    ("(x-a)^3 + y^3 = a^3", "-(x-a)^2/y^2", "y", None, "(a: constant)"),
    ("(x-a)^3 + y^3 = a^3", "((x-a)^2 + a^2)/y^2", "y", ["a"], "(x: constant)"),
    ("a^3 b^2 - cos(b) = C", "-3a^2 b^2/(2a^3 b + sin(b))", "b", None, "(C: constant)"),
    ("x^2/p^2 + y^2/q^2 = 1", "-q^2 x/(p^2 y)", "y", None, "(p and q: constants)"),
])
def test_an_equation_may_hold_named_constants(equation, answer, y, wrt, said):
    v = with_wrt(equation, answer, wrt, y)
    assert (v.verdict, v.method) == ("correct", "symbolic"), v
    assert v.read["function"] == f"{equation} {said}"


def test_the_constants_take_many_values_and_the_answer_must_hold_for_each():
    v = with_wrt("x^2 + y^2 = r^2", "-x/y", None)
    r = np.array([p["r"] for p in v.points])
    assert len(set(np.round(r, 6))) >= 4
    pts = np.array([[p["x"], p["y"]] for p in v.points])
    np.testing.assert_allclose(pts[:, 0] ** 2 + pts[:, 1] ** 2, r ** 2, rtol=1e-9)
    right_for_one_radius = with_wrt("x^2 + y^2 = r^2", "-x/y * r/5", None)
    assert right_for_one_radius.verdict == "incorrect"
    assert "r" in right_for_one_radius.counterexample["at"]


def test_wrt_must_name_one_of_the_equations_other_names():
    with pytest.raises(GradcalcError, match="name the one variable y depends on, one of x, a"):
        with_wrt("(x-a)^3 + y^3 = a^3", "0", ["z"])
    with pytest.raises(GradcalcError, match="one of x, a"):
        with_wrt("(x-a)^3 + y^3 = a^3", "0", ["x", "a"])
    with pytest.raises(GradcalcError, match="the answer uses 'z'; it may use x, y and r"):
        with_wrt("x^2 + y^2 = r^2", "-x/z", None)


@pytest.mark.parametrize("equation,y,wrt,answer,shown", [
    ("xy = 1", "y", None, "-y/x", "x·y = 1"),
    ("xy^2 = 4", "y", None, "-y/(2x)", "x·y^2 = 4"),
    ("ty + t^2 = 3", "y", ["t"], "-(y + 2t)/t", "t·y + t^2 = 3"),
    ("yx = 2", "y", None, "-y/x", "y·x = 2"),
])
def test_a_name_glued_from_the_equations_variables_reads_as_their_product(
        equation, y, wrt, answer, shown):
    got = check(equation, answer, wrt, Kind(implicit=y))
    assert got.verdict == "correct", got.feedback
    assert got.read["function"] == shown  # the reading said
    wrong = check(equation, answer.replace("-", "", 1), wrt, Kind(implicit=y))
    assert wrong.verdict == "incorrect"


def test_an_equation_without_a_glued_name_is_shown_as_typed():
    assert verdict("x^2+y^2=1", "-x/y").read["function"] == "x^2+y^2 = 1"


def test_the_worked_solution_of_a_glued_equation_has_its_steps():
    from gradcalc.homework.dispatch import solve

    steps = solve("xy = 1", None, Kind(implicit="y"), Settings())
    assert not steps.note and steps.parts, steps.note
