"""gradcalc.homework.feedback.second_steps: the step that went wrong in a second
derivative, in the first differentiation or in the second."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.homework.dispatch import check
from gradcalc.homework.feedback import misconceptions as m
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.proof import exact, symbol, text
from gradcalc.language.parse import parse


def second(function, answer, **kind):
    return check(function, answer, None, Kind(**(kind or {"order": 2})))


@pytest.mark.parametrize("function,answer,rule,at,which,kind", [
    ("sin(3x)", "9sin(3x)", "trig-sign", "cos(3x)", 2, {}),
    ("x^5", "20x^4", "power-not-lowered", "x^4", 2, {}),
    ("e^(x^2)", "2e^(x^2)", "product-term-missing", "2x·exp(x^2)", 2, {}),
    ("sin(x^2)", "-2x sin(x^2)", "chain-inner-factor", "sin(x^2)", 1, {}),
    ("x^2 y^3", "6x y^3", "power-not-lowered", "y^3", 2, {"partial": ("x", "y")}),
    ("e^(x y)", "x e^(x y)", "product-of-derivatives", "y·exp(x·y)", 2,
     {"partial": ("x", "y")}),
])
def test_the_step_is_named_in_its_differentiation(function, answer, rule, at, which, kind):
    v = second(function, answer, **kind)
    assert v.verdict == "incorrect"
    assert v.misconception == {"rule": rule, "at": at, "differentiation": which}, v.feedback
    start = "in the first differentiation, at " if which == 1 else \
        "in the second differentiation (of "
    assert v.feedback.startswith(start), v.feedback
    assert f"at {at}: " in v.feedback


def test_the_first_derivative_given_for_the_second_is_said_so():
    v = second("x e^x", "x e^x + e^x")
    assert v.feedback.startswith("this is the first derivative d/dx") and not v.misconception


def test_a_right_answer_and_an_unexplained_one_name_no_step():
    assert second("x^2 sin(x)", "2sin(x) + 4x cos(x) - x^2 sin(x)").verdict == "correct"
    v = second("x^2 sin(x)", "2 cos(x) - x^2 sin(x)")
    assert v.verdict == "incorrect" and v.misconception is None


@pytest.mark.parametrize("function", ["sin(3x)", "x^2 cos(x)", "x e^(2x)"])
def test_every_misapplication_in_the_first_differentiation_is_located(function):
    """A wrong f'' made by one misapplied rule in f', then differentiated right, is
    explained by one misapplied rule (in f' or in f'') that reproduces it."""
    x = symbol("x")
    tape = m.FormulaTape(parse(function), {"x": x}, "x", symbolic=True)
    right = sp.diff(exact(tape.sweep()), x)
    tried = 0
    for k, mistake in tape.candidates():
        wrong = sp.diff(exact(tape.sweep(mistake, k)), x)
        first = exact(tape.sweep())
        if sp.simplify(wrong - right) == 0 or sp.simplify(wrong - first) == 0:
            continue
        v = second(function, text(wrong))
        assert v.verdict == "incorrect", (function, mistake, text(wrong))
        assert v.misconception is not None, (function, mistake, text(wrong), v.feedback)
        tried += 1
    assert tried >= 2
