"""Every printed line of `derive`, plain and LaTeX, read back and checked true
(tests/readback.py, the reading `python bench/solutions.py --readback` runs over the
whole problem set): a fixed sample of every kind, and doctored lines that must be found
false, so that the reading can fail."""

from __future__ import annotations

import pytest
from readback import check_latex, check_plain

#: a problem of each kind and method: derivatives (rules, logarithmic differentiation,
#: higher orders, at a point), partials (and at a point, a gradient, a second partial),
#: implicit (with a point, second order on the curve, named constants), antiderivatives
#: (u and du, parts, tabular, repeated parts, partial fractions, trig powers, a table's
#: arctangent, trigonometric substitution in θ with sin, tan and sec), a tangent line
SAMPLE = [
    ("x^2 sin(3x)",),
    ("x^x",),
    ("ln(sec(x) + tan(x))",),
    ("x^2 sin(x)", "--at", "x=2"),
    ("sin(x^2)", "--order", "2"),
    ("x^3 sin(x)", "--order", "3", "--at", "x=1"),
    ("x^2 y^3", "--partial", "x,y"),
    ("x^3 y", "--partial", "x", "--at", "x=1, y=2"),
    ("x^2 y + y^3",),
    ("x^2 + x y + y^2 = 7", "--implicit", "y", "--at", "x=1, y=2"),
    ("9x^2 + y^2 = 9", "--implicit", "y", "--order", "2", "--at", "x=0, y=3"),
    ("x^3 + y^3 = 6x y", "--implicit", "y"),
    ("a x^2 - b y^3 = c^2", "--implicit", "y"),
    ("2x cos(x^2)", "--antiderivative"),
    ("x cos(x)", "--antiderivative"),
    ("x^2 e^x", "--antiderivative"),
    ("e^x sin(x)", "--antiderivative"),
    ("1/((x - 1)(x + 2))", "--antiderivative"),
    ("sin(2x)^5", "--antiderivative"),
    ("1/(x^2+4x+29)", "--antiderivative"),
    ("sqrt(4 - x^2)", "--antiderivative"),
    ("sqrt(x^2 - 4)/x", "--antiderivative"),
    ("1/(x^2+9)^(3/2)", "--antiderivative"),
    ("x^2", "--tangent", "x=1"),
]


def _judged(lines):
    statuses = {f.status for f in lines.findings}
    wrong = [(f.status, f.line, f.why) for f in lines.findings if f.status != "true"]
    return statuses, wrong


@pytest.mark.parametrize("fmt,read", [("--plain", check_plain), ("--latex", check_latex)],
                         ids=["plain", "latex"])
@pytest.mark.parametrize("args", SAMPLE, ids=" ".join)
def test_every_printed_line_is_a_true_equation(invoke, args, fmt, read):
    run = invoke("derive", *args, fmt)
    assert run.code == 0, run.err
    lines = read(run.out)
    statuses, wrong = _judged(lines)
    assert not wrong, wrong
    assert len(lines.findings) >= 3


@pytest.mark.parametrize("args,right,wrong", [
    (("x^2 sin(3x)",), "answer: f'(x) = 3x^2·cos(3x)", "answer: f'(x) = x^2·cos(3x)"),
    (("x^2 sin(x)", "--at", "x=2"), "≈ 1.9726", "≈ 1.9736"),
    (("sqrt(4 - x^2)", "--antiderivative"), "= 2·(θ + sin(2θ)/2)",
     "= 2·(θ + sin(2θ)/3)"),
    (("sqrt(4 - x^2)", "--antiderivative"), "dx = 2cos(θ) dθ", "dx = 2sin(θ) dθ"),
    (("x^2 + x y + y^2 = 7", "--implicit", "y"), "⇒ (x + 2y)·y' = -2x - y",
     "⇒ (x + 2y)·y' = -2x + y"),
    (("9x^2 + y^2 = 9", "--implicit", "y", "--order", "2"), "= -81/y^3", "= -80/y^3"),
    (("1/((x - 1)(x + 2))", "--antiderivative"), "A = 1/3", "A = 1/2"),
    (("sin(x^2)",), "sin' = cos", "sin' = -cos"),
    (("1/(1 + x)",), "(c/v)' = −c·v'/v^2", "(c/v)' = c·v'/v^2"),
    (("x^2 e^x", "--antiderivative"), "+ | 2 | e^x", "+ | 3 | e^x"),
])
def test_a_false_plain_line_is_found_false(invoke, args, right, wrong):
    run = invoke("derive", *args, "--plain")
    assert right in run.out
    lines = check_plain(run.out.replace(right, wrong, 1))
    false = [f for f in lines.findings if f.status == "false"]
    assert len(false) == 1 and wrong in false[0].line, false


@pytest.mark.parametrize("args,right,wrong", [
    (("x^2 sin(3x)",), r"3 x^{2} \cos{\left(3 x \right)} + 2 x",
     r"x^{2} \cos{\left(3 x \right)} + 2 x"),
    (("sqrt(4 - x^2)", "--antiderivative"), r"&= \frac{x \sqrt{4 - x^{2}}}{2} + 2",
     r"&= \frac{x \sqrt{4 - x^{2}}}{2} + 3"),
    (("x^2 y^3", "--partial", "x,y"), "&= 6 x y^{2}", "&= 6 x y^{3}"),
    (("x^2 + y^2 = 25", "--implicit", "y"), r"y' = - \frac{x}{y}", r"y' = \frac{x}{y}"),
])
def test_a_false_latex_line_is_found_false(invoke, args, right, wrong):
    run = invoke("derive", *args, "--latex")
    assert right in run.out
    lines = check_latex(run.out.replace(right, wrong, 1))
    assert any(f.status == "false" for f in lines.findings), lines.findings


def test_a_line_that_does_not_read_is_reported_with_why(invoke):
    run = invoke("derive", "x^2 sin(3x)", "--plain")
    lines = check_plain(run.out.replace("answer: f'(x) = 3x^2·cos(3x) + 2x·sin(3x)",
                                        "answer: f'(x) = 3x^2·cos(3x) + 2x·sin(3x) +"))
    unread = [f for f in lines.findings if f.status == "unread"]
    assert len(unread) == 1 and unread[0].line.startswith("answer: ")
    assert "not read as a formula: 3x^2·cos(3x) + 2x·sin(3x) +" in unread[0].why
