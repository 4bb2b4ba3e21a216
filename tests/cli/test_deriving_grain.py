"""`gradcalc derive` at a textbook's grain, in every format alike: the method's own lines
(u and du with its parentheses, the arctangent's formula, ln y, the solve of repeated
parts, the cover-up's coefficients) in plain and JSON as in the LaTeX document, and the
notation textbooks print (|…|, ^, du = dx, sec); the cases of issue 36."""

from __future__ import annotations

import json

import pytest


def _three(invoke, *args: str) -> tuple[str, dict, str]:
    """derive's plain lines, JSON object and LaTeX document for the same problem."""
    plain, out, tex = (invoke("derive", *args, f"--{fmt}") for fmt in ("plain", "json",
                                                                      "latex"))
    assert plain.code == out.code == tex.code == 0, (plain.err, out.err, tex.err)
    return plain.out, json.loads(out.out), tex.out


def _note(out: dict, rule: str) -> str:
    return next(s["note"] for s in out["steps"] if s["rule"] == rule)


@pytest.mark.parametrize("args,rule,note,latex", [
    (("x/(x^2+1)", "--antiderivative"), "substitution", "u = x^2 + 1, du = 2x dx",
     r"\intertext{$u = x^{2} + 1$, $du = 2 x\, dx$}"),
    (("(2x+4)(x^2+4x)^3", "--antiderivative"), "substitution",
     "u = x^2 + 4x, du = (2x + 4) dx",
     r"\intertext{$u = x^{2} + 4 x$, $du = \left(2 x + 4\right)\, dx$}"),
    (("1/(x^2+4)", "--antiderivative"), "integral-table",
     "∫ 1/(u^2 + a^2) du = (1/a)·atan(u/a)",
     r"\intertext{$\int \frac{1}{a^{2} + u^{2}}\, du = "
     r"\frac{\operatorname{atan}{\left(\frac{u}{a} \right)}}{a}$}"),
    (("x^(sin(x))",), "log-differentiation",
     "y = x^(sin(x)): ln(y) = sin(x)·ln(x), so y'/y = d/dx(sin(x)·ln(x)) and y' = "
     "y·(y'/y)", r"$\ln{\left(y \right)} = \ln{\left(x \right)} \sin{\left(x \right)}$"),
    (("e^x sin(x)", "--antiderivative"), "cyclic-parts",
     "I = ∫ e^x·sin(x) dx; by parts with u = sin(x), dv = e^x dx, then u = cos(x), dv = "
     "e^x dx: I = e^x·sin(x) - cos(x)·e^x - I, so 2·I = e^x·sin(x) - cos(x)·e^x",
     r"so $2 I = e^{x} \sin{\left(x \right)} - e^{x} \cos{\left(x \right)}$"),
    (("1/((x - 1)(x + 2))", "--antiderivative"), "partial-fractions",
     "1/((x - 1)·(x + 2)) = A/(x - 1) + B/(x + 2); cover-up: A = 1/3 (at x = 1), "
     "B = -1/3 (at x = -2)", r"cover-up: $A = \frac{1}{3}$ (at $x = 1$)"),
    (("x cos(x)", "--antiderivative"), "parts", "u = x, dv = cos(x) dx: du = dx, "
     "v = sin(x)", r"$du = dx$"),
])
def test_the_method_is_stated_in_every_format(invoke, args, rule, note, latex):
    """The step the lesson is about, with what it states, never `several rules at
    once`: said in the plain line, in JSON's note, and above its row in LaTeX."""
    plain, out, tex = _three(invoke, *args)
    assert _note(out, rule) == note
    assert f"({note})" in plain
    assert latex in tex
    assert "combined" not in {s["rule"] for s in out["steps"]}


@pytest.mark.parametrize("args", [
    ("1/(x^2 - 1)", "--antiderivative"),
    ("x cos(x)", "--antiderivative"),
    ("ln|x| + |x|^3",),
    ("L = mean((X@W + b - Y)^2)", "--wrt", "W", "--shape", "X=4x3, W=3x2, b=2, Y=4x2"),
    ("1/(x^2+4x+29)", "--antiderivative"),
])
def test_the_notation_textbooks_print(invoke, args):
    """|…| in steps and answer alike (never abs(…)), ^ (never **), du = dx (never
    1 dx), no sympy name (_u); and plain says steps merged only where JSON counts them."""
    plain, out, tex = _three(invoke, *args)
    for text in (plain, json.dumps(out, ensure_ascii=False)):
        assert "abs(" not in text and "**" not in text and " 1 d" not in text
        assert "_u" not in text and "Dummy" not in text
    assert ("merged" in plain.splitlines()[-1]) == (out["verified"]["merged"] > 0)
    assert "abs(" not in tex and "operatorname{abs}" not in tex and "_u" not in tex


def test_a_second_derivative_differentiates_the_simplest_first(invoke):
    """f'' of x^3·e^(2x) starts from f''s final form, in fewer steps than the thirteen
    the rules took on f' as they left it."""
    out = json.loads(invoke("derive", "x^3 e^(2x)", "--order", "2", "--json").out)
    first, second = out["parts"]
    assert second["start"] == f"d/dx({first['result']})"
    assert second["steps"][1] - second["steps"][0] + 1 < 13
    assert out["answer"] == "f''(x) = 2x·(2x^2 + 6x + 3)·e^(2x)"


def test_a_gradient_at_a_point_names_the_point(invoke):
    """`∇f = [4, 13]` alone would not say where: the answer says it first, as a partial's
    does, and the LaTeX answer too."""
    plain, out, tex = _three(invoke, "x^2 y + y^3", "--at", "x=1, y=2")
    assert plain.splitlines()[-2] == "answer: at (x, y) = (1, 2): ∇f = [4, 13]"
    assert out["answer"] == "at (x, y) = (1, 2): ∇f = [4, 13]"
    assert (r"Answer: \[ \text{at } (x, y) = (1, 2):\ \nabla f = \left[4, 13\right] \]"
            in tex)
