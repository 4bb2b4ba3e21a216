"""gradcalc.homework.kinds.at_point: dy/dx (and d²y/dx²) at one point of a curve, the
point checked to lie on it, decided exactly where the point is exact."""

from __future__ import annotations

import json

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds.registry import Kind


def at(equation, answer, point, order=1, wrt=None):
    return check(equation, answer, wrt, Kind(implicit="y", at=point, order=order))


POINT = (("x", 1.0), ("y", -1.0))


def test_the_issues_example_is_correct_by_proof():
    v = at("x y^2 = 1", "1/2", POINT)
    assert (v.verdict, v.method, v.expected) == ("correct", "symbolic", "1/2")
    assert v.read == {"function": "x y^2 = 1", "answer": "dy/dx = 1/2 at x = 1, y = -1"}
    assert v.points == [{"x": 1.0, "y": -1.0}] and v.branch is None


def test_the_dy_dx_of_the_whole_curve_is_not_the_value_at_the_point():
    v = at("x y^2 = 1", "-1/2", POINT)
    assert (v.verdict, v.method, v.score) == ("incorrect", "symbolic", 0.0)
    assert v.counterexample == {"at": {"x": 1.0, "y": -1.0}, "expected": 0.5, "answer": -0.5}


@pytest.mark.parametrize("equation,answer,point,order,expected", [
    ("x y^2 = 1", "-y/(2x)", POINT, 1, "1/2"),  # a formula of the names, held at the point
    ("x y^2 = 1", "-3/4", POINT, 2, "-3/4"),
    ("x^2 + y^2 = 25", "-3/4", (("x", 3.0), ("y", 4.0)), 1, "-3/4"),
    ("x^2 + y^2 = 25", "-25/64", (("x", 3.0), ("y", 4.0)), 2, "-25/64"),
    ("x y = 1", "-1/x^2", (("x", 0.3), ("y", 10 / 3)), 1, "-100/9"),
    ("x^2 + y^2 = r^2", "-3/4", (("x", 3.0), ("y", 4.0), ("r", 5.0)), 1, "-3/4"),
])
def test_values_at_points_are_proved(equation, answer, point, order, expected):
    v = at(equation, answer, point, order)
    assert (v.verdict, v.method, v.expected) == ("correct", "symbolic", expected), v


def test_a_rounded_answer_or_an_inexact_point_is_judged_by_the_tolerances():
    half_root = (("x", 0.5), ("y", 3 ** 0.5 / 2))
    # the float 0.8660254037844386 is read back as the exact √3/2 it stands for, so the
    # exact answer is decided exactly at that point
    assert (at("x^2 + y^2 = 1", "-1/sqrt(3)", half_root).verdict,
            at("x^2 + y^2 = 1", "-1/sqrt(3)", half_root).method) == ("correct", "symbolic")
    v = at("x^2 + y^2 = 1", "-0.577", half_root)
    assert (v.verdict, v.method) == ("incorrect", "numeric")
    assert v.read["answer"] == "dy/dx = -0.577 at x = 0.5, y = √3/2"
    v = at("x^2 + y^2 = 1", "-0.5773503", half_root)
    assert (v.verdict, v.method) == ("correct", "numeric")  # decimals: the tolerances
    assert (at("x y = 1", "-1/0.09", (("x", 0.3), ("y", 10 / 3))).method) == "numeric"


@pytest.mark.parametrize("point,message", [
    ((("x", 1.0), ("y", 2.0)), "--at 'x=1, y=2': the point is not on the curve (the left "
     "side minus the right is 3 there)"),
    ((("x", 1.0),), "--at with --implicit: give a point of the curve, a value for each of "
     "x, y (y missing)"),
    ((("x", 1.0), ("y", -1.0), ("z", 0.0)), "--at 'z': the equation does not use it"),
])
def test_a_point_off_the_curve_or_short_of_names_is_refused(point, message):
    with pytest.raises(GradcalcError) as e:
        at("x y^2 = 1", "1/2", point)
    assert e.value.kind == "usage" and e.value.message.startswith(message), e.value.message


def test_a_point_without_a_slope_is_refused():
    with pytest.raises(GradcalcError, match="dy/dx does not exist there .* vertical tangent"):
        at("x^2 + y^2 = 25", "0", (("x", 5.0), ("y", 0.0)))


def test_the_command_line_judges_it_and_replays_it(invoke, tmp_path):
    r = invoke("check", "x y^2 = 1", "--implicit", "y", "--at", "x=1, y=-1", "--answer",
               "1/2", "--json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["receipt"]["kind"] == {"at": {"x": 1.0, "y": -1.0}, "implicit": "y"}
    (tmp_path / "v.jsonl").write_text(r.out)
    assert invoke("replay", str(tmp_path / "v.jsonl"), "--plain").code == 0
    wrong = invoke("check", "x y^2 = 1", "--implicit", "y", "--at", "x=1", "--at", "y=-1",
                   "--answer", "-1/2", "--plain")
    assert wrong.code == 1 and wrong.out.startswith("incorrect; expected 1/2")


def test_a_keys_implicit_problem_at_a_point(invoke, tmp_path):
    (tmp_path / "key.csv").write_text("problem,function,kind,at\n"
                                      "p1,x y^2 = 1,implicit,x=1; y=-1\n")
    (tmp_path / "subs.csv").write_text("student,problem,answer\nana,p1,1/2\nben,p1,-1/2\n")
    r = invoke("grade", str(tmp_path / "subs.csv"), "--key", str(tmp_path / "key.csv"),
               "--json")
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert [x.get("verdict") for x in rows[:2]] == ["correct", "incorrect"]
    assert rows[0]["read"]["answer"] == "dy/dx = 1/2 at x = 1, y = -1"
