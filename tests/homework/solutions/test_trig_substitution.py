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
