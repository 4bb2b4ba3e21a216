"""Implicit differentiation step by step, for a circle and the folium: both sides
differentiated (the chain rule gives y' on every y term), collected, solved; every
printed differentiation step true with y a function of x, the answer the judge's."""

from __future__ import annotations

import pytest
from printed_steps import agree, sides, value

from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.dispatch import solve
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind


def implicit(equation: str, order: int = 1):
    return solve(equation, None, Kind.read(implicit="y", order=order), Settings())


def differentiation_steps_hold(solution) -> None:
    for _, part, step in solution.steps:
        if part != 0:
            continue
        left, right = sides(step.text)
        assert agree(value(left, ("x", "y"), "y'"), value(right, ("x", "y"), "y'"),
                     ("x", "y")), step.text


def rules(solution) -> list[str]:
    return [s.rule for _, _, s in solution.steps]


def test_a_circle():
    s = implicit("x^2 + y^2 = 25")
    assert rules(s) == ["sum", "power", "chain", "constant", "collect", "solve"]
    chain = s.steps[2][2]
    assert chain.text == "d/dx(y^2) = 2y·y'" and chain.note == "outer ( )^2, inner y"
    assert s.steps[4][2].text == "2x + 2y·y' = 0 ⇒ 2y·y' = -2x"
    assert s.answer == "dy/dx = -x/y" and s.merged == 0
    differentiation_steps_hold(s)


def test_the_folium():
    s = implicit("x^3 + y^3 = 6x y")
    assert "product" in rules(s) and rules(s)[-3:] == ["collect", "solve", "simplify"]
    assert s.answer == "dy/dx = (x^2 - 2y)/(2x - y^2)"
    differentiation_steps_hold(s)
    job = AnswerJob("x^3 + y^3 = 6x y", s.answer.split(" = ", 1)[1],
                    kind=Kind.read(implicit="y"))
    assert run(job).verdict == "correct"


def test_a_second_derivative_uses_the_first_and_the_curve():
    s = implicit("x^2 + y^2 = 25", order=2)
    assert "put-in" in rules(s) and rules(s)[-1] == "on-curve"
    assert s.answer == "d^2y/dx^2 = -25/y^3"
    job = AnswerJob("x^2 + y^2 = 25", "-25/y^3", kind=Kind.read(implicit="y", order=2))
    assert run(job).verdict == "correct"


@pytest.mark.parametrize("equation", ["sin(x y) = x", "x^2 y + y^3 = 2", "e^y = x y"])
def test_more_curves(equation):
    s = implicit(equation)
    assert s.answer.startswith("dy/dx = ") and s.merged == 0
    differentiation_steps_hold(s)
