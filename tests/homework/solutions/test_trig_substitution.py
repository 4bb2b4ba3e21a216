"""Trigonometric substitution: x, dx and the root said in θ, then θ's functions written
back by the right triangle; LaTeX writes θ by its command."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("function,said,triangle", [
    ("sqrt(4 - x^2)", "x = 2sin(θ), dx = 2cos(θ) dθ, √(4 - x^2) = 2cos(θ)",
     "x = 2sin(θ): the right triangle with opposite side x, adjacent side √(4 - x^2) and "
     "hypotenuse 2 gives sin(2θ) = 2cos(θ)·sin(θ), cos(θ) = √(4 - x^2)/2, "
     "sin(θ) = x/2, θ = asin(x/2)"),
    ("1/(x^2+9)^(3/2)", "x = 3tan(θ), dx = 3sec(θ)^2 dθ, √(x^2 + 9) = 3sec(θ)",
     "x = 3tan(θ): the right triangle with opposite side x, adjacent side 3 and "
     "hypotenuse √(x^2 + 9) gives sin(θ) = x/√(x^2 + 9)"),
    ("sqrt(x^2 - 4)/x", "x = 2sec(θ), dx = 2sec(θ)·tan(θ) dθ, √(x^2 - 4) = 2tan(θ)",
     "x = 2sec(θ): the right triangle with opposite side √(x^2 - 4), adjacent side 2 "
     "and hypotenuse x gives tan(θ) = √(x^2 - 4)/2, θ = atan(√(x^2 - 4)/2)"),
])
def test_trig_substitution_says_x_dx_and_the_root_then_the_triangle(invoke, function,
                                                                   said, triangle):
    out = json.loads(invoke("derive", function, "--antiderivative", "--json").out)
    notes = {s["rule"]: s["note"] for s in out["steps"]}
    assert notes["trig-substitution"] == said
    assert notes["back-substitution"] == triangle


def test_a_trig_substitution_in_latex_writes_theta_by_its_command(invoke):
    run = invoke("derive", "1/(x^2+9)^(3/2)", "--antiderivative", "--latex")
    assert "\\int \\frac{\\cos{\\left(\\theta \\right)}}{9}\\, d\\theta" in run.out
    assert "θ" not in run.out


@pytest.mark.parametrize("function,square,u,trig", [
    ("x/sqrt(x^2 + 6x)", "x/√(x^2 + 6x) = x/√((x + 3)^2 - 9)", "u = x + 3, du = dx",
     "u = 3sec(θ), du = 3sec(θ)·tan(θ) dθ, √(u^2 - 9) = 3tan(θ)"),
    ("3/sqrt(t^2 - 6t + 13)", "3/√(t^2 - 6t + 13) = 3/√((t - 3)^2 + 4)", None,
     "t = 2tan(θ) + 3, dt = 2sec(θ)^2 dθ, √((t - 3)^2 + 4) = 2sec(θ)"),
    ("3sqrt(5 + 4x - x^2)", "3√(-x^2 + 4x + 5) = 3√(9 - (x - 2)^2)", None,
     "x = 3sin(θ) + 2, dx = 3cos(θ) dθ, √(9 - (x - 2)^2) = 3cos(θ)"),
])
def test_a_root_of_a_quadratic_with_a_linear_term_completes_the_square(invoke, function,
                                                                       square, u, trig):
    """The square completed, then the trig substitution in x at once (x − 2 = 3sin θ;
    x + 3 = 3sec θ, whose angle's branch depends on the sign of u = x + 3, by u first);
    the logs of the formula sympy used (ln(2x + 2√(x^2 + 6x) + 6), false for x < −6) are
    gone."""
    out = json.loads(invoke("derive", function, "--antiderivative", "--json").out)
    notes: dict[str, str] = {}
    for s in out["steps"]:
        notes.setdefault(s["rule"], s["note"])  # the first of each rule
    assert notes["complete-square"] == square
    substitutions = [s["note"] for s in out["steps"] if s["rule"] == "substitution"]
    assert substitutions[:1] == [u] if u else all("θ" in n for n in substitutions)
    assert notes["trig-substitution"] == trig
    assert out["note"] is None and "ln(2x" not in out["answer"]


def test_one_over_a_root_of_u2_plus_a2_is_a_tan_substitution_not_asinh(invoke):
    out = json.loads(invoke("derive", "3/sqrt(x^2 + 16)", "--antiderivative", "--json").out)
    assert [s["rule"] for s in out["steps"]][0] == "trig-substitution"
    assert out["answer"] == "∫ f(x) dx = 3ln(|x/4 + √(x^2 + 16)/4|) + C"
