"""gradcalc.homework.kinds.derivative and higher: N-th derivatives, Hessians, mixed partials
and answers at a point, each judged right on correct, rewritten and wrong answers."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.errors import GradcalcError
from gradcalc.homework.dispatch import check
from gradcalc.homework.higher import along
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import read_side

from conftest import examples


def verdict(function, answer, wrt=None, **kind):
    return check(function, answer, wrt, Kind.read(**kind))


def test_higher_derivatives_on_the_tape_match_the_formulas():
    side = read_side("x^3 y^2 + sin(x y)", "function", 1)
    x, y = np.array([1.0, 2.0, -0.5]), np.array([0.5, 3.0, 1.5])
    got = along(side.entries[0], {"x": x, "y": y}, (("x", "x"), ("x", "y"), ("y", "x"),
                                                   ("x", "x", "x")))
    np.testing.assert_allclose(got[("x", "x")], 6 * x * y**2 - y**2 * np.sin(x * y))
    np.testing.assert_allclose(got[("x", "y")], 6 * x**2 * y + np.cos(x * y)
                               - x * y * np.sin(x * y))
    np.testing.assert_allclose(got[("x", "y")], got[("y", "x")])
    np.testing.assert_allclose(got[("x", "x", "x")], 6 * y**2 - y**3 * np.cos(x * y))


def test_higher_derivatives_point_by_point_for_control_flow():
    side = read_side("if x > 0:\n    y = x^3\nelse:\n    y = -x^3\ny", "function", 1)
    got = along(side.entries[0], {"x": np.array([2.0, -1.0])}, (("x", "x"),))
    np.testing.assert_allclose(got[("x", "x")], [12.0, 6.0])


@pytest.mark.parametrize("function,answer,order", [
    ("x^4", "12x^2", 2),
    ("sin(2x)", "-4 sin(2x)", 2),
    ("e^(x^2)", "(2 + 4x^2) e^(x^2)", 2),
    ("e^(x^2)", "2e^(x^2) + 4x^2 e^(x^2)", 2),
    ("ln(x)", "2/x^3", 3),
    ("x^5", "120x", 4),
    ("1/(1 + x)", "2/(1+x)^3", 2),
])
def test_nth_derivatives_correct(function, answer, order):
    assert verdict(function, answer, order=order).verdict == "correct"


def test_nth_derivative_wrong_and_the_first_derivative_named():
    v = verdict("x^4", "4x^3", order=2)
    assert v.verdict == "incorrect" and v.expected == "12x^2"
    assert "first derivative" in v.feedback and "second derivative" in v.feedback
    assert verdict("sin(2x)", "-2 sin(2x)", order=2).verdict == "incorrect"


def test_the_hessian_as_a_nested_list_with_partial_credit():
    right = verdict("x^2 y + y^3", "[[2y, 2x], [2x, 6y]]", ["x", "y"], order=2)
    assert right.verdict == "correct" and right.kind == "hessian" and right.score == 1.0
    wrong = verdict("x^2 y + y^3", "[[2y, 2x], [2x, 6]]", ["x", "y"], order=2)
    assert wrong.verdict == "incorrect" and wrong.score == 0.75
    assert [e["verdict"] for e in wrong.entries] == ["correct"] * 3 + ["incorrect"]
    assert wrong.entries[3]["index"] == [1, 1]
    shape = verdict("x^2 y + y^3", "[2y, 6y]", ["x", "y"], order=2)
    assert shape.verdict == "incorrect" and shape.score == 0.0


@pytest.mark.parametrize("function,answer,partial", [
    ("x^3 y^2", "6x^2 y", "x,y"),
    ("x^3 y^2", "6y x^2", "y,x"),  # f_xy = f_yx
    ("e^(x y)", "e^(x y) (1 + x y)", "x,y"),
    ("e^(x y)", "e^(x y) + x y e^(x y)", "y,x"),
    ("sin(x y)", "-2x sin(x y) - x^2 y cos(x y)", "x,y,y"),
])
def test_mixed_partials_correct(function, answer, partial):
    v = verdict(function, answer, partial=partial)
    assert v.verdict == "correct", v
    assert v.kind == "partial"


def test_mixed_partials_wrong():
    v = verdict("x^3 y^2", "3x^2 y^2", partial="x,y")
    assert v.verdict == "incorrect" and "first derivative d/dx" in v.feedback
    assert verdict("x^3 y^2", "6x^2 y + 1", partial="x,y").verdict == "incorrect"


@pytest.mark.parametrize("function,answer,kind,ok", [
    ("x^3", "12", {"at": "x=2"}, True),
    ("x^3", "3*2^2", {"at": "x=2"}, True),
    ("x^3", "11", {"at": "x=2"}, False),
    ("sin(x)", "0", {"at": "x=pi/2"}, True),
    ("sin(x)", "1", {"at": "x=pi/2"}, False),
    ("x^4", "48", {"at": "x=2", "order": 2}, True),
    ("x^3 y^2", "24", {"at": "x=2, y=1", "partial": "x,y"}, True),
    ("x^2 y", "[4, 4]", {"at": "x=2, y=1"}, True),
    ("x^2 y", "[4, 5]", {"at": "x=2, y=1"}, False),
    ("x^3 y", "12y", {"at": "x=2"}, True),  # y stays free
])
def test_numeric_answers_at_a_point(function, answer, kind, ok):
    wrt = ["x"] if function == "x^3 y" else None
    v = verdict(function, answer, wrt, **kind)
    assert v.verdict == ("correct" if ok else "incorrect"), v


def test_a_value_at_a_point_has_the_value_as_expected_and_one_point():
    v = verdict("x^3", "11", at="x=2")
    assert v.expected == "12" and len(v.points) == 1 and v.points[0] == {"x": 2.0}
    partial = verdict("x^2 y", "[4, 5]", at="x=2, y=1")
    assert partial.score == 0.5


@pytest.mark.parametrize("kind,message", [
    ({"order": 3, "wrt": "x,y"}, "--order 3 with several inputs"),
    ({"at": "z=1"}, "--at 'z'"),
    ({"at": "x=[1,2]"}, "give one number"),
    ({"partial": "x,", "order": 1}, "--partial"),
])
def test_bad_settings_are_usage_errors(kind, message):
    wrt = kind.pop("wrt", None)
    with pytest.raises(GradcalcError) as err:
        verdict("x^2 y", "0", wrt.split(",") if wrt else None, **kind)
    assert message in err.value.message
    assert err.value.kind == "usage"


def test_the_kind_settings_read_from_text_and_back():
    k = Kind.read(order="2", partial=None, at="x=2", antiderivative="false")
    assert k.order == 2 and k.at == (("x", 2.0),) and not k.antiderivative
    assert k.as_json() == {"order": 2, "at": {"x": 2.0}}
    assert Kind.read().plain
    with pytest.raises(GradcalcError):
        Kind.read(order="two")
    with pytest.raises(GradcalcError):
        Kind.read(constant="sometimes")


# --------------------------------------------------------------------------- the whole domain


@pytest.mark.parametrize("function,answer,kind,feedback", [
    ("ln(abs(x))", "-(1/sqrt(x))^4", {"order": 2},
     "√x is defined only for x ≥ 0, but the second derivative is defined for x < 0 too"),
    ("ln(abs(x))", "2 (1/sqrt(x))^6", {"order": 3},
     "√x is defined only for x ≥ 0, but the third derivative is defined for x < 0 too"),
    ("x^2 ln(y^2)", "4x (1/sqrt(y))^2", {"partial": "x,y"},
     "√y is defined only for y ≥ 0, but f_xy is defined for y < 0 too"),
    ("x^2 ln(y^2)", "4x/(sqrt(y) sqrt(y))", {"partial": "y,x"},
     "√y is defined only for y ≥ 0, but f_yx is defined for y < 0 too"),
    ("x^2 ln(y^2)", "8 (1/sqrt(y))^2", {"partial": "x,y", "at": "x=2"},
     "√y is defined only for y ≥ 0, but f_xy is defined for y < 0 too"),
    ("x^2 ln(y^2)", "4x (1/sqrt(y))^2", {"partial": "x,y", "at": "y=-1"},
     "√y is defined only for y ≥ 0, but f_xy is defined at y = -1, where the answer is "
     "not a real number"),
    ("ln(abs(x))", "-1/sqrt(x)^2", {"at": "x=-2"},
     "√x is defined only for x ≥ 0, but the derivative is defined at x = -2, where the "
     "answer is not a real number"),
])
def test_an_answer_undefined_where_the_derivative_is_defined_is_incorrect(
        function, answer, kind, feedback):
    v = verdict(function, answer, **kind)
    assert v.verdict == "incorrect" and v.method == "numeric", v
    assert v.feedback == feedback
    assert math.isnan(v.counterexample["answer"]) and math.isfinite(
        v.counterexample["expected"])


@pytest.mark.parametrize("function,answer,kind", [
    ("ln(abs(x))", "-1/x^2", {"order": 2}),
    ("ln(abs(x))", "-(1/sqrt(abs(x)))^4", {"order": 2}),  # √|x| is defined for every x
    ("ln(abs(x))", "2/x^3", {"order": 3}),
    ("x^2 ln(y^2)", "4x/y", {"partial": "x,y"}),
    ("x^2 ln(y^2)", "8/y", {"partial": "x,y", "at": "x=2"}),
    ("x^2 ln(y^2)", "-4x", {"partial": "x,y", "at": "y=-1"}),
    ("x^2 ln(y^2)", "4x (1/sqrt(y))^2", {"partial": "x,y", "at": "y=1"}),
    ("ln(abs(x))", "-1/2", {"at": "x=-2"}),
])
def test_the_same_derivatives_written_defined_everywhere_are_correct(function, answer, kind):
    assert verdict(function, answer, **kind).verdict == "correct"


def test_the_hessian_is_judged_on_the_whole_domain():
    wrong = verdict("x^2 ln(y^2)", "[[2 ln(y^2), 4x (1/sqrt(y))^2], [4x/y, -2x^2/y^2]]",
                    ["x", "y"], order=2)
    assert wrong.verdict == "incorrect" and wrong.score == 0.0
    assert wrong.feedback == ("√y is defined only for y ≥ 0, but the Hessian is defined "
                              "for y < 0 too")
    right = verdict("x^2 ln(y^2)", "[[2 ln(y^2), 4x/y], [4x/y, -2x^2/y^2]]", ["x", "y"],
                    order=2)
    assert right.verdict == "correct"
    held = verdict("x^2 ln(y^2)", "[[2 ln(y^2), 4 (1/sqrt(y))^2], [4/y, -2/y^2]]",
                   ["x", "y"], order=2, at="x=1")
    assert held.verdict == "incorrect" and "the Hessian is defined for y < 0" in \
        held.feedback
    assert verdict("x^2 ln(y^2)", "[[2 ln(y^2), 4/y], [4/y, -2/y^2]]", ["x", "y"],
                   order=2, at="x=1").verdict == "correct"


@pytest.mark.parametrize("function,answer,kind", [
    ("ln(abs(x))", "-(1/sqrt(x))^4", {"order": 2, "domain": "x > 0"}),
    ("x^2 ln(y^2)", "4x (1/sqrt(y))^2", {"partial": "x,y", "domain": "y > 0"}),
    ("x^2 ln(y^2)", "[[2 ln(y^2), 4x (1/sqrt(y))^2], [4x/y, -2x^2/y^2]]",
     {"order": 2, "domain": "y > 0"}),
])
def test_a_domain_restricts_where_higher_and_mixed_derivatives_are_judged(
        function, answer, kind):
    wrt = ["x", "y"] if answer.startswith("[[") else None
    v = verdict(function, answer, wrt, **kind)
    assert v.verdict == "correct", v
    lost = verdict(function, answer, wrt, **{**kind, "domain": kind["domain"].replace(
        ">", "<")})
    assert lost.verdict == "incorrect"


# --------------------------------------------------------------------------- kinks


@pytest.mark.parametrize("function,order,expected", [
    ("x abs(x)", 2, "2sign(x)"),
    ("abs(x - 1) (x - 1)", 2, "2sign(x - 1)"),
    ("abs(x)", 2, "0"),
    ("ln(abs(x))", 2, "-1/x^2"),
    ("ln(abs(x))", 3, "2/x^3"),
    ("sqrt(abs(x))", 2, "-1/(4|x|^(3/2))"),
    ("abs(x)^3", 3, "6sign(x)"),
])
def test_a_derivative_through_a_kink_follows_pytorch_not_distributions(
        function, order, expected):
    wrong = verdict(function, "12345", order=order)
    assert wrong.expected == expected
    right = verdict(function, expected, order=order)
    assert right.verdict == "correct", right  # a DiracDelta term never makes it wrong


def test_no_distribution_is_printed_in_feedback_or_a_worked_solution():
    from gradcalc.homework.dispatch import solve
    from gradcalc.homework.judge import Settings

    for function, order in (("x abs(x)", 2), ("abs(x)^3", 3), ("ln(abs(x))", 2)):
        v = verdict(function, "x", order=order)
        solution = solve(function, None, Kind.read(order=order), Settings())
        printed = " ".join([v.expected, v.feedback or "", v.expected_latex or "",
                            json.dumps(solution.as_json())])
        assert "Dirac" not in printed and "Heaviside" not in printed, printed


@settings(max_examples=examples(12), deadline=None)
@given(st.integers(-4, 4).filter(bool), st.integers(-3, 3), st.integers(2, 3))
def test_the_expected_text_typed_back_is_judged_correct(a, b, order):
    function = f"({a}x + {b}) abs(x)"
    v = verdict(function, "0", order=order)
    assert "Dirac" not in v.expected and "Heaviside" not in v.expected
    assert verdict(function, v.expected, order=order).verdict == "correct", v.expected
